"""The eight broker grid policies in the engine (Tchernykh et al. §2.2, §3; models.md §4.5):
routes by hand, §3.1's worst case for ML and MPL, counters kept as jobs come and go, the batch
option, sbatch -M's names, the rejection of a job too large for every site, explanations."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from emulator.api import Decision, Route
from emulator.api.registry import SpecError, parse_spec
from emulator.engine import Engine, Observer
from emulator.model.job import Job, JobState, Request
from emulator.model.platform import Platform
from solvers.brokers.platforms import sites_platform
from solvers.brokers.policy import Broker, Counters
from solvers.brokers.rules import Rule

BROKERS = ["ml", "ml-a", "mpl", "mpl-a", "mlb", "mlb-a", "mct", "mct-a"]


def submit(engine: Engine, at: float, cores: int, limit: float, runtime: float = -1.0) -> Job:
    return engine.submit(
        Request(tasks=cores, time_limit=limit), limit if runtime < 0 else runtime, at=at
    )


@pytest.mark.parametrize("name", BROKERS)
def test_every_broker_is_registered_over_lsf(name: str) -> None:
    spec = parse_spec(name)
    assert str(spec) == f"{name}+lsf"
    assert str(parse_spec(f"{name}+easy")) == f"{name}+easy"
    assert str(parse_spec(f"{name}:batch=30")) == f"{name}:batch=30+lsf"


def test_a_negative_batch_is_refused() -> None:
    with pytest.raises(SpecError, match="batch must be"):
        parse_spec("ml:batch=-1")


@pytest.mark.parametrize("name", ["ml", "mpl"])
def test_section_3_1_worst_case_makespan_is_r_times_e(name: str) -> None:
    """m sites of width 1; r rounds of m - 1 jobs (1, eps) then one (1, E), all at time 0:
    every long job lands on the last site, so the makespan is r E (the optimum is about
    ceil(r/m) E)."""
    m, rounds, eps, big = 4, 3, 1.0, 100.0
    engine = Engine(sites_platform([1] * m), name)
    for _ in range(rounds):
        for _ in range(m - 1):
            submit(engine, 0.0, 1, eps)
        submit(engine, 0.0, 1, big)
    engine.run()
    assert max(job.end for job in engine.jobs.values()) == rounds * big
    assert {job.cluster for job in engine.jobs.values() if job.time_limit == big} == {m - 1}


def test_ml_routes_round_robin_over_equal_sites_ties_to_the_first() -> None:
    engine = Engine(sites_platform([2, 2, 2]), "ml")
    jobs = [submit(engine, 0.0, 1, 10.0) for _ in range(5)]
    engine.run()
    assert [job.cluster for job in jobs] == [0, 1, 2, 0, 1]


def test_the_admissible_variant_chooses_among_the_admissible_sites_only() -> None:
    """Sites 4, 4, 1, 1 sorted 1, 1, 4, 4 (clusters 2, 3, 0, 1). A 2-core job's first is
    position 2; 4 processors of the 8 from there on is half: admissible = cluster 0 alone, while
    MPL alternates over clusters 0 and 1."""
    engine = Engine(sites_platform([4, 4, 1, 1]), "mpl-a")
    jobs = [submit(engine, 0.0, 2, 10.0) for _ in range(3)]
    engine.run()
    assert [job.cluster for job in jobs] == [0, 0, 0]
    plain = Engine(sites_platform([4, 4, 1, 1]), "mpl")
    jobs = [submit(plain, 0.0, 2, 10.0) for _ in range(3)]
    plain.run()
    assert [job.cluster for job in jobs] == [0, 1, 0]


def test_mlb_counts_the_remaining_work_of_running_jobs() -> None:
    """A (4 cores, 100 s) on s0 at 0; B (4, 50) at 80 goes to s1 (s0 still has 4 x 20 left);
    C at 95: s0 has 4 x 5 left, s1 4 x 35: C goes to s0 (by the work given at submission it
    would be 400 against 200, and s1)."""
    engine = Engine(sites_platform([4, 4]), "mlb")
    jobs = [submit(engine, 0.0, 4, 100.0), submit(engine, 80.0, 4, 50.0)]
    jobs.append(submit(engine, 95.0, 4, 10.0))
    engine.run()
    assert [job.cluster for job in jobs] == [0, 1, 0]
    assert jobs[2].explanation == "MLB: available s0..s1 (first s0); work/proc s0 5, s1 35 -> s0"


def test_a_job_too_large_for_every_site_is_rejected_saying_so() -> None:
    engine = Engine(sites_platform([2, 4], ["north", "east"]), "mct-a")
    job = submit(engine, 0.0, 5, 10.0)
    engine.run()
    assert job.state is JobState.FAILED
    assert job.explanation == (
        "MCT-a: job needs 5 cores, more than any site has (the largest, east, has 4)"
    )


def test_batch_routes_at_the_end_of_each_period() -> None:
    engine = Engine(sites_platform([2, 2]), "ml:batch=10")
    jobs = [submit(engine, t, 1, 5.0) for t in (0.0, 1.0, 3.0, 10.0, 12.0)]
    engine.run()
    # at 0 routed at once; 1, 3 and 10 together at 10 (the sites empty again: s0, s1, s0);
    # 12 at 20
    assert [job.start for job in jobs] == [0.0, 10.0, 10.0, 10.0, 20.0]
    assert [job.cluster for job in jobs] == [0, 0, 1, 0, 0]


def test_sbatch_m_names_restrict_the_candidates() -> None:
    engine = Engine(sites_platform([2, 2, 2], ["a", "b", "c"]), "ml")
    first = submit(engine, 0.0, 1, 10.0)
    job = engine.submit(Request(tasks=1, time_limit=10.0, clusters=("a", "c")), 10.0, at=0.0)
    engine.run()
    assert (first.cluster, job.cluster) == (0, 2)
    assert job.explanation == "ML: available a..c (first a), allowed a,c; jobs/proc a 0.5, c 0 -> c"


def test_mct_a_over_easy_is_allowed() -> None:
    engine = Engine(sites_platform([2, 4]), "mct-a+easy")
    jobs = [submit(engine, 0.0, 2, 10.0) for _ in range(3)]
    engine.run()
    assert all(job.state is JobState.COMPLETED for job in jobs)
    assert "MCT-a: admissible" in jobs[2].explanation


class CounterCheck(Observer):
    """At every route, the broker's counters equal what the sites hold, recounted."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.checked = 0

    def decided(self, policy: str, decision: Decision) -> None:
        if not isinstance(decision, Route):
            return
        broker = self.engine.grid_policy
        assert isinstance(broker, Broker)
        counters = broker._counters
        assert counters is not None and broker._sites is not None
        now = self.engine.now
        figures = counters.figures(now)
        for position, cluster in enumerate(broker._sites.order):
            state = self.engine.clusters[cluster]
            assert figures[position] == pytest.approx(recount(counters.rule, state, now))
        self.checked += 1


