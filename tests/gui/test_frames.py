"""The window's schedule (gui.driver.Frames) on a hand-driven clock: Qt-free."""

from __future__ import annotations

import pytest

from emulator.session import Pacer
from gui.driver import BLOCK, FRAME, MIN_SLICE, Driver, Frames
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


def test_a_paced_timer_firing_a_little_early_still_redraws_at_every_tick() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    drawn = 0
    for version in range(30):  # the timer every 34 ms, now and then a ms and a half early
        clock.now += 0.034 if version % 2 else 0.0325
        frames.budget(False, {"Nodes"})
        frames.sliced_now()
        drawn += frames.due(version, {"Nodes"}) == ["Nodes"]
    assert drawn == 30


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


def simulate(
    costs: dict[str | None, float], seconds: float = 10.0
) -> tuple[float, float, float, dict[str, int]]:
    """Ticks back to back, each a slice of the budget and, when due, a redraw costing
    ``costs[the slow view drawn]`` (``costs[None]``: the fast views alone) wall seconds: (the
    emulator's share of the time, redraws per second, the longest tick once every kind of
    redraw was measured (after the first two seconds), the redraws of each view)."""
    clock = Clock()
    frames = Frames(clock, RATES)
    start, sliced, longest = clock.now, 0.0, 0.0
    drawn = dict.fromkeys(RATES, 0)
    redraws = version = 0
    while clock.now - start < seconds:
        began = clock.now
        budget = frames.budget(True, ALL)
        clock.now += budget
        sliced += budget
        frames.sliced_now()
        version += 1
        views = frames.due(version, ALL)
        if views:
            slow = [name for name in views if name != "Nodes"]
            clock.now += costs[slow[0] if slow else None]
            redraws += 1
            for name in views:
                drawn[name] += 1
        if began - start > 2.0:
            longest = max(longest, clock.now - began)
    wall = clock.now - start
    return sliced / wall, redraws / wall, longest, drawn


def test_a_tick_holds_the_thread_for_block_the_slice_making_room_for_its_redraw() -> None:
    # the nodes alone cost 4 ms, a redraw with the queue table 30: its slice is shorter
    costs = {None: 0.004, "Gantt": 0.012, "Metrics": 0.010, "Queues": 0.030}
    share, rate, longest, drawn = simulate(costs)
    assert longest <= BLOCK + 1e-4  # never longer, whichever view a tick redraws
    assert rate == pytest.approx(1 / BLOCK, rel=0.05)  # a redraw ending every tick
    for name in ("Gantt", "Metrics", "Queues"):  # each slow view at about its rate, not over
        assert 0.8 * 10 * RATES[name] <= drawn[name] <= 10 * RATES[name] + 1
    # the emulator has the rest: 24 redraws a second, 8.6 of them with the Gantt chart, 3.5
    # with the plots, 1.8 with the queue table (4, 12, 10, 30 ms) leave it 77 % of the thread
    assert share == pytest.approx(0.77, abs=0.01)


def test_a_gui_too_dear_for_a_tick_leaves_the_emulator_half_of_the_thread() -> None:
    share, rate, longest, _ = simulate(dict.fromkeys((None, "Gantt", "Metrics", "Queues"), 0.040))
    assert share == pytest.approx(0.5, abs=0.02) and rate == pytest.approx(12.5, abs=0.5)
    assert longest == pytest.approx(2 * 0.040, abs=0.002)  # the ticks grow instead
    assert MIN_SLICE < BLOCK


def test_idle_time_is_not_taken_for_gui_work() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    frames.sliced_now()
    frames.due(1, ALL)
    clock.now += 0.5  # the timer waited: the emulator was not running flat out
    assert frames.budget(False, ALL) == BLOCK  # no redraw measured: the whole tick
    assert frames.gui == 0.0 and frames.cost == {}


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


def test_a_slow_view_not_measured_yet_is_given_half_a_tick() -> None:
    clock = Clock()
    frames = Frames(clock, RATES)
    frames.sliced_now()
    assert frames.due(1, {"Nodes"}) == ["Nodes"]
    clock.now += 0.005  # the nodes took 5 ms
    assert frames.budget(True, {"Nodes"}) == pytest.approx(BLOCK - 0.005)
    assert frames.planned is None and frames.cost == {None: pytest.approx(0.005)}
    frames.sliced_now()
    clock.now += BLOCK - 0.005
    assert frames.due(2, ALL) == ["Nodes", "Gantt"]  # the Gantt chart: 5 ms too
    clock.now += 0.005
    assert frames.budget(True, ALL) == pytest.approx(BLOCK / 2)  # the plots: never measured
    assert frames.planned == "Metrics"
