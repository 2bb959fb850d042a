"""The ``alp`` and ``amp`` grid policies in the engine (issue 18, deliverables 3 and 4), on a
small priced platform whose schedules are worked out by hand.

The platform ``FAST_FIRST``: cluster ``fast``, nodes f1 and f2 (1 core each, speed 2, price 3
per core-second), then cluster ``cheap``, c1 and c2 (1 core, speed 1, price 1). A task of
limit 100 runs 50 on a fast node and costs 3 × 50 = 150 there, 1 × 100 = 100 on a cheap one.
"""

from __future__ import annotations

import math

import pytest

from emulator.engine import Engine
from emulator.model.cost import job_cost
from emulator.model.job import Economic, Job, JobState, Moldable, Reason, Request
from emulator.model.platform import Cluster, Node, Partition, Platform


def _platform(*clusters: tuple[str, float, float]) -> Platform:
    built, next_id = [], 0
    for index, (name, speed, price) in enumerate(clusters):
        nodes = tuple(
            Node(next_id + i, f"{name[0]}{i + 1}", index, i, 1, speed, price=price)
            for i in range(2)
        )
        next_id += 2
        built.append(Cluster(name, index, nodes, (Partition("batch", (0, 1), True),)))
    return Platform("priced", tuple(built))


FAST_FIRST = _platform(("fast", 2.0, 3.0), ("cheap", 1.0, 1.0))


def _run(
    spec: str,
    jobs: list[tuple[float, int, float, float, Economic | None]],
    until: float = math.inf,
) -> tuple[Engine, list[Job]]:
    """Submit ``(at, cores, limit, runtime, economic)`` jobs and run (to ``until``)."""
    engine = Engine(FAST_FIRST, spec)
    submitted = [
        engine.submit(Request(tasks=cores, time_limit=limit, economic=economic), runtime, at=at)
        for at, cores, limit, runtime, economic in jobs
    ]
    engine.run(until=until)
    return engine, submitted


def _names(job: Job, nodes: tuple[int, ...] | None = None) -> list[str]:
    return [FAST_FIRST.nodes[n].name for n in (job.nodes if nodes is None else nodes)]


FAST = Economic(min_speed=2.0)


@pytest.mark.parametrize("policy", ["alp", "amp"])
def test_the_second_job_waits_for_its_reserved_window_and_starts_there(policy: str) -> None:
    # both need the two fast nodes: A gets them at 0 (until 50), B is reserved at 50 on them
    jobs = [(0, 2, 100, 100, FAST), (0, 2, 100, 100, FAST)]
    _, (a, b) = _run(f"{policy}:cycle=0", jobs, until=1)
    assert (a.state, a.start, _names(a)) == (JobState.RUNNING, 0, ["f1", "f2"])
    assert (b.state, b.reason, b.planned_start) == (JobState.PENDING, Reason.RESOURCES, 50)
    assert _names(b, b.planned_nodes) == ["f1", "f2"]
    assert b.explanation == (
        f"{policy.upper()}: 2 slots on f[1-2] at 00:00:50, cost 300.0 "
        "(the only alternative, minimising time)"
    )
    _, (a, b) = _run(f"{policy}:cycle=0", jobs)
    assert (a.end, b.start, b.end, _names(b)) == (50, 50, 100, ["f1", "f2"])


@pytest.mark.parametrize("policy", ["alp", "amp"])
def test_a_job_ending_early_makes_the_policy_plan_again(policy: str) -> None:
    # A runs 40 of its 100 on speed 2: ends at 20, not 50; B, reserved at 50, starts at 20
    _, (a, b) = _run(f"{policy}:cycle=0", [(0, 2, 100, 40, FAST), (0, 2, 100, 100, FAST)])
    assert (a.end, b.start, _names(b)) == (20, 20, ["f1", "f2"])


def test_with_a_cycle_the_plan_is_made_again_at_the_next_cycle() -> None:
    # A ends at 20 as above; cycles at 0, 30, 60: B, reserved at 50, starts at 30
    _, (a, b) = _run("amp:cycle=30", [(0, 2, 100, 40, FAST), (0, 2, 100, 100, FAST)])
    assert (a.end, b.start, _names(b)) == (20, 30, ["f1", "f2"])


def test_alp_takes_only_slots_within_the_price_cap() -> None:
    _, (job,) = _run("alp:cycle=0", [(0, 1, 100, 100, Economic(price_cap=2.0))])
    assert (job.start, _names(job), job.end) == (0, ["c1"], 100)
    assert "cost 100.0 at most 2 per core-second each" in job.explanation


def test_amp_takes_the_cheapest_slot_of_the_window_within_the_budget() -> None:
    # the scan reaches f1 (150 > 120), f2 (cheapest of 2: 150), c1 (cheapest: 100 <= 120)
    _, (job,) = _run("amp:cycle=0", [(0, 1, 100, 100, Economic(budget=120.0))])
    assert (job.start, _names(job)) == (0, ["c1"])
    assert "cost 100.0 within budget 120.0" in job.explanation
    # without a budget the first slot is a window already
    _, (free,) = _run("amp:cycle=0", [(0, 1, 100, 100, None)])
    assert _names(free) == ["f1"]


