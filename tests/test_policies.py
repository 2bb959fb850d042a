"""Local policies on small hand-checked schedules."""

from __future__ import annotations

import math
import random

import pytest

from emulator.api import Reserve
from emulator.engine import Engine, Observer
from emulator.model.job import JobState, Reason, Request
from emulator.model.platform import Platform
from solvers.local.easy import shadow_and_extra
from tests.helpers import run_jobs, starts

# (submit, cores, limit, runtime) on 4 cores: job 2 needs the whole machine, job 3 is short.
SMALL = [(0, 2, 10, 10), (0, 4, 10, 5), (1, 2, 5, 3), (2, 1, 100, 50)]


def test_fcfs_never_lets_a_job_overtake_the_head() -> None:
    _, jobs = run_jobs("fcfs", 4, SMALL)
    assert starts(jobs) == [0, 10, 15, 15]
    assert [job.end for job in jobs] == [10, 15, 18, 65]


def test_easy_backfills_a_job_that_ends_before_the_shadow_time() -> None:
    _, jobs = run_jobs("easy", 4, SMALL)
    # job 3 (2 cores, limit 5) fits at t=1 and ends by t=6 <= shadow 10: backfilled.
    # job 4 (1 core, limit 100) would end after the shadow and there are no extra cores.
    assert starts(jobs) == [0, 10, 1, 15]


def test_shadow_and_extra_count_every_job_ending_by_the_shadow_time() -> None:
    # 2 free; ends at 10 (+2 -> 4), 20 (+3 -> 7 >= 6: shadow), 20 again (+1 -> 8), 30 (not counted)
    ends = [(10.0, 1, 2), (20.0, 2, 3), (20.0, 3, 1), (30.0, 4, 4)]  # (expected end, id, cores)
    assert shadow_and_extra(2, 6, ends) == (20, 2)
    assert shadow_and_extra(4, 6, []) == (math.inf, 0)
    assert shadow_and_extra(0, 11, [(5.0, 1, 10)]) == (math.inf, 0)
    assert shadow_and_extra(1, 3, [(5.0, 1, 2), (5.0, 2, 4)]) == (5, 4)


# 10 cores. A and B run; C (8 cores) is the blocked head with shadow 100 and 2 extra cores.
EASY_CASE = [
    (0, 4, 100, 100),  # A
    (0, 2, 50, 50),  # B
    (1, 8, 10, 10),  # C: head, reserved at 100
    (2, 2, 500, 500),  # D: ends after the shadow but fits the 2 extra cores -> backfilled at 2
    (3, 1, 500, 500),  # E: ends after the shadow, no extra left -> waits
    (4, 2, 90, 90),  # F: ends at 94 <= 100 -> backfilled at 4
]


def test_easy_shadow_and_extra_rule_in_the_engine() -> None:
    _, jobs = run_jobs("easy", 10, EASY_CASE)
    assert starts(jobs) == [0, 0, 100, 2, 110, 4]
    head = jobs[2]
    assert head.start == head.planned_start == 100  # the head was never delayed


def test_easy_explains_the_head_and_marks_others_priority() -> None:
    engine = Engine(Platform.single_cluster(10), "easy")
    for at, size, limit, runtime in EASY_CASE:
        engine.submit(Request(tasks=size, time_limit=limit), runtime, at=at)
    engine.run(until=5)
    head, waiting = engine.jobs[3], engine.jobs[5]
    assert head.reason is Reason.RESOURCES and head.planned_start == 100
    assert waiting.state is JobState.PENDING and waiting.reason is Reason.PRIORITY


# A runs; B (8 cores) is the head; C needs 9 cores; D (2 cores, long) arrives last.
CBF_CASE = [(0, 6, 10, 10), (1, 8, 10, 10), (2, 9, 10, 10), (3, 2, 1000, 1000)]


