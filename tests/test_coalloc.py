"""The ``coalloc`` grid policy: its allocation functions by hand, its queue orders in the engine,
and a CSV replay through the CLI (OAS paper §3.1 eq. 1–7 and §4.2; models.md §4.2).

Platform for the engine cases: the OAS test bed, clusters c0 / c1 / c2 of two one-core nodes with
speeds 1.0 / 0.75 / 0.5 and 1.0 Gbit/s links. A BSP job with σ = 1 runs Tb / (slowest speed).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.api import Decision, Explain
from emulator.api.registry import SpecError, build, parse_spec
from emulator.cli import main
from emulator.engine import Engine, Observer
from emulator.model.job import Communication, Job, JobState, Reason, Request
from emulator.model.platform_file import load_platform
from emulator.replay import replay
from resources import platform_path
from solvers.coalloc import (
    CoAllocation,
    Site,
    Strategy,
    best,
    first_fit,
    predict,
    single,
)
from solvers.coalloc.policy import _RANK, _Ranking, ordered
from solvers.common.demand import Demand
from solvers.common.orders import QueueOrder
from workloads.bsp_csv import bsp_jobs

OAS = platform_path("oas-testbed")


def site(*free: tuple[float, int], capacity: float = 1.0, load: float = 0.0) -> Site:
    return Site(tuple(free), capacity, load)


# --- the allocation functions on hand-computed cases ----------------------------------------------
def test_best_takes_the_fastest_nodes() -> None:
    testbed = [site((1.0, 2)), site((0.75, 2)), site((0.5, 2))]
    two = best(testbed, Demand(2, 100, 0.8, 0.5))
    assert two is not None
    assert (two.take, two.te, two.bandwidth) == (((0, 1.0, 2),), 100.0, (0.0, 0.0, 0.0))
    # τ = 3 fits no site: c0's two nodes and one of c1 (slowest 0.75) beat anything with c2.
    # Eq. 4: BW = 2·0.3·1/2 = 0.3 on c0 and 1·0.3·2/2 = 0.3 on c1, the same for the mirror split
    # (1 on c0, 2 on c1), so the faster one wins.
    three = best(testbed, Demand(3, 100, 0.8, 0.3))
    assert three is not None
    assert three.take == ((0, 1.0, 2), (1, 0.75, 1))
    assert three.bandwidth == pytest.approx((0.3, 0.3, 0.0))
    assert three.te == pytest.approx(100 * (0.8 / 0.75 + 0.2))
    # within a site, the fast class first
    mixed = best([site((1.5, 2), (1.0, 4))], Demand(3, 60, 1.0))
    assert mixed is not None and mixed.take == ((0, 1.5, 2), (0, 1.0, 1))
    assert (mixed.slowest, mixed.te) == (1.0, 60.0)


# Sites A (3 free at 1.0), B (1 free at 1.0), C (4 free at 0.5); τ = 4, Tb = 100, PTBW = 0.3.
# A + B: BW_A = 3·0.3·1/3 = 0.3, BW_B = 1·0.3·3/3 = 0.3; SP = 1. C alone: SP = 2, no link.
def abc(sigma: float, b_load: float = 0.0, with_c: bool = True) -> tuple[list[Site], Demand]:
    sites = [site((1.0, 3)), site((1.0, 1), load=b_load)]
    if with_c:
        sites.append(site((0.5, 4)))
    return sites, Demand(4, 100, sigma, 0.3)


def test_best_co_allocates_only_when_it_predicts_a_smaller_te() -> None:
    sites, demand = abc(0.8)
    spread = best(sites, demand)
    assert spread is not None
    assert spread.take == ((0, 1.0, 3), (1, 1.0, 1)) and spread.sites == (0, 1)
    assert (spread.te, spread.saturates) == (100.0, False)  # C alone: 100·(0.8/0.5 + 0.2) = 180
    # σ = 0: speed cannot pay back the links; both predict Te = Tb, so one site wins the tie
    sites, demand = abc(0.0)
    alone = best(sites, demand)
    assert alone is not None and alone.take == ((2, 0.5, 4),) and alone.te == 100.0


def test_best_refuses_to_saturate_a_link_when_it_need_not() -> None:
    # 0.8 already on B's link: A + B would put 1.1 on it (SC = 1.1, Te = 100·(0.8 + 0.2·1.1) = 102)
    sites, demand = abc(0.8, b_load=0.8)
    tempting = predict(sites, demand, ((0, 1.0, 3), (1, 1.0, 1)))
    assert tempting.saturates and tempting.te == pytest.approx(102.0)
    chosen = best(sites, demand)
    assert chosen is not None
    assert chosen.take == ((2, 0.5, 4),) and chosen.te == pytest.approx(180.0)
    # ... and saturates one only when nothing else can start the job now
    sites, demand = abc(0.8, b_load=0.8, with_c=False)
    forced = best(sites, demand)
    assert forced is not None and forced.saturates
    assert forced.comm_slowdown == pytest.approx(1.1) and forced.te == pytest.approx(102.0)


def test_when_every_split_saturates_best_takes_the_least_saturated() -> None:
    # τ = 8, PTBW 0.6 over 0.5-capacity links: BW(t) = 0.6/7·t·(8 − t), so a link carrying t tasks'
    # traffic runs at BW/0.5 = 1.2, 2.06, 2.57, 2.74 times its capacity for t = 1, 2, 3, 4.
    # 4 + 4 on two sites puts both at 2.74; 2 + 3 + 3 keeps the worst at 2.57, so SC = 2.57.
    sites = [site((0.5, 2), capacity=0.5), site((0.5, 4), capacity=0.5)]
    sites.append(site((0.5, 4), capacity=0.5))
    chosen = best(sites, Demand(8, 100, 0.0, 0.6))
    assert chosen is not None and chosen.saturates
    assert chosen.take == ((0, 0.5, 2), (1, 0.5, 3), (2, 0.5, 3))
    assert chosen.comm_slowdown == pytest.approx(0.6 / 7 * 3 * 5 / 0.5)
    assert chosen.te == pytest.approx(100 * 0.6 / 7 * 15 / 0.5)


def test_best_takes_the_split_with_the_least_bandwidth() -> None:
    # τ = 6 over A (4 free) and B (4 free), PTBW 0.5: BW(t) = 0.1·t·(6 − t).
    # 4 + 2 puts 0.8 + 0.8 on the links, 3 + 3 puts 0.9 + 0.9.
    chosen = best([site((1.0, 4)), site((1.0, 4)), site((0.5, 6))], Demand(6, 100, 0.8, 0.5))
    assert chosen is not None
    assert chosen.take == ((0, 1.0, 4), (1, 1.0, 2))
    assert chosen.bandwidth == pytest.approx((0.8, 0.8, 0.0))


def test_best_keeps_each_link_within_its_headroom() -> None:
    # τ = 8, PTBW 0.7: BW(t) = 0.1·t·(8 − t), so 1 task on A or B draws 0.7 and 2 draw 1.2 > 1.05.
    # A and B may hold at most one task each; C (unlimited link) takes the other six.
    sites = [site((1.0, 6), capacity=1.05), site((1.0, 6), capacity=1.05)]
    sites.append(site((1.0, 6), capacity=math.inf))
    chosen = best(sites, Demand(8, 100, 0.5, 0.7))
    assert chosen is not None and not chosen.saturates
    assert chosen.take == ((0, 1.0, 1), (1, 1.0, 1), (2, 1.0, 6))
    assert chosen.bandwidth == pytest.approx((0.7, 0.7, 1.2))


def test_best_waits_when_too_few_slots_are_free() -> None:
    assert best([site((1.0, 2)), site((0.5, 1))], Demand(4)) is None


def test_single_never_spans_sites_and_takes_the_fastest_that_fits() -> None:
    sites, demand = abc(0.8)
    assert single(sites[:2], demand) is None  # A + B would do, but no one site has 4
    alone = single(sites, demand)
    assert alone is not None and alone.take == ((2, 0.5, 4),) and alone.te == pytest.approx(180)
    fast = single([site((1.0, 2)), site((1.5, 4))], Demand(2, 30, 1.0))
    assert fast is not None and fast.take == ((1, 1.5, 2),) and fast.te == pytest.approx(20)


def test_first_fit_takes_nodes_in_order_whatever_their_speed_or_links() -> None:
    sites = [site((1.0, 1)), site((0.75, 2), load=0.9), site((0.5, 2))]
    nodes = [(0, 1.0, 0), (0, 1.0, 1), (1, 0.75, 1), (1, 0.75, 1), (2, 0.5, 1), (2, 0.5, 1)]
    chosen = first_fit(nodes, sites, Demand(3, 100, 0.5, 0.6))
    assert chosen is not None
    assert chosen.take == ((0, 1.0, 1), (1, 0.75, 2))
    # BW: 1·0.6·2/2 = 0.6 on c0; 2·0.6·1/2 = 0.6 on c1, which already carries 0.9: SC = 1.5
    assert chosen.saturates and chosen.comm_slowdown == pytest.approx(1.5)
    assert chosen.te == pytest.approx(100 * (0.5 / 0.75 + 0.5 * 1.5))
    assert first_fit(nodes, sites, Demand(6)) is None


site_strategy = st.builds(
    lambda classes, capacity, load: Site(
        tuple(sorted(classes.items(), reverse=True)), capacity, load
    ),
    st.dictionaries(st.sampled_from([0.5, 0.75, 1.0, 1.5]), st.integers(0, 5), max_size=2),
    st.sampled_from([0.5, 1.0, 2.0, math.inf]),
    st.sampled_from([0.0, 0.3, 0.9, 1.2]),
)


@given(
    st.lists(site_strategy, min_size=1, max_size=3),
    st.integers(1, 8),
    st.sampled_from([0.0, 0.5, 1.0]),
    st.sampled_from([0.0, 0.2, 0.6]),
)
def test_best_agrees_with_brute_force(
    sites: list[Site], tasks: int, sigma: float, task_bw: float
) -> None:
    """Against every split of τ over the sites (each site's share on its fastest nodes): best
    saturates only if every split does, has the least time cost, and, when it need not saturate,
    then the fewest sites, then the least bandwidth."""
    demand = Demand(tasks, 100, sigma, task_bw)
    options = []
    for counts in itertools.product(*(range(min(s.slots, tasks) + 1) for s in sites)):
        if sum(counts) == tasks:
            take: list[tuple[int, float, int]] = []
            for k, count in enumerate(counts):
                for speed, free in sites[k].free:
                    n = min(free, count - sum(c for kk, _, c in take if kk == k))
                    if n > 0:
                        take.append((k, speed, n))
            allocation = predict(sites, demand, tuple(take))
            spans = sum(1 for c in counts if c) > 1
            options.append(
                (allocation.saturates, allocation.time_cost, spans, sum(allocation.bandwidth))
            )
    chosen = best(sites, demand)
    if not options:
        assert chosen is None
        return
    assert chosen is not None and sum(count for _, _, count in chosen.take) == tasks
    target = min(options)
    assert chosen.saturates == target[0]
    assert chosen.time_cost == pytest.approx(target[1])
    if not target[0]:  # tie-breaks among saturating splits are not searched exhaustively
        assert (len(chosen.sites) > 1) == target[2]
        assert sum(chosen.bandwidth) == pytest.approx(target[3])


# --- the policy in the engine ---------------------------------------------------------------------
# (tasks, Tb), all arriving at 0, σ = 1 and PTBW = 0: Te = Tb / slowest speed.
ORDER_JOBS = [(2, 60), (1, 30), (2, 90), (2, 15), (1, 120)]

# Starts by hand (best allocation; "cN" = the site taken, Te = Tb / speed):
# fcfs: 1 c0 0-60, 2 c1 0-40, 3 c2 0-180, 4 blocks (1 free) and 5 waits behind it;
#       at 40 job 4 takes c1 (40-60); at 60 job 5 takes c0 (60-180).
# sjf:  2 c0 0-30, 5 c0 0-120, 1 c1 0-80, 3 c2 0-180, 4 blocks; at 80 4 takes c1.
# bjf:  1 c0, 3 c1 (0-120), 4 c2 (0-30), 2 blocks; at 30 2 and 5 take c2.
# spt:  4 c0 0-15, 2 c1 0-40, 1 c2 0-120, 3 blocks; at 15 3 takes c0 and 5 the free c1 node.
# lpt:  5 c0 0-120, 3 c1 0-120, 1 c2 0-120, 2 the other c0 node 0-30, 4 blocks until 120.
# fpfs: 1 c0, 2 c1, 3 c2, 4 is passed over, 5 takes the other c1 node at 0; 4 starts at 60 on c0.
ORDER_STARTS = {
    QueueOrder.FCFS: [0, 0, 0, 40, 60],
    QueueOrder.SJF: [0, 0, 0, 80, 0],
    QueueOrder.BJF: [0, 30, 0, 0, 30],
    QueueOrder.SPT: [0, 0, 15, 0, 15],
    QueueOrder.LPT: [0, 0, 0, 120, 0],
    QueueOrder.FPFS: [0, 0, 0, 60, 0],
}


def bsp(
    tasks: int,
    base: float,
    sigma: float = 1.0,
    task_bw: float = 0.0,
    clusters: tuple[str, ...] = (),
) -> Request:
    communication = Communication(base, sigma, task_bw)
    return Request(tasks=tasks, time_limit=1000, communication=communication, clusters=clusters)


def run(spec: str, jobs: Sequence[tuple[float, Request]]) -> tuple[Engine, list[Job]]:
    engine = Engine(load_platform(OAS), spec)
    submitted = [
        engine.submit(
            request, request.communication.base_time if request.communication else 1, at=at
        )
        for at, request in jobs
    ]
    engine.run()
    return engine, submitted


@pytest.mark.parametrize("order", list(QueueOrder), ids=lambda order: order.value)
def test_queue_orders_start_jobs_when_worked_out_by_hand(order: QueueOrder) -> None:
    _, jobs = run(f"coalloc:order={order.value}", [(0, bsp(t, b)) for t, b in ORDER_JOBS])
    assert [job.start for job in jobs] == pytest.approx(ORDER_STARTS[order], abs=1e-9)
    assert all(job.state is JobState.COMPLETED for job in jobs)
    assert all(len(job.nodes) == job.request.tasks for job in jobs)


@given(
    st.sampled_from([QueueOrder.SJF, QueueOrder.BJF, QueueOrder.SPT, QueueOrder.LPT]),
    st.lists(
        st.tuples(
            st.lists(st.tuples(st.integers(1, 4), st.integers(1, 3)), max_size=4),  # arrivals
            st.sets(st.integers(0, 30)),  # ids of jobs that leave
        ),
        max_size=8,
    ),
)
def test_the_kept_ranking_equals_a_fresh_sort(
    order: QueueOrder, steps: list[tuple[list[tuple[int, int]], set[int]]]
) -> None:
    """The policy keeps its sorted queue between passes; it must match sorting afresh."""
    ranking = _Ranking(_RANK[order])
    queue: list[Job] = []
    next_id = 0
    for arrivals, leaving in steps:
        queue = [job for job in queue if job.id not in leaving]
        for tasks, base in arrivals:
            queue.append(Job(next_id, next_id // 3, bsp(tasks, base)))
            next_id += 1
        assert ranking.update(tuple(queue)) == ordered(queue, order)


class Decisions(Observer):
    def __init__(self) -> None:
        self.seen: list[Decision] = []

    def decided(self, policy: str, decision: Decision) -> None:
        self.seen.append(decision)


def test_explanations_and_the_blocked_head() -> None:
    engine = Engine(load_platform(OAS), "coalloc")
    decisions = Decisions()
    engine.observe(decisions)
    jobs = [engine.submit(bsp(t, b), b) for t, b in ORDER_JOBS]
    engine.run(until=0)
    assert [job.explanation for job in jobs[:3]] == [
        "single site c0: predicted Te 60 s",
        "single site c1: predicted Te 40 s",
        "single site c2: predicted Te 180 s",
    ]
    assert (jobs[3].reason, jobs[4].reason) == (Reason.RESOURCES, Reason.PRIORITY)
    assert jobs[3].explanation == "waits for 2 free cores (1 free on its sites)"
    assert [d for d in decisions.seen if isinstance(d, Explain)] == [
        Explain(jobs[3], Reason.RESOURCES, "waits for 2 free cores (1 free on its sites)")
    ]
    engine.run()
    assert jobs[3].start == pytest.approx(40)


def test_a_co_allocated_job_says_so_and_loads_the_links() -> None:
    # Four one-task jobs fill c0 and c1 (fastest first); those on c0n1 and c1n1 end at 10. The
    # τ = 2 job arriving then spreads over c0n1 + c1n1 (slowest 0.75: Te = 100·(0.8/0.75 + 0.2))
    # rather than take c2 (Te = 100·(0.8/0.5 + 0.2) = 180), and puts 1·0.6·1/1 = 0.6 on both links.
    workload = [(0, bsp(1, 500)), (0, bsp(1, 10)), (0, bsp(1, 375)), (0, bsp(1, 7.5))]
    engine, jobs = run("coalloc", [*workload, (10, bsp(2, 100, 0.8, 0.6))])
    names = [[engine.platform.nodes[n].name for n in job.nodes] for job in jobs]
    assert names == [["c0n0"], ["c0n1"], ["c1n0"], ["c1n1"], ["c0n1", "c1n1"]]
    spread = jobs[-1]
    assert spread.explanation == "co-allocated over 2 sites (c0+c1): predicted slowdown 1.27"
    assert spread.start == 10 and spread.end == pytest.approx(10 + 100 * (0.8 / 0.75 + 0.2))
    assert engine.network.history[0] == [(0.0, 0.0), (10.0, 0.6), (spread.end, 0.0)]
    assert engine.network.history[1] == [(0.0, 0.0), (10.0, 0.6), (spread.end, 0.0)]


def test_each_strategy_places_the_same_job_its_own_way() -> None:
    # As above, but only c1n1 frees at 10: c1n1, c2n0 and c2n1 are free for the τ = 2 job.
    # best: c2 alone and spreading over c1n1 + c2n0 both run at 0.5, so one site wins; single: c2;
    # firstfit: the first two free nodes in node order, c1n1 and c2n0.
    workload = [(0, bsp(1, 500)), (0, bsp(1, 500)), (0, bsp(1, 375)), (0, bsp(1, 7.5))]
    workload.append((10, bsp(2, 100, 0.8, 0.6)))
    placed = {}
    for strategy in Strategy:
        engine, jobs = run(f"coalloc:alloc={strategy.value}", workload)
        placed[strategy] = tuple(engine.platform.nodes[n].name for n in jobs[-1].nodes)
        assert jobs[-1].start == 10
        assert jobs[-1].end == pytest.approx(10 + 180)  # 100·(0.8/0.5 + 0.2), no saturation
    assert placed == {
        Strategy.BEST: ("c2n0", "c2n1"),
        Strategy.SINGLE: ("c2n0", "c2n1"),
        Strategy.FIRSTFIT: ("c1n1", "c2n0"),
    }


def test_single_waits_where_best_co_allocates() -> None:
    # Jobs 1-4 leave c0n1 and c1n1 free from 100 while c2 is busy until 200.
    workload = [(0, bsp(1, 100)), (0, bsp(1, 300)), (0, bsp(1, 225)), (0, bsp(1, 75))]
    workload += [(0, bsp(2, 100)), (100, bsp(2, 100, 0.8, 0.6))]
    _, best_jobs = run("coalloc:alloc=best", workload)
    _, single_jobs = run("coalloc:alloc=single", workload)
    _, firstfit_jobs = run("coalloc:alloc=firstfit", workload)
    assert best_jobs[-1].start == 100 and len({n // 2 for n in best_jobs[-1].nodes}) == 2
    assert single_jobs[-1].start == 200 and single_jobs[-1].nodes == (4, 5)
    assert firstfit_jobs[-1].start == 100


def test_a_job_uses_only_the_clusters_it_names() -> None:
    _, jobs = run("coalloc", [(0, bsp(2, 10, clusters=("c1", "c2")))])
    assert jobs[0].nodes == (2, 3)  # c1, not the faster c0
    _, jobs = run("coalloc", [(0, bsp(1, 10)), (0, bsp(2, 10, clusters=("c0", "c2")))])
    assert jobs[1].nodes == (4, 5)  # c0n1 + c2 runs no faster than c2 alone; c1 is not named


def test_a_job_without_communication_is_allocated_with_sigma_one() -> None:
    engine = Engine(load_platform(OAS), "coalloc:order=spt")
    long = engine.submit(Request(tasks=2, time_limit=300), 200)
    short = engine.submit(Request(tasks=2, time_limit=100), 50)
    engine.run()
    # SPT by time limit: the short one takes c0, the long one c1 (200 / 0.75)
    assert (short.nodes, long.nodes) == ((0, 1), (2, 3))
    assert short.explanation == "single site c0: predicted Te 100 s"
    assert long.end == pytest.approx(200 / 0.75)


def test_options_and_spec() -> None:
    spec = parse_spec("coalloc:order=sjf,alloc=single")
    assert spec.grid is not None and str(spec.local) == "fcfs"
    policy = build(spec.grid)
    assert isinstance(policy, CoAllocation)
    assert (policy.alloc, policy.order) == (Strategy.SINGLE, QueueOrder.SJF)
    default = build(parse_spec("coalloc").grid)  # type: ignore[arg-type]
    assert isinstance(default, CoAllocation)
    assert (default.alloc, default.order) == (Strategy.BEST, QueueOrder.FCFS)
    with pytest.raises(SpecError, match=r"one of: fcfs, sjf, bjf, spt, lpt, fpfs"):
        parse_spec("coalloc:order=random")
    with pytest.raises(SpecError, match=r"one of: best, single, firstfit"):
        parse_spec("coalloc:alloc=worst")


@pytest.mark.parametrize("strategy", list(Strategy), ids=lambda s: s.value)
def test_a_synthetic_workload_completes_the_same_way_twice(strategy: Strategy) -> None:
    platform = load_platform(platform_path("teaching-3sites"))
    runs = []
    for _ in range(2):
        jobs = list(bsp_jobs(300, platform.cores, max_tasks=24, seed=2))
        result = replay(jobs, platform, f"coalloc:alloc={strategy.value}", with_nodes=True)
        recorder = result.recorder
        assert len(recorder) == 300 and result.summary.failed == 0
        runs.append((list(recorder.start), list(recorder.end), recorder.nodes))
    assert runs[0] == runs[1]
    spans = [clusters for _, clusters in runs[0][2] or [] if "+" in clusters]
    if strategy is Strategy.SINGLE:
        assert not spans
    else:
        assert spans  # some jobs did span sites


# --- end to end: a CSV replay through the CLI -----------------------------------------------------
E2E_CSV = """job_id,submit,tasks,base_time,sigma,task_bw,time_limit
1,0,1,100,1,0,1000
2,0,1,300,1,0,1000
3,0,1,225,1,0,1000
4,0,1,75,1,0,1000
5,100,2,100,0,0.6,1000
6,100,2,100,0.8,0.6,1000
7,110,1,10,1,0,1000
"""

# By hand: 1-4 take c0n0, c0n1, c1n0 (225 / 0.75 = 300), c1n1 (75 / 0.75 = 100). At 100, c0n0,
# c1n1 and c2 are free. Job 5 (σ = 0) predicts Te = 100 on c2 and spread alike: one site wins.
# Job 6 (σ = 0.8) can only spread over c0n0 + c1n1: Te = 100·(0.8/0.75 + 0.2) = 126.67, 0.6 on
# both links. Job 7 arrives at 110 to a full platform and takes c2n0 when job 5 ends: 10 / 0.5.
E2E_JOBS = """job_id,submit,start,end,cluster,cores,state,nodes,clusters
1,0,0,100,c0,1,COMPLETED,c0n0,c0
2,0,0,300,c0,1,COMPLETED,c0n1,c0
3,0,0,300,c1,1,COMPLETED,c1n0,c1
4,0,0,100,c1,1,COMPLETED,c1n1,c1
5,100,100,200,c2,2,COMPLETED,c2n0 c2n1,c2
6,100,100,226.6666667,c0,2,COMPLETED,c0n0 c1n1,c0+c1
7,110,200,220,c2,1,COMPLETED,c2n0,c2
"""


def test_replay_of_a_bsp_csv_through_the_cli(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    csv = tmp_path / "small.csv"
    csv.write_text(E2E_CSV, encoding="utf-8")
    out = tmp_path / "out"
    code = main(["replay", str(csv), "--platform", str(OAS), "-s", "coalloc", "-o", str(out)])
    captured = capsys.readouterr()
    assert (code, captured.err) == (0, "")
    assert captured.out.splitlines()[0] == "small.csv under coalloc+fcfs on 6 cores"
    assert captured.out.splitlines()[-1] == f"wrote {out}/jobs.csv, summary.json"
    assert sorted(p.name for p in out.iterdir()) == ["jobs.csv", "summary.json"]
    assert (out / "jobs.csv").read_text(encoding="utf-8") == E2E_JOBS
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["trace"], summary["platform"], summary["cores"]) == (
        "small.csv",
        "oas-testbed",
        6,
    )
    assert (summary["makespan"], summary["jobs"], summary["failed"]) == (300.0, 7, 0)
    used = round(0.6 * (226.6666667 - 100) / 300, 6)
    link = {"capacity": 1.0, "mean_used": used, "peak_used": 0.6, "saturated_fraction": 0.0}
    assert summary["links"] == {"c0": link, "c1": link}


def test_a_bad_csv_row_is_reported_with_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    csv = tmp_path / "bad.csv"
    csv.write_text(E2E_CSV.replace("5,100,2,100,0,", "5,100,2,100,2,"), encoding="utf-8")
    code = main(
        ["replay", str(csv), "--platform", str(OAS), "-s", "coalloc", "-o", str(tmp_path / "o")]
    )
    assert code == 1
    assert capsys.readouterr().err == (
        f"batchlab: error: {csv}:6: sigma must be in [0, 1], got '2'\n"
    )
    assert not (tmp_path / "o").exists()


def test_a_csv_needs_a_platform(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    csv = tmp_path / "w.csv"
    csv.write_text(E2E_CSV, encoding="utf-8")
    assert main(["replay", str(csv), "-o", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err == (
        f"batchlab: error: {csv} is a CSV workload: give --platform FILE or --cores N\n"
    )
    # one cluster of N cores works too (no grid queue: the local policy places every job)
    assert main(["replay", str(csv), "--cores", "4", "-q", "-o", str(tmp_path / "o")]) == 0
    lines = (tmp_path / "o" / "jobs.csv").read_text(encoding="utf-8").splitlines()
    assert lines[1] == "1,0,0,100,cluster,1,COMPLETED,n001,cluster"
