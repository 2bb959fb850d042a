"""The window's schedule (gui.driver.Frames) on a hand-driven clock: Qt-free."""

from __future__ import annotations

import pytest

from emulator.session import Pacer
from gui.driver import BLOCK, FRAME, MIN_SLICE, SHARE, Driver, Frames
from tests.gui.test_palette_driver import session_with_work

RATES = {"Nodes": 30.0, "Gantt": 10.0, "Metrics": 4.0, "Queues": 2.0}
ALL = set(RATES)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_two_ticks_within_a_frame_redraw_once() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    assert frames.due(1, ALL)  # the first tick redraws
    clock.now += 0.020
    assert frames.due(2, ALL) == []  # 20 ms later: throttled, although the snapshot changed
    clock.now += 0.014  # 34 ms after the first redraw
    assert frames.due(3, ALL)[0] == "Nodes"
    assert pytest.approx(1 / 30) == FRAME


def test_each_view_at_its_rate_the_slow_ones_one_per_frame_most_overdue_first() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    drawn: dict[str, list[float]] = {name: [] for name in RATES}
    for version in range(300):  # 10 s at 30 frames a second
        views = frames.due(version, ALL)
        assert views[:1] == ["Nodes"] and len(views) <= 2  # the nodes, and one slower view
        for name in views:
            drawn[name].append(clock.now)
        clock.now += 1 / 30 + 1e-6
    assert len(drawn["Nodes"]) == 300
    for name in ("Gantt", "Metrics", "Queues"):
        gaps = [b - a for a, b in zip(drawn[name], drawn[name][1:], strict=False)]
        assert min(gaps) >= 1 / RATES[name]  # never faster than its rate
        assert len(drawn[name]) >= 0.9 * 10 * RATES[name] - 1  # and about as often


def test_hidden_or_unchanged_views_are_not_redrawn() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    assert frames.due(7, {"Nodes"}) == ["Nodes"]  # only what is on screen
    clock.now += 1.0
    assert frames.due(7, ALL) == ["Gantt"]  # Nodes drew version 7 already
    clock.now += 1.0
    assert frames.due(7, ALL) == ["Metrics"]  # the next slow view; nothing changed for Gantt
    frames.drawn(8, ALL)  # a command redrew everything outside the schedule
    clock.now += 1.0
    assert frames.due(8, ALL) == []  # and nothing changed since
    assert frames.due(9, ALL) == ["Nodes", "Gantt"]  # the slow view most overdue for its rate


def simulate(gui: float, seconds: float = 10.0) -> tuple[float, float, float]:
    """Ticks back to back, each a slice of the budget and, when due, a redraw costing ``gui``
    wall seconds: (the emulator's share of the time, redraws per second, longest tick once the
    GUI's cost is known: after the first second)."""
    clock = Clock()
    frames = Frames(clock, RATES)
    start, sliced, redraws, longest = clock.now, 0.0, 0, 0.0
    version = 0
    while clock.now - start < seconds:
        began = clock.now
        budget = frames.budget(back_to_back=True)
        clock.now += budget
        sliced += budget
        frames.sliced_now()
        version += 1
        if frames.due(version, ALL):
            clock.now += gui
            redraws += 1
        if began - start > 1.0:
            longest = max(longest, clock.now - began)
    wall = clock.now - start
    return sliced / wall, redraws / wall, longest


def test_the_emulator_keeps_its_share_and_frames_stay_short() -> None:
    share, rate, longest = simulate(0.005)  # a cheap GUI: SHARE, and all the frames
    assert SHARE <= share < SHARE + 0.02 and 28 <= rate <= 30 and longest <= 1.1 * FRAME
    share, rate, longest = simulate(0.007)  # dearer: 22 frames a second, the share kept
    assert share > 0.83 and 22 <= rate <= 23 and longest <= BLOCK + 1e-4
    share, rate, longest = simulate(0.015)  # a costly GUI: the frames kept, the share not
    assert share == pytest.approx(1 - 0.015 / BLOCK, abs=0.01) and rate >= 22
    assert longest <= BLOCK + 1e-4
    share, rate, longest = simulate(0.040)  # too costly for both: the emulator keeps half
    assert share == pytest.approx(0.5, abs=0.01) and rate == pytest.approx(12.5, abs=0.5)
    assert MIN_SLICE < BLOCK


def test_idle_time_is_not_taken_for_gui_work() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    frames.sliced_now()
    frames.due(1, ALL)
    clock.now += 0.5  # the timer waited: the emulator was not running flat out
    assert frames.budget(back_to_back=False) == MIN_SLICE
    assert frames.gui == 0.0


def test_a_chunk_that_would_overrun_the_budget_is_not_started() -> None:
    wall = [0.0]

    def clock() -> float:
        wall[0] += 0.004  # every look at the clock: 4 ms later (a chunk takes 4 ms)
        return wall[0]

    driver = Driver(session_with_work(), Pacer(clock), budget=0.010, chunk=1)
    driver.set_speed(float("inf"))
    driver.play()
    start = wall[0] + 0.008  # the tick reads the clock for its target, then for its start
    assert driver.tick() == 2  # a third chunk would have ended 12 ms after the start
    assert driver.behind and wall[0] <= start + 0.010