def test_easy_may_delay_the_second_job_but_cbf_may_not() -> None:
    _, easy = run_jobs("easy", 10, CBF_CASE)
    assert starts(easy) == [0, 10, 1003, 3]  # D took EASY's extra cores and delayed C
    _, cbf = run_jobs("cbf", 10, CBF_CASE)
    assert starts(cbf) == [0, 10, 20, 30]  # D waits for the hole after C's reservation


def test_cbf_compresses_the_plan_when_a_job_ends_early() -> None:
    _, jobs = run_jobs("cbf", 10, [(0, 10, 100, 20), (1, 10, 10, 10), (2, 5, 10, 10)])
    assert starts(jobs) == [0, 20, 30]  # reserved at 100 and 110, moved up when A ended at 20


class FirstReservations(Observer):
    def __init__(self) -> None:
        self.first: dict[int, float] = {}

    def decided(self, policy: str, decision: object) -> None:
        if isinstance(decision, Reserve):
            self.first.setdefault(decision.job.id, decision.start)


@pytest.mark.parametrize("seed", range(8))
def test_cbf_never_starts_a_job_after_its_first_reservation(seed: int) -> None:
    rng = random.Random(seed)
    engine = Engine(Platform.single_cluster(16), "cbf")
    reservations = FirstReservations()
    engine.observe(reservations)
    jobs = []
    at = 0.0
    for _ in range(150):
        at += rng.expovariate(1 / 20)
        limit = rng.choice([30, 60, 120, 600])
        runtime = rng.uniform(1, limit)
        jobs.append(
            engine.submit(Request(tasks=rng.randint(1, 16), time_limit=limit), runtime, at=at)
        )
    engine.run()
    assert reservations.first, "the workload must make some jobs wait"
    for job in jobs:
        assert job.state is JobState.COMPLETED
        promised = reservations.first.get(job.id, job.submit)
        assert job.start <= promised + 1e-9, (job.id, job.start, promised)


def test_lsf_starts_the_largest_job_that_fits_first() -> None:
    _, jobs = run_jobs("lsf", 4, [(0, 1, 10, 10), (0, 3, 10, 10), (0, 2, 10, 10), (0, 4, 10, 10)])
    assert starts(jobs) == [10, 10, 20, 0]


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "cbf", "lsf"])
def test_policies_never_oversubscribe_and_cut_jobs_at_their_limit(scheduler: str) -> None:
    rng = random.Random(7)
    spec = []
    for i in range(200):
        limit = rng.choice([10, 50, 100])
        spec.append((i * 3.0, rng.randint(1, 8), limit, rng.uniform(1, limit * 1.2)))
    _, jobs = run_jobs(scheduler, 8, spec)
    events = sorted([(j.start, j.cores) for j in jobs] + [(j.end, -j.cores) for j in jobs])
    busy = 0
    for _, delta in events:  # ends sort before starts at the same time (negative deltas first)
        busy += delta
        assert busy <= 8
    for job, (_, _, limit, runtime) in zip(jobs, spec, strict=True):
        assert job.start >= job.submit
        assert job.end - job.start == pytest.approx(min(limit, runtime))
        assert job.state is (JobState.TIMEOUT if runtime > limit else JobState.COMPLETED)


@pytest.mark.parametrize(
    ("scheduler", "expected"),
    [("fcfs", (30, 40)), ("cbf", (10, 20))],
)
def test_planning_query(scheduler: str, expected: tuple[float, float]) -> None:
    # 4 cores: A (4 cores) runs to 10; B (2 cores) and C (4 cores) wait. A 2-core probe goes after C
    # under FCFS (nothing overtakes), but into the hole beside B under CBF.
    engine = Engine(Platform.single_cluster(4), scheduler)
    engine.submit(Request(tasks=4, time_limit=10), 10, at=0)
    engine.submit(Request(tasks=2, time_limit=10), 10, at=0)
    engine.submit(Request(tasks=4, time_limit=10), 10, at=0)
    engine.run(until=1)
    probe = engine.submit(Request(tasks=2, time_limit=10), 10, at=50)
    estimate = engine.estimate(probe, 0)
    assert (estimate.start, estimate.end) == expected
