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
        best = value if best is None else min(best, value)
    return best


def brute_force_budget(options: list[list[Option]], limit: float) -> float | None:
    best: float | None = None
    for first in options[0]:
        rest = brute_force(options[1:], Goal.MIN_COST, limit - first.time) if options[1:] else 0.0
        if rest is not None and first.time <= limit:
            best = first.cost + rest if best is None else max(best, first.cost + rest)
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


@given(options=options_strategy, fraction=st.floats(0.0, 1.2))
def test_the_budget_equals_brute_force(options: list[list[Option]], fraction: float) -> None:
    limit = math.floor(fraction * sum(max(o.time for o in job) for job in options))
    assert budget_limit(options, limit) == brute_force_budget(options, limit)


def test_time_limit_is_the_sum_of_each_jobs_mean_time() -> None:
    options = [[Option(10, 5), Option(20, 1)], [Option(7, 3)]]
    assert time_limit(options) == 15 + 7


def test_budget_maximises_over_the_first_jobs_choice_only_and_admits_it() -> None:
    options = [[Option(10, 50), Option(20, 10)], [Option(5, 40), Option(9, 30)]]
    limit = time_limit(options)  # 15 + 7 = 22
    budget = budget_limit(options, limit)
    # job 1's (10, 50) leaves 12: the rest's cheapest within it is (9, 30), income 80;
    # job 1's (20, 10) leaves 2: nothing fits. Eq. 3 maximises over job 1 only, so not the
    # (10, 50) + (5, 40) = 90 that maximising over every combination would give
    assert budget == 80
    fastest = choose(options, Goal.MIN_TIME, budget)
    assert fastest is not None and (fastest.picks, fastest.time) == ((0, 1), 19)
    cheapest = choose(options, Goal.MIN_COST, limit)
    assert cheapest is not None and (cheapest.picks, cheapest.cost) == ((0, 1), 80)


def test_a_job_without_alternatives_leaves_no_choice() -> None:
    assert choose([[Option(1, 1)], []], Goal.MIN_COST, 100) is None


@given(
    options=st.lists(
        st.lists(
            st.builds(Option, st.floats(0.1, 100.0), st.floats(0.1, 500.0)), min_size=1, max_size=4
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_time_limit_and_budget_always_admit_a_choice(options: list[list[Option]]) -> None:
    # real-valued times: T* must admit the fastest combination despite rounding, and B* the
    # combination it came from, or a counted cycle of the experiment would have no choice
    limit = time_limit(options)
    assert choose(options, Goal.MIN_COST, limit) is not None
    budget = budget_limit(options, limit)
    assert budget is not None
    assert choose(options, Goal.MIN_TIME, budget) is not None


def test_three_equal_alternatives_still_fit_their_mean() -> None:
    options = [[Option(0.1, 1.0)] * 3, [Option(0.7, 1.0)] * 3]
    assert choose(options, Goal.MIN_COST, time_limit(options)) is not None
