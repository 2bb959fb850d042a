"""The batch choice by dynamic programming (Toporkov et al., ICCS 2011, eq. 1–3): equal to brute
force over every combination, both objectives, limits respected; T* and B* by hand."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvers.economic.batch import Goal, Option, budget_limit, choose, time_limit

# small integers: every sum is exact, so the DP and brute force see the same totals
options_strategy = st.lists(
    st.lists(
        st.builds(Option, st.integers(1, 60).map(float), st.integers(1, 300).map(float)),
        min_size=1,
        max_size=5,
    ),
    min_size=1,
    max_size=4,
)


def brute_force(options: list[list[Option]], goal: Goal, limit: float) -> float | None:
    best: float | None = None
    for combination in itertools.product(*options):
        time = sum(o.time for o in combination)
        cost = sum(o.cost for o in combination)
        used, value = (cost, time) if goal is Goal.MIN_TIME else (time, cost)
        if used > limit:
            continue
        if goal is Goal.MAX_COST:
            best = value if best is None else max(best, value)
        else:
            best = value if best is None else min(best, value)
    return best


@pytest.mark.parametrize("goal", list(Goal))
@given(options=options_strategy, fraction=st.floats(0.0, 1.2))
def test_the_backward_run_equals_brute_force(
    goal: Goal, options: list[list[Option]], fraction: float
) -> None:
    most = sum(max(o.cost if goal is Goal.MIN_TIME else o.time for o in job) for job in options)
    limit = math.floor(fraction * most)
    chosen = choose(options, goal, limit)
    expected = brute_force(options, goal, limit)
    if expected is None:
        assert chosen is None
        return
    assert chosen is not None
    picked = [job[pick] for job, pick in zip(options, chosen.picks, strict=True)]
    assert chosen.time == sum(o.time for o in picked)
    assert chosen.cost == sum(o.cost for o in picked)
    assert (chosen.cost if goal is Goal.MIN_TIME else chosen.time) <= limit
    assert (chosen.time if goal is Goal.MIN_TIME else chosen.cost) == expected


def test_time_limit_is_the_sum_of_each_jobs_mean_time() -> None:
    options = [[Option(10, 5), Option(20, 1)], [Option(7, 3)]]
    assert time_limit(options) == 15 + 7


def test_budget_is_the_richest_choice_within_the_time_limit_and_admits_it() -> None:
    options = [[Option(10, 50), Option(20, 10)], [Option(5, 40), Option(9, 30)]]
    limit = time_limit(options)  # 15 + 7 = 22
    budget = budget_limit(options, limit)
    assert budget == 90  # 10 + 5 = 15 ≤ 22 at cost 50 + 40; (20, 9) would take 29
    fastest = choose(options, Goal.MIN_TIME, budget)
    assert fastest is not None and (fastest.picks, fastest.time) == ((0, 0), 15)
    cheapest = choose(options, Goal.MIN_COST, limit)
    assert cheapest is not None and (cheapest.picks, cheapest.cost) == ((0, 1), 80)


def test_a_job_without_alternatives_leaves_no_choice() -> None:
    assert choose([[Option(1, 1)], []], Goal.MIN_COST, 100) is None