def test_amp_budget_defaults_to_the_cap_times_length_times_slots() -> None:
    # S = 1.2 x 100 x 1 = 120: as the budget above
    _, (job,) = _run("amp:cycle=0", [(0, 1, 100, 100, Economic(price_cap=1.2))])
    assert _names(job) == ["c1"] and "within budget 120.0" in job.explanation


@pytest.mark.parametrize(
    ("policy", "economic", "text"),
    [
        ("alp", Economic(price_cap=0.5), "ALP: no 1 slots at most 0.5 per core-second each"),
        ("amp", Economic(budget=99.0), "AMP: no 1 slots within budget 99.0"),
        ("amp", Economic(min_speed=3.0), "AMP: no 1 slots of speed >= 3"),
    ],
)
def test_a_job_no_window_could_ever_hold_is_rejected(
    policy: str, economic: Economic, text: str
) -> None:
    _, (job,) = _run(f"{policy}:cycle=0", [(0, 1, 100, 100, economic)])
    assert job.state is JobState.FAILED
    assert job.explanation == f"{text} on the platform"


def test_the_explanation_counts_the_alternatives_of_the_multi_variant_search() -> None:
    # one core, limit 100, a horizon of 100 (the longest task on the slowest node): f1@0,
    # f2@0, c1@0, c2@0, then f1@50 and f2@50 (the cheap lanes are full to the horizon)
    _, (job,) = _run("amp:cycle=0", [(0, 1, 100, 100, None)])
    assert "best of 6 alternatives, minimising time" in job.explanation
    _, (job,) = _run("amp:cycle=0,rounds=2", [(0, 1, 100, 100, None)])
    assert "best of 2 alternatives" in job.explanation


def test_a_batch_waits_for_the_next_cycle() -> None:
    # cycles at 0, 60, 120...: a job arriving at 10 is planned at 60
    _, (first, second) = _run("amp:cycle=60", [(0, 1, 10, 10, None), (10, 1, 10, 10, None)])
    assert (first.start, second.start) == (0, 60)


def test_a_task_runs_its_length_over_its_node_speed_and_is_charged_for_it() -> None:
    # a window of f1 and c1 (min speed 1): the job runs 100 / 1 and is charged
    # 3 x 100 x 1/2 + 1 x 100 (each task its own run time: models.md §4.7)
    engine = Engine(FAST_FIRST, "amp:cycle=0")
    blocker = engine.submit(Request(tasks=1, time_limit=100), 100, at=0)  # takes f1 until 50
    job = engine.submit(Request(tasks=3, time_limit=100), 100, at=0)
    engine.run()
    assert _names(blocker) == ["f1"] and sorted(_names(job)) == ["c1", "c2", "f2"]
    assert job.end - job.start == 100
    assert job_cost(FAST_FIRST, job, job.end) == pytest.approx(3 * 50 + 100 + 100)


@pytest.mark.parametrize("option", ["cycle=-1", "rounds=-1"])
def test_bad_options_are_refused(option: str) -> None:
    with pytest.raises(ValueError, match=option.split("=")[0]):
        Engine(FAST_FIRST, f"amp:{option}")


def test_a_reserved_node_taken_out_of_service_makes_the_policy_plan_again() -> None:
    # B is reserved on f1 and f2 at 50; f2 is drained at 10: at 50 B cannot start there, the
    # policy plans again and finds no two fast cores (the reservation is withdrawn); f2 is
    # back at 60, which the grid policy sees at its next pass (C's arrival at 70): B starts
    engine = Engine(FAST_FIRST, "amp:cycle=0")
    a = engine.submit(Request(tasks=2, time_limit=100, economic=FAST), 100, at=0)
    b = engine.submit(Request(tasks=2, time_limit=100, economic=FAST), 100, at=0)
    engine.run(until=10)
    assert b.planned_start == 50
    engine.drain([1], "maintenance")
    engine.run(until=60)
    assert (a.end, b.state, b.reason) == (50, JobState.PENDING, Reason.RESOURCES)
    assert b.explanation == "AMP: no window of 2 slots of speed >= 2 yet"
    assert math.isnan(b.planned_start)
    engine.resume([1])
    engine.submit(Request(tasks=1, time_limit=10), 10, at=70)
    engine.run()
    assert (b.start, _names(b)) == (70, ["f1", "f2"])


def test_a_job_without_a_time_limit_is_rejected_and_the_others_run() -> None:
    _, (endless, job) = _run(
        "amp:cycle=0,rounds=0", [(0, 1, math.inf, 10, None), (0, 1, 10, 10, None)]
    )
    assert endless.state is JobState.FAILED
    assert endless.explanation == "AMP needs a time limit (the task length t of the paper)"
    assert (job.start, job.end) == (0, 5)


def test_a_moldable_job_is_rejected_not_started_short_of_its_bpus() -> None:
    engine = Engine(FAST_FIRST, "alp:cycle=0")
    job = engine.submit(Request(tasks=1, time_limit=10, moldable=Moldable(2.0)), 10, at=0)
    engine.run()
    assert job.state is JobState.FAILED
    assert job.explanation == "ALP does not mold jobs: a --bpu job is for the bpu scheduler"
