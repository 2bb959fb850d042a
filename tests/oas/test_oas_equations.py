"""Eq. 1-7 of the OAS paper, worked by hand, as the checker computes them; and the timing rule
that the models share (OasJob) agrees with the checker's independent restatement."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvers.oas.checker import (
    communication_slowdown,
    execution_time,
    link_bandwidth,
    processing_slowdown,
    saturation,
    time_cost,
)
from solvers.oas.problem import OasJob


def test_eq3_slowest_resource_sets_the_pace() -> None:
    assert processing_slowdown([1.0, 0.75, 0.5]) == 2.0
    assert processing_slowdown([1.0, 0.75]) == pytest.approx(4 / 3)
    assert processing_slowdown([1.0]) == 1.0


def test_eq4_bandwidth_of_a_split_job() -> None:
    # τ = 4, PTBW = 100: 2 tasks here talk to the 2 elsewhere, 2 · 100 · 2/3.
    assert link_bandwidth(4, 2, 100.0) == pytest.approx(400 / 3)
    assert link_bandwidth(4, 1, 100.0) == pytest.approx(100.0)  # 1 · 100 · 3/3
    assert link_bandwidth(4, 3, 100.0) == pytest.approx(100.0)  # 3 · 100 · 1/3
    assert link_bandwidth(4, 4, 100.0) == 0.0  # all tasks in this cluster
    assert link_bandwidth(4, 0, 100.0) == 0.0  # none here
    assert link_bandwidth(1, 1, 100.0) == 0.0  # a one-task job sends nothing


def test_eq5_to_7_saturation_and_communication_slowdown() -> None:
    assert saturation(1000.0, [600.0, 600.0]) == pytest.approx(1000 / 1200)
    assert saturation(1000.0, []) == math.inf
    # SC_j^k = 1 / SAT^k when saturated; SC_j is the worst link j uses.
    assert communication_slowdown([1000 / 1200, 2.0]) == pytest.approx(1.2)
    assert communication_slowdown([1.5, 3.0]) == 1.0
    assert communication_slowdown([]) == 1.0


def test_eq1_2_worked_example() -> None:
    """τ = 4 on c0 (Γ = 1.0) x 2 and c1 (Γ = 0.75) x 2, sigma = 0.5, PTBW = 300, Tb = 100.

    Link 0 already carries 800 of another job: 800 + 400 > 1000, SAT = 1000/1200, SC = 1.2.
    ct = 0.5 · 4/3 + 0.5 · 1.2 = 19/15, Te = 100 · 19/15.
    """
    sp = processing_slowdown([1.0, 1.0, 0.75, 0.75])
    bw = link_bandwidth(4, 2, 300.0)
    assert bw == pytest.approx(400.0)
    sc = communication_slowdown([saturation(1000.0, [800.0, bw]), saturation(1000.0, [bw])])
    assert sc == pytest.approx(1.2)
    assert execution_time(100.0, time_cost(0.5, sp, sc)) == pytest.approx(100 * 19 / 15)
    # Without saturation (what the MIP allows) only SP counts: ct = 0.5 · 4/3 + 0.5.
    assert time_cost(0.5, sp) == pytest.approx(7 / 6)


def test_slots_needed_rounds_up_but_ignores_float_noise() -> None:
    job = OasJob(1, 3, 100.0, 0.9)
    assert job.slots_needed(4 / 3, 50.0) == 3  # Te = 130 -> 2.6 slots -> 3
    assert OasJob(2, 1, 100.0).slots_needed(2.0, 50.0) == 4  # exactly 4
    noisy = OasJob(3, 1, 0.1 + 0.2)  # 0.30000000000000004 / 0.1 = 3.0000000000000004
    assert noisy.slots_needed(1.0, 0.1) == 3


@given(
    tasks=st.integers(1, 64),
    here=st.integers(0, 64),
    task_bw=st.floats(0, 1e4),
    sigma=st.floats(0, 1),
    speeds=st.lists(st.floats(0.05, 1.0), min_size=1, max_size=8),
)
def test_model_timing_rule_matches_the_checker(
    tasks: int, here: int, task_bw: float, sigma: float, speeds: list[float]
) -> None:
    here = min(here, tasks)
    job = OasJob(1, tasks, 100.0, sigma, task_bw)
    assert job.link_bandwidth(here) == pytest.approx(link_bandwidth(tasks, here, task_bw))
    slowdown = max(1 / s for s in speeds)
    expected = execution_time(100.0, time_cost(sigma, processing_slowdown(speeds)))
    assert job.run_time(slowdown) == pytest.approx(expected)
