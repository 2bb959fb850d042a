"""The window's schedule (gui.driver.Frames) on a hand-driven clock: Qt-free."""

from __future__ import annotations

import pytest

from gui.frames import FRAME, Frames

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
