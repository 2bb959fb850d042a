"""The engine: validation of decisions, eligibility, runtimes on heterogeneous nodes, the grid
level (routing, co-allocation, link load), runtime policy switches and determinism."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from emulator.api import (
    ClusterView,
    Decision,
    GridPolicy,
    GridView,
    LocalPolicy,
    PolicyError,
    Reject,
    Reserve,
    Route,
    Start,
    Wake,
)
from emulator.engine import Engine
from emulator.model.job import Communication, JobState, Moldable, Reason, Request
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from resources import platform_path
from tests.helpers import platform_of


class Scripted(LocalPolicy):
    """Yields whatever the test put in ``plan`` on its first pass."""

    name = "scripted"

    def __init__(self, plan: list[Decision]) -> None:
        self.plan = plan

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        plan, self.plan = self.plan, []
        yield from plan


def test_a_start_that_does_not_fit_names_the_policy() -> None:
    engine = Engine(Platform.single_cluster(2))
    busy = engine.submit(Request(tasks=1, time_limit=10), 5)
    job = engine.submit(Request(tasks=2, time_limit=10), 5)
    engine.clusters[0].policy = Scripted([Start(busy), Start(job)])
    with pytest.raises(PolicyError, match=r"policy 'scripted': job 2 \(2 cores\) does not fit"):
        engine.run()


def test_a_job_larger_than_every_cluster_pends_with_partition_config() -> None:
    engine = Engine(Platform.single_cluster(2), "fcfs")  # as Slurm with EnforcePartLimits=NO
    job = engine.submit(Request(tasks=3, time_limit=10), 5)
    engine.run()
    assert (job.state, job.reason) == (JobState.PENDING, Reason.PARTITION_CONFIG)


def test_starting_a_job_twice_is_an_error() -> None:
    engine = Engine(Platform.single_cluster(4))
    job = engine.submit(Request(tasks=1, time_limit=10), 5)
    engine.clusters[0].policy = Scripted([Start(job), Start(job)])
    with pytest.raises(
        PolicyError, match=r"job 1 is not waiting in cluster 'cluster' \(state RUNNING"
    ):
        engine.run()


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        (Wake(0.0), "Wake at 0.0 is not after now"),
        ("start everything", "returned 'start everything', not a decision"),
    ],
)
def test_malformed_decisions(decision: object, message: str) -> None:
    engine = Engine(Platform.single_cluster(4))
    engine.submit(Request(), 5)
    engine.clusters[0].policy = Scripted([decision])  # type: ignore[list-item]
    with pytest.raises(PolicyError, match=message):
        engine.run()


def test_explicit_nodes_are_checked() -> None:
    engine = Engine(Platform.single_cluster(4))
    busy = engine.submit(Request(tasks=1, time_limit=100), 100)
    job = engine.submit(Request(tasks=2, time_limit=10), 5)
    engine.clusters[0].policy = Scripted([Start(busy, nodes=(0,)), Start(job, nodes=(0, 1))])
    with pytest.raises(PolicyError, match="wants 1 cores on n001, 0 are free"):
        engine.run()


def test_reject_fails_the_job_with_the_reason() -> None:
    engine = Engine(Platform.single_cluster(4))
    job = engine.submit(Request(), 5)
    engine.clusters[0].policy = Scripted([Reject(job, "no budget")])
    engine.run()
    assert (job.state, job.explanation, job.end) == (JobState.FAILED, "no budget", 0.0)


def test_held_job_waits_for_release() -> None:
    engine = Engine(Platform.single_cluster(4), "fcfs")
    job = engine.submit(Request(held=True, time_limit=10), 5)
    engine.run(until=100)
    assert (job.state, job.reason) == (JobState.PENDING, Reason.HELD_USER)
    engine.release(job.id)
    engine.run()
    assert (job.start, job.end) == (100, 105)


def test_begin_time_defers_eligibility() -> None:
    engine = Engine(Platform.single_cluster(4), "easy")
    job = engine.submit(Request(begin=50.0, time_limit=10), 5)
    engine.run(until=49)
    assert (job.state, job.reason) == (JobState.PENDING, Reason.BEGIN_TIME)
    engine.run()
    assert (job.start, job.end, job.state) == (50, 55, JobState.COMPLETED)


def test_runtimes_and_limits_scale_with_the_slowest_node() -> None:
    engine = Engine(platform_of((4, 2.0)), "fcfs")
    ok = engine.submit(Request(tasks=2, time_limit=300), 100)
    cut = engine.submit(Request(tasks=2, time_limit=100), 400)
    engine.run()
    assert (ok.end, ok.expected_end, ok.state) == (50, 150, JobState.COMPLETED)
    assert (cut.end, cut.state) == (50, JobState.TIMEOUT)


def test_without_a_grid_policy_a_job_goes_where_it_starts_first() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 1.0)), "fcfs")
    blocker = engine.submit(Request(tasks=2, time_limit=100, clusters=("k0",)), 100)
    job = engine.submit(Request(tasks=2, time_limit=10), 10, at=1)
    engine.run()
    assert (blocker.cluster, job.cluster, job.start) == (0, 1, 1)


class CoAllocate(GridPolicy):
    """Starts each grid job on one node of each of the first ``τ`` clusters."""

    name = "coallocate-test"

    def schedule(self, view: GridView) -> Iterator[Decision]:
        for job in view.queue:
            nodes = tuple(view.platform.clusters[k].nodes[0].id for k in range(job.request.tasks))
            yield Start(job, nodes=nodes, cores=(1,) * len(nodes), explanation="spread")


def oas_engine(grid: GridPolicy) -> Engine:
    engine = Engine(load_platform(platform_path("oas-testbed")), "fcfs")
    engine.grid_policy = grid
    return engine


def test_a_co_allocated_bsp_job_loads_the_links_by_eq_4_and_runs_at_the_slowest_pace() -> None:
    engine = oas_engine(CoAllocate())
    bsp = Communication(base_time=100.0, sigma=0.8, task_bw=0.5)
    job = engine.submit(Request(tasks=2, time_limit=1000, communication=bsp), 100)
    engine.run(until=1)
    # t_0 = t_1 = 1 of τ = 2 tasks: BW = 1 · 0.5 · (2 − 1)/(2 − 1) = 0.5 on links 0 and 1
    assert engine.network.used == [0.5, 0.5, 0.0]
    assert engine.grid.link_load(1) == 0.5
    engine.run()
    # SP = 1/0.75 (slowest node), SC = 1 (links not saturated): Te = 100 · (0.8/0.75 + 0.2)
    assert job.end == pytest.approx(100 * (0.8 / 0.75 + 0.2))
    assert job.nodes == (0, 2) and job.explanation == "spread"
    assert engine.network.used == [0.0, 0.0, 0.0]


def test_a_saturated_link_slows_communication() -> None:
    engine = oas_engine(CoAllocate())
    bsp = Communication(base_time=100.0, sigma=0.5, task_bw=1.5)  # BW 1.5 on 1.0 links
    job = engine.submit(Request(tasks=2, time_limit=1000, communication=bsp), 100)
    engine.run()
    # SAT = 1.0/1.5 < 1, so SC = 1.5: Te = 100 · (0.5/0.75 + 0.5 · 1.5)
    assert job.end == pytest.approx(100 * (0.5 / 0.75 + 0.75))


def test_a_job_on_one_cluster_never_loads_a_link() -> None:
    engine = oas_engine(CoAllocate())
    bsp = Communication(base_time=100.0, sigma=0.5, task_bw=50.0)
    job = engine.submit(Request(tasks=1, time_limit=1000, communication=bsp), 100)
    engine.run(until=1)
    assert engine.network.used == [0.0, 0.0, 0.0]
    engine.run()
    assert job.end == pytest.approx(100.0)  # σ·1 + (1 − σ)·1 on a speed-1 node


class RouteAll(GridPolicy):
    name = "route-test"

    def __init__(self, target: int) -> None:
        self.target = target

    def schedule(self, view: GridView) -> Iterator[Decision]:
        for job in view.queue:
            estimate = view.estimate(job, self.target)
            yield Route(job, self.target, explanation=f"ECT {estimate.end:g}")


def test_grid_routing_then_local_scheduling_and_reallocation_count() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 1.0)), "fcfs")
    engine.grid_policy = RouteAll(1)
    first = engine.submit(Request(tasks=2, time_limit=10), 10)
    second = engine.submit(Request(tasks=2, time_limit=10), 10)
    engine.run(until=0)
    assert (first.cluster, first.state, first.explanation) == (1, JobState.RUNNING, "ECT 10")
    assert (second.cluster, second.state) == (1, JobState.PENDING)
    engine.clusters[1].policy = Scripted([Route(second, 0)])  # reallocate the waiting one
    engine.request_pass(engine.clusters[1])
    engine.run()
    assert (second.cluster, second.start, engine.queues.reallocations) == (0, 0, 1)


class Reallocate(GridPolicy):
    """Moves every job waiting in cluster 0's queue to cluster 1 (a reallocation pass)."""

    name = "reallocate-test"

    def schedule(self, view: GridView) -> Iterator[Decision]:
        for job in view.clusters[0].queue:
            yield Route(job, 1, explanation="reallocated: ECT better on k1")


