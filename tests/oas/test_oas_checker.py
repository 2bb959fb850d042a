"""The independent plan checker accepts a valid schedule and names every kind of violation.

Instance: BINDING (two 3-task jobs, Tb = 100, sigma = 0.9, PTBW = 700) on the 3 x 2 test bed,
η = 50, θ = 6. On c0, c0, c1 a job has SP = 4/3, ct = 1.3, Te = 130: 3 slots.
"""

from __future__ import annotations

import dataclasses

import pytest
from oas_cases import BINDING, problem

from solvers.oas.checker import check_plan
from solvers.oas.problem import JobPlacement, OasPlan

P = problem(*BINDING)
FIRST = JobPlacement(1, 0.0, 150.0, (0, 1, 2), 0, 3)
SECOND = JobPlacement(2, 150.0, 300.0, (0, 1, 2), 3, 6)


def plan(*placements: JobPlacement, makespan: float | None = None) -> OasPlan:
    return OasPlan(placements, max(p.end for p in placements) if makespan is None else makespan)


def only_error(found: list[str], fragment: str) -> None:
    assert found, "the checker found nothing"
    assert all(fragment in error for error in found), found


def test_a_valid_slotted_plan_passes() -> None:
    assert P.slot_size == 50.0 and P.slot_count == 6
    assert check_plan(P, plan(FIRST, SECOND)) == []


def test_a_valid_continuous_plan_passes() -> None:
    first = JobPlacement(1, 0.0, 130.0, (0, 1, 2))
    second = JobPlacement(2, 130.0, 260.0, (0, 1, 2))
    assert check_plan(P, plan(first, second)) == []


def test_two_coallocated_jobs_saturate_a_shared_link() -> None:
    # Job 2 on c1, c2, c2: SP = 2, ct = 1.9, Te = 190 -> 4 slots. Both jobs put 700 on link 1.
    second = JobPlacement(2, 0.0, 200.0, (3, 4, 5), 0, 4)
    errors = check_plan(P, plan(FIRST, second))
    only_error(errors, "link 1 saturated")
    assert "1400" in errors[0]


def test_a_resource_used_twice_at_once() -> None:
    second = dataclasses.replace(SECOND, start=100.0, end=250.0, start_slot=2, finish_slot=5)
    errors = check_plan(P, plan(FIRST, second))
    assert "resource 0: job 2 starts at 100 while job 1 runs until 150" in errors
    assert len([e for e in errors if e.startswith("resource")]) == 3


def test_a_job_shorter_than_its_execution_time() -> None:
    short = dataclasses.replace(FIRST, end=100.0, finish_slot=2)
    only_error(check_plan(P, plan(short, SECOND)), "Tb·ct = 130")


def test_wrong_resources() -> None:
    only_error(
        check_plan(P, plan(dataclasses.replace(FIRST, resources=(0, 1)), SECOND)), "needs τ = 3"
    )
    errors = check_plan(P, plan(dataclasses.replace(FIRST, resources=(0, 0, 1)), SECOND))
    assert any("listed twice" in e for e in errors), errors
    only_error(
        check_plan(P, plan(dataclasses.replace(FIRST, resources=(0, 1, 9)), SECOND)),
        "resource index 9",
    )


def test_slots_off_the_grid_or_past_theta() -> None:
    shifted = dataclasses.replace(FIRST, start=10.0)
    only_error(check_plan(P, plan(shifted, SECOND)), "not slot 0")
    late = dataclasses.replace(SECOND, start=200.0, end=350.0, start_slot=4, finish_slot=7)
    only_error(check_plan(P, plan(FIRST, late)), "θ = 6")
    half = dataclasses.replace(FIRST, finish_slot=None)
    only_error(check_plan(P, plan(half, SECOND)), "only one of")


def test_makespan_must_be_the_last_end() -> None:
    only_error(check_plan(P, plan(FIRST, SECOND, makespan=250.0)), "makespan 250")


def test_every_job_exactly_once() -> None:
    only_error(check_plan(P, plan(FIRST)), "job 2 is not placed")
    stranger = dataclasses.replace(SECOND, job_id=9)
    assert set(check_plan(P, plan(FIRST, stranger))) == {
        "job 9 is not in the problem",
        "job 2 is not placed",
    }
    twice = check_plan(P, plan(FIRST, SECOND, SECOND))
    assert "job 2 is placed 2 times" in twice


@pytest.mark.parametrize("start", [-1.0])
def test_no_start_before_time_zero(start: float) -> None:
    early = JobPlacement(1, start, 149.0, (0, 1, 2))
    only_error(check_plan(P, plan(early, SECOND)), "before time 0")
