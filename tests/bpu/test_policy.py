"""The ``bpu`` grid policy in the engine: home site, fastest-first table, best fit, co-allocation,
strict FCFS and its options, with the figures in the explanations."""

from __future__ import annotations

import io

import pytest

from emulator.api.registry import parse_spec
from emulator.engine import Engine
from emulator.model.job import JobState, Moldable, Reason, Request
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.model.platform_file import load_platform
from emulator.replay import replay
from resources import platform_path
from solvers.bpu.policy import Bpu
from workloads.hyperexp import MoldableWorkload, moldable_jobs


def two_sites() -> Platform:
    """west: 4 nodes of speed 1.0; east: 2 nodes of speed 1.5 then 2 of speed 1.0 (one core
    each). Averages when idle: west 4/4 = 1.0, east (3 + 2)/4 = 1.25."""
    west = tuple(Node(i, f"w{i}", 0, i, 1, 1.0) for i in range(4))
    east = tuple(Node(4 + i, f"e{i}", 1, i, 1, 1.5 if i < 2 else 1.0) for i in range(4))
    return Platform(
        "two",
        (
            Cluster("west", 0, west, (Partition("batch", (0, 1, 2, 3), True),), 1.0),
            Cluster("east", 1, east, (Partition("batch", (0, 1, 2, 3), True),), 1.0),
        ),
    )


def moldable(power: float, origin: str = "", limit: float = 1000.0) -> Request:
    return Request(time_limit=limit, moldable=Moldable(power=power), origin=origin)


def test_a_job_goes_to_the_fastest_site_on_its_best_fit() -> None:
    engine = Engine(two_sites(), "bpu")
    job = engine.submit(moldable(4.0), 100)
    engine.run(until=1)
    assert [engine.platform.nodes[n].name for n in job.nodes] == ["e0", "e1", "e2"]
    assert job.explanation == (
        "BPU: east (avg free 1.25): 2 x speed 1.5 + 1 x speed 1.0 = 4.0 BPU >= 4.0"
    )
    engine.run()
    assert (job.state, job.end, job.cores) == (JobState.COMPLETED, 100.0, 3)


def test_the_table_is_rebuilt_after_each_start() -> None:
    engine = Engine(two_sites(), "bpu")
    first = engine.submit(moldable(3.0), 100)  # east: 2 x 1.5 (exact); east's average drops to 0.5
    second = engine.submit(moldable(2.0), 100)  # so west (1.0) comes first: 2 x 1.0
    engine.run(until=1)
    assert [engine.platform.nodes[n].name for n in first.nodes] == ["e0", "e1"]
    assert second.explanation == "BPU: west (avg free 1.00): 2 x speed 1.0 = 2.0 BPU >= 2.0"


@pytest.mark.parametrize(("spec", "site"), [("bpu", "west"), ("bpu:local_first=no", "east")])
def test_a_job_whose_home_site_can_run_it_starts_there_first(spec: str, site: str) -> None:
    engine = Engine(two_sites(), spec)
    job = engine.submit(moldable(3.0, origin="west"), 100)
    engine.run(until=1)
    assert engine.platform.clusters[job.cluster].name == site
    if site == "west":
        assert job.explanation.startswith("BPU: home site west (avg free 1.00): 3 x speed 1.0")


def test_a_job_no_single_site_can_take_is_co_allocated_in_table_order() -> None:
    engine = Engine(two_sites(), "bpu")
    job = engine.submit(moldable(8.0), 100)  # east has 5 BPUs, west 4
    engine.run(until=1)
    assert job.explanation == (
        "BPU co-allocated: east (avg free 1.25): 2 x speed 1.5 + 2 x speed 1.0"
        " + west (avg free 1.00): 3 x speed 1.0 = 8.0 BPU >= 8.0"
    )
    engine.run()
    assert (job.state, job.end) == (JobState.COMPLETED, 100.0)


def test_without_co_allocation_the_head_waits_and_blocks_the_queue() -> None:
    engine = Engine(two_sites(), "bpu:coalloc=no")
    big = engine.submit(moldable(8.0), 100)
    small = engine.submit(moldable(1.0), 100)
    engine.run(until=1)
    assert (big.state, big.reason, small.state) == (
        JobState.PENDING,
        Reason.RESOURCES,
        JobState.PENDING,
    )
    assert big.explanation == "waits for 8.0 BPUs (9.0 free on its sites, at most 5.0 on one)"


def test_rigid_jobs_take_task_slots_fastest_class_first() -> None:
    engine = Engine(two_sites(), "bpu")
    job = engine.submit(Request(tasks=3, time_limit=1000), 150)
    engine.run()
    assert [engine.platform.nodes[n].name for n in job.nodes] == ["e0", "e1", "e2"]
    assert job.end == 150.0  # paced by its slowest node, speed 1.0


def test_the_options_parse_as_the_registry_does() -> None:
    spec = parse_spec("bpu:coalloc=no,local_first=no")
    assert spec.grid is not None and str(spec) == "bpu:coalloc=no,local_first=no+fcfs"


def test_a_job_pinned_to_a_site_blocks_only_the_jobs_that_may_use_that_site() -> None:
    engine = Engine(two_sites(), "bpu:local_first=no")
    big = engine.submit(Request(time_limit=100, moldable=Moldable(6.0), clusters=("east",)), 10)
    west = engine.submit(Request(time_limit=100, moldable=Moldable(2.0), clusters=("west",)), 10)
    anywhere = engine.submit(moldable(1.0), 10)  # may use east: waits behind the blocked job
    engine.run(until=1)
    assert (big.state, west.state, anywhere.state) == (
        JobState.PENDING,
        JobState.RUNNING,
        JobState.PENDING,
    )


def test_two_replays_of_a_generated_workload_are_byte_identical() -> None:
    platform = load_platform(platform_path("bpu-3sites"))
    sites = tuple(c.name for c in platform.clusters)
    workload = MoldableWorkload(sites, arrival_mean=40.0, arrival_cv=2.0, service_cv=2.0)
    texts = []
    for _ in range(2):
        result = replay(moldable_jobs(workload, 400, seed=2), platform, "bpu", with_nodes=True)
        out = io.StringIO()
        result.recorder.write_jobs_csv(out)
        texts.append(out.getvalue())
    assert texts[0] == texts[1] and "+" in texts[0]  # co-allocations among them


def test_the_counts_kept_after_its_own_starts_are_what_a_recount_gives() -> None:
    """The policy skips the recount of a site after its own start (its counts are exact): at
    every step of a replay, a site whose version it noted holds what counting its nodes gives."""
    platform = load_platform(platform_path("bpu-3sites"))
    sites = tuple(c.name for c in platform.clusters)
    workload = MoldableWorkload(sites, arrival_mean=40.0, arrival_cv=2.0, service_cv=2.0)
    engine = Engine(platform, "bpu", keep_finished=False)
    engine.feed(moldable_jobs(workload, 300, seed=3))
    policy = engine.queues.grid_policy
    assert isinstance(policy, Bpu)
    checked = 0
    while engine.run(max_events=7):
        for k, state in enumerate(engine.clusters):
            if policy._versions[k] == state.version:
                assert policy._last[k].classes == policy._sites[k].count(state.node_free)
                checked += 1
    assert checked > 100
