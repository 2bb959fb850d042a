"""The ``realloc`` grid policy in the engine (Caniou et al. §2.2; models.md §4.6): MCT placement,
the period, algorithm 1's threshold, algorithm 2's withdraw-and-resubmit in heuristic order,
speeds, explanations, option checks."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from emulator.api import Decision, Route, Wake, Withdraw
from emulator.api.registry import SpecError, parse_spec
from emulator.engine import Engine, Observer
from emulator.model.job import Job, Request
from emulator.model.platform import Platform
from solvers.brokers.platforms import sites_platform


class Decisions(Observer):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seen: list[tuple[float, str, Decision]] = []

    def decided(self, policy: str, decision: Decision) -> None:
        self.seen.append((self.engine.now, policy, decision))

    def routes(self) -> list[tuple[float, Route]]:
        return [(t, d) for t, _, d in self.seen if isinstance(d, Route)]

    def withdrawals(self) -> list[float]:
        return [t for t, _, d in self.seen if isinstance(d, Withdraw)]

    def wakes(self) -> list[float]:
        return [d.at for _, _, d in self.seen if isinstance(d, Wake)]


def submit(engine: Engine, cores: int, limit: float, runtime: float, at: float = 0.0) -> Job:
    return engine.submit(Request(tasks=cores, time_limit=limit), runtime, at=at)


def early_end(scheduler: str, platform: Platform | None = None) -> tuple[Engine, list[Job]]:
    """Two clusters of 2 cores. MCT places j1 (ends at 10, not 1000) and j3 on s0, j2 and j4
    on s1 (j4's ECT there 2000 against 2100 on s0). At 100, j4 would end at 1110 on s0."""
    engine = Engine(platform or sites_platform([2, 2]), scheduler)
    jobs = [
        submit(engine, 2, 1000, 10),
        submit(engine, 2, 1000, 1000),
        submit(engine, 2, 100, 100),
        submit(engine, 2, 1000, 1000),
    ]
    return engine, jobs


def test_without_reallocation_mct_places_the_jobs() -> None:
    engine, jobs = early_end("mct+fcfs")
    engine.run()
    assert [job.cluster for job in jobs] == [0, 1, 0, 1]
    assert jobs[3].end == 2000.0


@pytest.mark.parametrize("algo", [1, 2])
def test_a_job_moves_where_it_ends_earlier(algo: int) -> None:
    engine, jobs = early_end(f"realloc:algo={algo},period=100+fcfs")
    log = Decisions(engine)
    engine.observe(log)
    engine.run()
    assert [job.cluster for job in jobs] == [0, 1, 0, 0]
    assert jobs[3].moved_from == (1,)
    assert (jobs[3].start, jobs[3].end) == (110.0, 1110.0)
    assert engine.queues.reallocations == 1
    moves = [(t, d) for t, d in log.routes() if d.explanation.startswith("realloc")]
    assert len(moves) == 1 and moves[0][0] == 100.0
    assert moves[0][1].explanation == (
        f"realloc: moved from s1 (ECT 00:31:40) to s0 (ECT 00:16:50), algo {algo}, mct"
    )
    assert log.withdrawals() == ([100.0] if algo == 2 else [])
    assert engine.idle


def test_a_job_arriving_at_a_reallocation_is_placed_after_it() -> None:
    """j5 arrives at 100. Placed first, it would go to s0 (1110 against 3000) and then be
    resubmitted to s1 behind j4 (MinMin takes j4 first). Reallocated first, j4 goes to s0 and
    j5 is then placed on s1 (2000 against 2110)."""
    engine, jobs = early_end("realloc:algo=2,heuristic=minmin,period=100+cbf")
    late = submit(engine, 2, 1000, 1000, at=100)
    engine.run()
    assert (jobs[3].cluster, late.cluster) == (0, 1)
    assert jobs[3].moved_from == (1,)
    assert late.moved_from == ()


def test_algorithm_1_keeps_the_job_below_the_threshold() -> None:
    engine, jobs = early_end("realloc:period=100,threshold=890+fcfs")
    engine.run()
    assert jobs[3].cluster == 1 and jobs[3].moved_from == () and engine.queues.reallocations == 0
    engine, jobs = early_end("realloc:period=100,threshold=889+fcfs")
    engine.run()
    assert jobs[3].moved_from == (1,)


def test_the_first_reallocation_comes_one_period_after_the_first_submission() -> None:
    engine = Engine(sites_platform([2, 2]), "realloc:period=100+fcfs")
    log = Decisions(engine)
    engine.observe(log)
    submit(engine, 2, 1000, 1000, at=50)
    submit(engine, 2, 1000, 1000, at=50)
    submit(engine, 2, 1000, 1000, at=60)
    engine.run()
    wakes = log.wakes()
    assert wakes[0] == 150.0
    assert wakes == sorted(wakes) and all((at - 50) % 100 == 0 for at in wakes)
    # j3 waits on s0 until 1050; at 1050 j1 and j2 have ended and nothing moved: no more wake
    assert max(wakes) == 1050.0
    assert engine.idle


@pytest.mark.parametrize("local", ["fcfs", "cbf"])
@pytest.mark.parametrize("algo", [1, 2])
def test_jobs_stuck_on_a_drained_cluster_do_not_wake_it_forever(algo: int, local: str) -> None:
    """A job that fits s0 only when whole, s0 drained in part: its ECT is never, it stays, and
    with nothing running the policy stops waking (the run ends)."""
    engine = Engine(sites_platform([2, 2]), f"realloc:algo={algo},period=100+{local}")
    engine.drain([0], "maintenance")  # s0 keeps one core of two
    stuck = engine.submit(Request(tasks=2, time_limit=50, clusters=("s0",)), 50)
    engine.run(max_events=1000)
    assert engine.idle and stuck.cluster == 0 and math.isnan(stuck.start)


def single_site_queue(heuristic: str) -> list[Job]:
    """s0 (2 cores) alone takes the 2-core jobs; j1 runs to 1000, three wait (limits 500,
    100, 300). At 100, algorithm 2 withdraws them and resubmits them in heuristic order."""
    engine = Engine(sites_platform([2, 1]), f"realloc:algo=2,heuristic={heuristic},period=100")
    jobs = [submit(engine, 2, limit, limit) for limit in (1000, 500, 100, 300)]
    engine.run()
    assert engine.queues.reallocations == 0  # back to the same cluster: resubmissions
    return jobs


def test_algorithm_2_resubmits_in_minmin_order() -> None:
    # ECTs behind the running job: 1500, 1100, 1300 -> j3; then 1600, 1400 -> j4; then j2
    jobs = single_site_queue("minmin")
    assert [job.end for job in jobs] == [1000.0, 1900.0, 1100.0, 1400.0]


def test_algorithm_2_resubmits_in_maxmin_order() -> None:
    jobs = single_site_queue("maxmin")  # j2 (1500), then j4 (1800 vs 1600), then j3
    assert [job.end for job in jobs] == [1000.0, 1500.0, 1900.0, 1800.0]


def test_on_a_faster_cluster_the_limit_and_the_run_time_shrink() -> None:
    """s1 twice as fast: ECTs there count half the limits, and jobs run half as long. j1 (ECT
    500 on s1 against 1000) ends at 5; j2 ties (1000 on both) and takes s0; j3 (550 against
    1100) and j4 (1050 against 2000) follow j1 on s1."""
    platform = sites_platform([2, 2])
    fast = platform.clusters[1]
    nodes = tuple(replace(node, speed=2.0) for node in fast.nodes)
    platform = Platform(platform.name, (platform.clusters[0], replace(fast, nodes=nodes)))
    engine, jobs = early_end("realloc:period=100+fcfs", platform)
    engine.run()
    assert [job.cluster for job in jobs] == [1, 0, 1, 1]
    assert [job.end for job in jobs] == [5.0, 1000.0, 55.0, 555.0]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("realloc:algo=3", "algo must be 1"),
        ("realloc:heuristic=best", "one of: mct, minmin"),
        ("realloc:threshold=-1", "threshold must be"),
        ("realloc:period=0", "period must be"),
        ("realloc+easy", "runs over local fcfs or cbf, not 'easy'"),
        ("realloc:algo=2+lsf", "runs over local fcfs or cbf, not 'lsf'"),
    ],
)
def test_bad_options_are_refused(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec(spec)


def test_the_spec_names_the_local_policy() -> None:
    assert str(parse_spec("realloc")) == "realloc+fcfs"
    assert str(parse_spec("realloc:algo=2,heuristic=minmin+cbf")) == (
        "realloc:algo=2,heuristic=minmin+cbf"
    )


@pytest.mark.parametrize("local", ["fcfs", "cbf"])
def test_algorithm_2_withdraws_and_resubmits_every_waiting_job(local: str) -> None:
    """j1 and j2 hold s0 and s1 until 1000; j3, j4, j5 wait, on both clusters. At every
    hourly instant before 1000 (here every 100 s) algorithm 2 withdraws all three, never a
    running job, and routes each of them again in the same instant."""
    engine = Engine(sites_platform([2, 2]), f"realloc:algo=2,period=100+{local}")
    log = Decisions(engine)
    engine.observe(log)
    running = [submit(engine, 2, 1000, 1000) for _ in range(2)]
    waiting = [submit(engine, 2, limit, limit) for limit in (300, 300, 200)]
    engine.run()
    assert {job.cluster for job in running} == {0, 1}
    assert len({job.cluster for job in waiting}) == 2  # they waited on both clusters
    expected = sorted(job.id for job in waiting)
    for at in range(100, 1000, 100):
        withdrawn = [d.job.id for t, _, d in log.seen if t == at and isinstance(d, Withdraw)]
        routed = [d.job.id for t, d in log.routes() if t == at]
        assert sorted(withdrawn) == expected, at
        assert sorted(routed) == expected, at
    assert all(job.start >= 1000.0 for job in waiting)
