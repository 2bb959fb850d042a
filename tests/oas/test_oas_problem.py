"""OasProblem validation and its defaults (η = 50 % of the mean base time, θ from heuristics)."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
from oas_cases import EIGHT, GIGABIT, THREE, paper_testbed, problem

from solvers.common.orders import QueueOrder
from solvers.oas.heuristics import list_schedule
from solvers.oas.problem import (
    OasJob,
    OasProblem,
    OasResource,
    default_slot_count,
    default_slot_size,
)


def make(**changes: object) -> OasProblem:
    fields: dict[str, object] = {
        "resources": paper_testbed(),
        "link_capacity": (GIGABIT,) * 3,
        "jobs": THREE,
        "slot_size": 50.0,
        "slot_count": 10,
    }
    fields.update(changes)
    return OasProblem(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"resources": ()}, "at least one resource"),
        ({"link_capacity": ()}, "one link capacity per cluster"),
        ({"link_capacity": (GIGABIT, -1.0, GIGABIT)}, "must be >= 0"),
        ({"link_capacity": (GIGABIT, math.nan, GIGABIT)}, "must be >= 0"),
        ({"link_capacity": (GIGABIT, GIGABIT)}, "only 2 link capacities"),
        ({"resources": (OasResource("fast", 0, 1.5),)}, "speed Γ = 1.5"),
        ({"resources": (OasResource("dead", 0, 0.0),)}, "must be in (0, 1]"),
        ({"jobs": ()}, "at least one job"),
        ({"jobs": (OasJob(1, 1, 10.0), OasJob(1, 2, 10.0))}, "unique"),
        ({"jobs": (OasJob(1, 7, 10.0),)}, "asks for 7 tasks"),
        ({"jobs": (OasJob(1, 0, 10.0),)}, "asks for 0 tasks"),
        ({"jobs": (OasJob(1, 1, 0.0),)}, "base time"),
        ({"jobs": (OasJob(1, 1, 10.0, 1.5),)}, "sigma = 1.5"),
        ({"jobs": (OasJob(1, 1, 10.0, 1.0, -5.0),)}, "per-task bandwidth"),
        ({"slot_size": 0.0}, "slot size"),
        ({"slot_count": 0}, "slot count"),
    ],
)
def test_invalid_problems_say_what_is_wrong(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make(**changes)


def test_sequences_become_tuples_and_problems_are_frozen() -> None:
    p = make(jobs=list(THREE), link_capacity=[GIGABIT] * 3)
    assert isinstance(p.jobs, tuple) and isinstance(p.link_capacity, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.slot_count = 3  # type: ignore[misc]


def test_infinite_links_are_allowed() -> None:
    assert make(link_capacity=(math.inf,) * 3).link_capacity[0] == math.inf


def test_default_slot_size_is_half_the_mean_base_time() -> None:
    assert default_slot_size(THREE) == pytest.approx(0.5 * (100 + 80 + 150) / 3)


def test_default_slot_count_is_the_best_slotted_heuristic_makespan() -> None:
    p = problem(*EIGHT)
    slotted = [list_schedule(p, order, slotted=True) for order in QueueOrder]
    best = min(plan.makespan for plan in slotted) / p.slot_size
    assert p.slot_count == default_slot_count(p) == round(best)
    assert p.slot_size == pytest.approx(default_slot_size(EIGHT))


def test_explicit_slot_values_are_kept() -> None:
    p = OasProblem.create(paper_testbed(), [GIGABIT] * 3, THREE, slot_size=20.0, slot_count=40)
    assert (p.slot_size, p.slot_count) == (20.0, 40)
    with pytest.raises(ValueError, match="slot count"):
        OasProblem.create(paper_testbed(), [GIGABIT] * 3, THREE, slot_count=0)
