"""Availability profiles (emulator/api/profile.py) on hand-computed step functions.

Steps are written as ``[(time, free cores), ...]``; the last step lasts forever.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.api.profile import Profile

INF = math.inf


def holes() -> Profile:
    """10 cores; 8 taken over [4, 6) and over [10, 15): holes of 4 s at [0, 4) and [6, 10).

    free: 10 | 2 | 10 | 2 | 10
         0    4   6   10   15
    """
    profile = Profile(0.0, 10, 10)
    profile.reserve(4.0, 2.0, 8)
    profile.reserve(10.0, 5.0, 8)
    return profile


# --- from_running ----------------------------------------------------------------------------


def test_from_running_sorts_and_merges_ends() -> None:
    profile = Profile.from_running(0.0, 10, [(5.0, 3), (2.0, 4), (5.0, 1)])
    assert profile.steps() == [(0.0, 2), (2.0, 6), (5.0, 10)]
    assert profile.capacity == 10


def test_from_running_with_nothing_running() -> None:
    assert Profile.from_running(3.0, 8, []).steps() == [(3.0, 8)]


def test_from_running_overdue_jobs_count_as_free_now() -> None:
    # Ends at or before now (jobs past their expected end) free their cores at `now`.
    profile = Profile.from_running(10.0, 8, [(4.0, 2), (10.0, 1), (15.0, 3)])
    assert profile.steps() == [(10.0, 5), (15.0, 8)]


def test_from_running_infinite_end() -> None:
    profile = Profile.from_running(0.0, 4, [(INF, 2), (3.0, 1)])
    assert profile.steps() == [(0.0, 1), (3.0, 2), (INF, 4)]


def test_holes_fixture() -> None:
    assert holes().steps() == [(0.0, 10), (4.0, 2), (6.0, 10), (10.0, 2), (15.0, 10)]


# --- earliest --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cores", "duration", "not_before", "start"),
    [
        (4, 3.0, None, 2.0),  # 2 free now, 6 from t=2
        (2, 100.0, None, 0.0),
        (2, INF, None, 0.0),
        (3, 1.0, None, 2.0),
        (7, 1.0, None, 5.0),
        (10, 1.0, None, 5.0),  # the whole machine once everything ends
        (3, 1.0, 1.0, 2.0),  # not_before inside a step that is too small
        (2, 1.0, 3.0, 3.0),  # not_before inside a step that fits: start at not_before
        (7, 2.0, 9.0, 9.0),
        (4, 3.0, -5.0, 2.0),  # a not_before in the past is the profile's start
        (0, 3.0, None, 0.0),
    ],
)
def test_earliest_on_running_jobs(
    cores: int, duration: float, not_before: float | None, start: float
) -> None:
    profile = Profile.from_running(0.0, 10, [(5.0, 3), (2.0, 4), (5.0, 1)])
    assert profile.earliest(cores, duration, not_before) == start


@pytest.mark.parametrize(
    ("cores", "duration", "not_before", "start"),
    [
        (5, 4.0, None, 0.0),  # exact fit in [0, 4)
        (5, 4.0001, None, 15.0),  # both 4-second holes are too short
        (5, 4.0, 0.5, 6.0),  # only 3.5 s left of the first hole: the exact fit at [6, 10)
        (5, 3.5, 0.5, 0.5),  # exact fit ending at 4
        (5, 4.0, 6.0, 6.0),
        (5, 4.0, 6.5, 15.0),
        (2, 100.0, None, 0.0),  # 2 cores are free everywhere
        (3, 0.0, 4.0, 6.0),  # even a zero-length job needs the cores at its start
        (5, INF, None, 15.0),
        (2, INF, 3.0, 3.0),
        (10, 4.0, None, 0.0),
        (10, 5.0, None, 15.0),
        (11, 1.0, None, INF),  # more than the capacity: never
        (11, 0.0, None, INF),
    ],
)
def test_earliest_in_holes(
    cores: int, duration: float, not_before: float | None, start: float
) -> None:
    assert holes().earliest(cores, duration, not_before) == start


def test_earliest_never_when_capacity_is_never_free_long_enough() -> None:
    profile = holes()
    profile.reserve(15.0, INF, 3)  # a job with no time limit from t=15
    assert profile.steps() == [(0.0, 10), (4.0, 2), (6.0, 10), (10.0, 2), (15.0, 7)]
    assert profile.earliest(8, 20.0) == INF
    assert profile.earliest(8, 4.0) == 0.0
    assert profile.earliest(7, INF) == 15.0
    assert profile.earliest(8, INF) == INF


def test_earliest_does_not_change_the_profile() -> None:
    profile = holes()
    before = profile.steps()
    profile.earliest(5, 4.0, 0.5)
    assert profile.steps() == before


def test_earliest_after_an_infinite_end_is_never() -> None:
    # A running job without a time limit never gives its cores back.
    profile = Profile.from_running(0.0, 4, [(INF, 2)])
    assert profile.earliest(2, INF) == 0.0
    assert profile.earliest(3, 1.0) == INF


# --- reserve ---------------------------------------------------------------------------------


def test_reserve_splits_steps() -> None:
    profile = Profile(0.0, 10, 10)
    profile.reserve(2.0, 3.0, 4)
    assert profile.steps() == [(0.0, 10), (2.0, 6), (5.0, 10)]
    profile.reserve(2.0, 3.0, 1)  # on existing breakpoints: no new step
    assert profile.steps() == [(0.0, 10), (2.0, 5), (5.0, 10)]
    profile.reserve(3.0, 4.0, 2)  # straddles a breakpoint
    assert profile.steps() == [(0.0, 10), (2.0, 5), (3.0, 3), (5.0, 8), (7.0, 10)]
    profile.reserve(0.0, 2.0, 10)  # the whole machine, exactly up to a breakpoint
    assert profile.steps() == [(0.0, 0), (2.0, 5), (3.0, 3), (5.0, 8), (7.0, 10)]


def test_reserve_infinite_duration() -> None:
    profile = Profile.from_running(0.0, 10, [(5.0, 3)])
    profile.reserve(2.0, INF, 4)
    assert profile.steps() == [(0.0, 7), (2.0, 3), (5.0, 6)]


def test_reserve_zero_duration_changes_nothing_but_may_split() -> None:
    profile = Profile(0.0, 10, 10)
    profile.reserve(3.0, 0.0, 5)
    assert [free for _, free in profile.steps()] == [10] * len(profile.steps())


def test_reserve_what_earliest_found_then_plan_the_next_job() -> None:
    """Conservative planning by hand: 8 cores, a running job holds 6 until t=10."""
    profile = Profile.from_running(0.0, 8, [(10.0, 6)])
    first = profile.earliest(4, 5.0)
    assert first == 10.0
    profile.reserve(first, 5.0, 4)
    assert profile.steps() == [(0.0, 2), (10.0, 4), (15.0, 8)]
    second = profile.earliest(2, 10.0)  # backfills: 2 cores are free from now on
    assert second == 0.0
    profile.reserve(second, 10.0, 2)
    assert profile.steps() == [(0.0, 0), (10.0, 4), (15.0, 8)]
    third = profile.earliest(6, 1.0)
    assert third == 15.0
    assert profile.earliest(4, 5.0) == 10.0  # 4 cores stay free over [10, 15): a twin fits
    assert profile.earliest(5, 1.0) == 15.0


def test_place_reserves_what_earliest_finds() -> None:
    profile = holes()
    assert profile.place(5, 4.0, 0.5) == 6.0  # the exact fit at [6, 10)
    assert profile.steps() == [(0.0, 10), (4.0, 2), (6.0, 5), (10.0, 2), (15.0, 10)]
    assert profile.place(5, 3.0) == 0.0
    assert profile.steps() == [(0.0, 5), (3.0, 10), (4.0, 2), (6.0, 5), (10.0, 2), (15.0, 10)]
    assert profile.place(6, 2.0) == 15.0
    assert profile.steps() == [
        (0.0, 5),
        (3.0, 10),
        (4.0, 2),
        (6.0, 5),
        (10.0, 2),
        (15.0, 4),
        (17.0, 10),
    ]


def test_place_takes_nothing_when_never() -> None:
    profile = holes()
    before = profile.steps()
    assert profile.place(11, 1.0) == INF  # above the capacity
    assert profile.steps() == before
    forever = Profile.from_running(0.0, 4, [(INF, 2)])
    assert forever.place(3, 1.0) == INF  # within the capacity, but never free
    assert forever.steps() == [(0.0, 2), (INF, 4)]


def test_place_infinite_duration() -> None:
    profile = holes()
    assert profile.place(8, INF) == 15.0
    assert profile.steps() == [(0.0, 10), (4.0, 2), (6.0, 10), (10.0, 2)]  # equal steps merged
    assert profile.place(3, 1.0) == 0.0
    assert profile.place(3, 20.0) == INF  # 2 cores are all that is ever free from t=4 on


# --- free_at and advance ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("time", "free"),
    [
        (-1.0, 10),
        (0.0, 10),
        (3.999, 10),
        (4.0, 2),
        (5.0, 2),
        (6.0, 10),
        (12.0, 2),
        (15.0, 10),
        (1e9, 10),
        (INF, 10),
    ],
)
def test_free_at(time: float, free: int) -> None:
    assert holes().free_at(time) == free


@pytest.mark.parametrize(
    ("now", "steps"),
    [
        (-1.0, [(0.0, 10), (4.0, 2), (6.0, 10), (10.0, 2), (15.0, 10)]),  # the past: unchanged
        (0.0, [(0.0, 10), (4.0, 2), (6.0, 10), (10.0, 2), (15.0, 10)]),
        (2.0, [(2.0, 10), (4.0, 2), (6.0, 10), (10.0, 2), (15.0, 10)]),
        (4.0, [(4.0, 2), (6.0, 10), (10.0, 2), (15.0, 10)]),
        (5.0, [(5.0, 2), (6.0, 10), (10.0, 2), (15.0, 10)]),
        (6.0, [(6.0, 10), (10.0, 2), (15.0, 10)]),
        (14.0, [(14.0, 2), (15.0, 10)]),
        (100.0, [(100.0, 10)]),
    ],
)
def test_advance(now: float, steps: list[tuple[float, int]]) -> None:
    profile = holes()
    profile.advance(now)
    assert profile.steps() == steps


def test_advance_then_earliest_plans_from_now() -> None:
    profile = holes()
    profile.advance(1.0)
    assert profile.earliest(5, 4.0) == 6.0  # the first hole has only 3 s left
    assert profile.earliest(5, 3.0) == 1.0
    profile.advance(7.0)
    assert profile.earliest(5, 4.0) == 15.0
    assert profile.earliest(5, 3.0) == 7.0


# --- against a brute-force timeline ----------------------------------------------------------

HORIZON = 200  # integer instants; every breakpoint below stays well under it


def reference_earliest(levels: list[int], cores: int, duration: int, not_before: int) -> float:
    for start in range(not_before, HORIZON - duration):
        if all(levels[t] >= cores for t in range(start, start + duration)):
            return float(start)
    return INF


@given(
    capacity=st.integers(1, 12),
    running=st.lists(st.tuples(st.integers(-3, 20), st.integers(1, 4)), max_size=5),
    jobs=st.lists(
        st.tuples(st.integers(1, 14), st.integers(1, 15), st.integers(0, 20)), max_size=6
    ),
)
def test_place_matches_a_brute_force_timeline(
    capacity: int, running: list[tuple[int, int]], jobs: list[tuple[int, int, int]]
) -> None:
    busy = sum(cores for _, cores in running)
    if busy > capacity:
        running = []
    levels = [capacity] * HORIZON
    for end, cores in running:
        for t in range(max(end, 0)):
            levels[t] -= cores
    profile = Profile.from_running(0.0, capacity, [(float(e), c) for e, c in running])
    for cores, duration, not_before in jobs:
        expected = reference_earliest(levels, cores, duration, not_before)
        if cores > capacity:
            expected = INF
        assert profile.place(cores, float(duration), float(not_before)) == expected
        if expected != INF:
            for t in range(int(expected), int(expected) + duration):
                levels[t] -= cores
        assert [profile.free_at(float(t)) for t in range(HORIZON)] == levels
        times = [time for time, _ in profile.steps()]
        assert times == sorted(set(times))  # strictly increasing breakpoints