def test_the_grid_policy_may_reallocate_jobs_waiting_in_cluster_queues() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 1.0)), "fcfs")
    engine.submit(Request(tasks=2, time_limit=100, clusters=("k0",)), 100)
    long = engine.submit(Request(tasks=2, time_limit=200, clusters=("k1",)), 200)
    waiting = engine.submit(Request(tasks=2, time_limit=10), 10, at=1)  # k0 frees first: 100
    engine.run(until=1)
    assert (waiting.cluster, waiting.state) == (0, JobState.PENDING)
    engine.cancel(long.id)  # k1 is free now, but nothing moves the job by itself
    engine.run(until=2)
    assert waiting.cluster == 0
    engine.grid_policy = Reallocate()
    engine.request_pass(engine.grid)
    engine.run()
    assert (waiting.cluster, waiting.start, engine.queues.reallocations) == (1, 2, 1)
    assert waiting.explanation == "reallocated: ECT better on k1"


def test_a_job_is_never_routed_to_a_cluster_its_user_excluded() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 1.0)), "fcfs")
    engine.submit(Request(tasks=2, time_limit=100, clusters=("k0",)), 100)
    engine.submit(Request(tasks=2, time_limit=10, clusters=("k0",)), 10)
    engine.run(until=1)
    engine.grid_policy = Reallocate()
    engine.request_pass(engine.grid)
    with pytest.raises(PolicyError, match="job 2 may not run on cluster 'k1'"):
        engine.run()


