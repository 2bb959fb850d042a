"""Estimates checked against an oracle that really submits the job: the same workload is replayed
with the job added at the estimate's instant, and the job's actual start is read (models.md §4.1:
every local policy answers "when would it start and end if submitted now?"; issue 16 item 2).

Jobs run exactly their time limit, and nothing arrives after the instant asked about, so an exact
estimate is the replay's start to the second: fcfs, easy, cbf and lsf must all be exact. The
instant is half a second after the last arrival (times are whole seconds otherwise), so the probe
does not join a pass that other jobs' arrivals or ends make at the same instant.
"""

from __future__ import annotations

import random

import pytest

from emulator.engine import Engine
from emulator.model.job import Job, Request
from emulator.model.platform import Platform
from solvers.brokers.platforms import sites_platform

LOCAL = ["fcfs", "easy", "cbf", "lsf"]
CORES = 8
Workload = list[tuple[float, int, float]]  # (submit, cores, limit = runtime)


def workload(seed: int) -> Workload:
    rng = random.Random(seed)
    return sorted(
        (float(rng.randrange(0, 40)), rng.randint(1, CORES), float(rng.randrange(5, 60)))
        for _ in range(rng.randint(3, 14))
    )


def replay(scheduler: str, jobs: Workload, until: float) -> tuple[Engine, list[Job]]:
    engine = Engine(Platform.single_cluster(CORES), scheduler)
    submitted = [
        engine.submit(Request(tasks=cores, time_limit=limit), limit, at=at)
        for at, cores, limit in jobs
    ]
    engine.run(until)
    return engine, submitted


SEEDS = range(40)


@pytest.mark.parametrize("scheduler", LOCAL)
def test_a_new_job_starts_when_estimated(scheduler: str) -> None:
    for seed in SEEDS:
        jobs = workload(seed)
        now = jobs[-1][0] + 0.5
        rng = random.Random(1000 + seed)
        cores, limit = rng.randint(1, CORES), float(rng.randrange(5, 60))
        engine, _ = replay(scheduler, jobs, now)
        probe = Job(10_000, now, Request(tasks=cores, time_limit=limit))
        estimate = engine.estimate(probe, 0)
        oracle, _ = replay(scheduler, [*jobs, (now, cores, limit)], now)
        oracle.run()
        actual = max(oracle.jobs.values(), key=lambda job: job.id)
        assert (estimate.start, estimate.end) == (actual.start, actual.end), (seed, jobs)


@pytest.mark.parametrize("scheduler", LOCAL)
def test_a_waiting_job_is_estimated_where_it_stands(scheduler: str) -> None:
    checked = 0
    for seed in SEEDS:
        jobs = workload(seed)
        engine, submitted = replay(scheduler, jobs, jobs[-1][0])
        waiting = [job for job in submitted if job.state.name == "PENDING"]
        estimates = engine.estimates(waiting, 0)
        engine.run()
        for job, estimate in zip(waiting, estimates, strict=True):
            assert estimate.start == job.start, (seed, job.id, jobs)
            checked += 1
    assert checked > 20  # the workloads do queue jobs


@pytest.mark.parametrize("scheduler", LOCAL)
def test_the_batch_form_answers_as_the_single_one(scheduler: str) -> None:
    jobs = workload(7)
    engine, submitted = replay(scheduler, jobs, jobs[-1][0])
    probes = [Job(10_000 + c, jobs[-1][0], Request(tasks=c, time_limit=30.0)) for c in (1, 4, 8)]
    asked = [*probes, *submitted]
    assert engine.estimates(asked, 0) == [engine.estimate(job, 0) for job in asked]


def test_lsf_estimate_is_its_list_schedule_not_the_queue_order_plan() -> None:
    """8 cores busy until 10; a 2-core job waits. A new 8-core job goes ahead of it in LSF's
    order: it starts at 10 and ends at 20 (a queue-order plan would say 20 to 30)."""
    engine, _ = replay("lsf", [(0.0, 8, 10.0), (1.0, 2, 10.0)], 1.5)
    probe = Job(99, 1.5, Request(tasks=8, time_limit=10.0))
    estimate = engine.estimate(probe, 0)
    assert (estimate.start, estimate.end) == (10.0, 20.0)


def test_estimates_in_one_pass_see_the_routes_made_before() -> None:
    """CBF under MCT on two 4-core sites. At t = 0 a short job on each site gives CBF a kept
    plan; at t = 10 three 4-core jobs (limit 50) arrive together. MCT routes the first to s0
    (ECT 60 on both: the tie goes to s0), the second sees it there (110 against 60: s1) and the
    third sees both routes (110 on both: s0). A plan kept from before the pass would send all
    three to s0."""
    engine = Engine(sites_platform([4, 4]), "mct+cbf")
    for _ in range(2):
        engine.submit(Request(tasks=4, time_limit=5.0), 5.0, at=0.0)
    engine.run(9.0)
    jobs = [engine.submit(Request(tasks=4, time_limit=50.0), 50.0, at=10.0) for _ in range(3)]
    engine.run()
    assert [job.cluster for job in jobs] == [0, 1, 0]
    assert [job.end for job in jobs] == [60.0, 60.0, 110.0]
    assert jobs[2].explanation == (
        "MCT: available s0..s1 (first s0); ECT s0 00:01:40, s1 00:01:40 -> s0"
    )


def test_the_cluster_version_grows_with_each_change_and_only_then() -> None:
    engine = Engine(Platform.single_cluster(4), "lsf")
    state = engine.clusters[0]
    versions = [state.version]
    job = engine.submit(Request(tasks=4, time_limit=10.0), 10.0, at=1.0)
    engine.submit(Request(tasks=2, time_limit=10.0), 10.0, at=2.0)
    engine.run(1.0)  # queued and started
    versions.append(state.version)
    engine.estimate(Job(50, 1.0, Request(tasks=1, time_limit=5.0)), 0)
    assert state.version == versions[-1]  # asking changes nothing
    engine.run(2.0)  # the second one queued, waiting
    versions.append(state.version)
    engine.run(10.5)
    versions.append(state.version)  # unchanged: nothing happened since
    engine.run()  # the first ends, the second starts and ends
    versions.append(state.version)
    assert versions == sorted(versions)
    assert versions[0] < versions[1] < versions[2] == versions[3] < versions[4]
    assert job.end == 11.0