def recount(rule: Rule, state: object, now: float) -> float:
    queue: list[Job] = list(state.queue)  # type: ignore[attr-defined]
    running: list[Job] = list(state.running)  # type: ignore[attr-defined]
    if rule is Rule.ML:
        return float(len(queue) + len(running))
    if rule is Rule.MPL:
        return float(sum(job.cores for job in queue + running))
    return sum(job.cores * job.time_limit for job in queue) + sum(
        job.cores * (job.expected_end - now) for job in running
    )


@pytest.mark.parametrize("name", ["ml", "mpl-a", "mlb", "mlb-a"])
def test_counters_follow_arrivals_starts_ends_and_cancellations(name: str) -> None:
    rng = random.Random(5)
    engine = Engine(sites_platform([2, 4, 4, 8]), name)
    check = CounterCheck(engine)
    engine.observe(check)
    jobs = []
    for _ in range(300):
        limit = float(rng.randint(5, 60))
        runtime = limit if rng.random() < 0.5 else float(rng.randint(1, int(limit)))
        jobs.append(submit(engine, float(rng.randint(0, 400)), rng.randint(1, 8), limit, runtime))
    for moment in range(20, 400, 37):  # cancel some waiting jobs along the way
        engine.run(float(moment))
        waiting = [job for job in jobs if job.state is JobState.PENDING and job.cluster >= 0]
        for job in waiting[:2]:
            engine.cancel(job.id)
    engine.run()
    assert check.checked > 100
    counters = engine.grid_policy._counters  # type: ignore[union-attr]
    assert isinstance(counters, Counters)
    assert counters.held == {} and set(counters.waiting) == {0.0}