def test_moldable_job_runs_for_its_work_over_the_bpus_it_got() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 2.0)), "fcfs")
    engine.grid_policy = CoAllocate()
    job = engine.submit(Request(tasks=2, time_limit=1000, moldable=Moldable(power=3.0)), 100)
    engine.run()
    # nodes k0n0 (1 BPU) and k1n0 (2 BPU): 3 BPUs for 100 · 3 BPU-seconds of work
    assert job.end == pytest.approx(100.0)


def test_reservations_are_recorded() -> None:
    engine = Engine(Platform.single_cluster(4))
    job = engine.submit(Request(), 5)
    engine.clusters[0].policy = Scripted([Reserve(job, 42.0, explanation="later")])
    engine.run()
    assert (job.planned_start, job.explanation, job.state) == (42.0, "later", JobState.PENDING)


def test_switching_the_scheduler_changes_later_decisions() -> None:
    spec = [(0, 2, 10, 10), (0, 4, 10, 5), (1, 2, 5, 3)]
    engine = Engine(Platform.single_cluster(4), "fcfs")
    jobs = [engine.submit(Request(tasks=c, time_limit=lim), r, at=t) for t, c, lim, r in spec]
    engine.run(until=0.5)
    engine.set_scheduler("easy")
    engine.run()
    assert [j.start for j in jobs] == [0, 10, 1]  # job 3 is backfilled, which FCFS never does
    assert str(engine.spec) == "easy"


def test_a_new_scheduler_explains_the_waiting_jobs_afresh() -> None:
    engine = Engine(Platform.single_cluster(4), "fcfs")
    engine.submit(Request(tasks=4, time_limit=10), 10)
    head = engine.submit(Request(tasks=4, time_limit=10), 10)
    engine.run(until=1)
    assert head.explanation.startswith("FCFS")
    engine.set_scheduler("easy")
    engine.run(until=2)
    assert (head.reason, head.planned_start) == (Reason.RESOURCES, 10.0)
    assert head.explanation.startswith("EASY"), head.explanation


def random_run(seed: int, scheduler: str) -> list[tuple[float, float, tuple[int, ...]]]:
    rng = random.Random(seed)
    engine = Engine(Platform.single_cluster(32), scheduler)
    jobs = [
        engine.submit(
            Request(tasks=rng.randint(1, 32), time_limit=100),
            rng.uniform(1, 100),
            at=rng.uniform(0, 1000),
        )
        for _ in range(300)
    ]
    engine.run()
    return [(j.start, j.end, j.nodes) for j in jobs]


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "cbf", "lsf"])
def test_same_inputs_same_schedule(scheduler: str) -> None:
    assert random_run(3, scheduler) == random_run(3, scheduler)


def test_idle_and_clock() -> None:
    engine = Engine(Platform.single_cluster(1), "fcfs")
    engine.submit(Request(time_limit=10), 10, at=5)
    assert not engine.idle
    engine.run(until=7)
    assert engine.now == 7
    engine.run()
    assert engine.idle and engine.now == 15
    assert math.isinf(engine.kernel.next_time())


def test_named_nodes_out_of_order_are_given_back_exactly() -> None:
    engine = Engine(Platform.single_cluster(6), "fcfs")
    job = engine.submit(Request(tasks=4, time_limit=10, include=("n005", "n002")), 10)
    engine.run(until=1)
    assert job.nodes == (4, 1, 0, 2)  # the named nodes first, then the lowest free ones
    assert list(engine.clusters[0].node_free) == [0, 0, 0, 1, 0, 1]
    engine.run()
    assert list(engine.clusters[0].node_free) == [1] * 6
    assert engine.clusters[0].free_cores == 6