def test_mct_explanation_names_the_ects_from_now() -> None:
    engine = Engine(sites_platform([4, 4], ["north", "east"]), "mct-a")
    submit(engine, 0.0, 4, 3600.0)
    job = submit(engine, 0.0, 4, 3600.0)
    late = submit(engine, 0.0, 2, 600.0)
    engine.run()
    assert job.explanation == (
        "MCT-a: admissible north..north (first north, r north); ECT north 02:00:00 -> north"
    )
    assert math.isfinite(late.end)


@pytest.mark.parametrize("k", range(1, 6))
@pytest.mark.parametrize("name", ["mct", "mlb"])
def test_theorems_1_and_3_reach_the_harmonic_number(name: str, k: int) -> None:
    """§3.2 Theorem 1 (and §3.4 Theorem 3 for MLB): k + 1 groups, group i of 2^i sites of
    2^(k-i) processors, set i of (i + 1) 2^i jobs of that size and length 1/(i + 1), all at time
    0 in increasing size. The optimum is 1; MCT-LSF and MLB-LSF fill one layer per set, so the
    makespan is H_(k+1) = 1 + 1/2 + ... + 1/(k+1). (Lengths scaled by 60 x 7 x 8 to stay whole.)"""
    unit = 3360.0
    sizes = [2 ** (k - i) for i in range(k + 1) for _ in range(2**i)]
    engine = Engine(sites_platform(sizes), name)
    for i in range(k, -1, -1):
        for _ in range((i + 1) * 2**i):
            submit(engine, 0.0, 2 ** (k - i), unit / (i + 1))
    engine.run()
    makespan = max(job.end for job in engine.jobs.values())
    assert makespan == pytest.approx(unit * sum(1 / (j + 1) for j in range(k + 1)))


def test_an_m_naming_only_sites_outside_the_admissible_set_wins() -> None:
    """Sites 4, 4, 1, 1 sorted 1, 1, 4, 4: a 1-core job's admissible set is c, d, a (1 + 1 + 4
    reaches half of 10); -M b names the one site outside it, and the job goes there."""
    engine = Engine(sites_platform([4, 4, 1, 1], ["a", "b", "c", "d"]), "mpl-a")
    job = engine.submit(Request(tasks=1, time_limit=10.0, clusters=("b",)), 10.0, at=0.0)
    engine.run()
    assert job.cluster == 1 and job.state is JobState.COMPLETED
    assert job.explanation == (
        "MPL-a: admissible c..a (first c, r a), allowed b; cores/proc b 0 -> b"
    )


def test_a_time_limit_over_every_partition_is_rejected_saying_so() -> None:
    plain = sites_platform([2, 2])
    clusters = tuple(
        replace(c, partitions=(replace(c.partitions[0], max_time=60.0),)) for c in plain.clusters
    )
    engine = Engine(Platform(plain.name, clusters), "ml")
    job = submit(engine, 0.0, 1, 120.0)
    engine.run()
    assert job.state is JobState.FAILED
    assert job.explanation == (
        "ML: no site large enough admits it (its -M clusters, partition or time limit)"
    )
