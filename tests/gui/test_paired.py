"""Two daemons on one clock (:class:`gui.driver.Driver`): what ``batchlab gui --compare``
runs, each emulator in a daemon of its own. They must stand where two in-process sessions in
lockstep stand, and the window must never wait for them but to step."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from emulator.child import ChildSession, Feed
from emulator.session import DEMO_PLATFORM, demo_session
from gui.compare import CompareWindow, open_comparison
from gui.scenario import Scenario
from resources import platform_path

DEMO = Scenario(platform_path(DEMO_PLATFORM), Feed(demo=True))


def compare_window(qtbot: QtBot, first: str, second: str) -> CompareWindow:
    win = CompareWindow(DEMO.open(first), DEMO.open(second), speed=math.inf)
    qtbot.addWidget(win)
    win.show()
    return win


def test_two_daemons_run_to_the_same_time_as_sessions_in_lockstep(qtbot: QtBot) -> None:
    win = compare_window(qtbot, "fcfs", "easy")
    driver = win.driver
    assert not driver.follows  # the window's clock rules
    driver.stop_at = 9000.0
    win.play()
    qtbot.waitUntil(lambda: not driver.playing, timeout=30000)
    assert driver.now == 9000.0 and not win.play_action.isChecked()
    local = (demo_session("fcfs"), demo_session("easy"))  # the same, in this process
    for session in local:
        session.run_until(9000.0)
    for side, session in zip(win.sides, local, strict=True):
        assert side.session.now == 9000.0
        ours, theirs = side.session.snapshot().jobs, session.snapshot().jobs
        assert ours.label == theirs.label and ours.where == theirs.where
        assert ours.start.tolist() == pytest.approx(theirs.start.tolist(), nan_ok=True)
    # a step: both to the earlier of their next events
    assert win.step()
    upcoming = min(session.next_time() for session in local)
    for session in local:
        session.run_until(upcoming)
    assert driver.now == upcoming and all(s.session.now == upcoming for s in win.sides)


def test_a_comparison_from_a_daemon_s_window_runs_in_daemons_and_stops_them(
    qtbot: QtBot,
) -> None:
    win = open_comparison(DEMO, "fcfs", "cbf", speed=600.0, playing=False)
    qtbot.addWidget(win)
    sessions = [side.session for side in win.sides]
    assert all(isinstance(session, ChildSession) for session in sessions)
    assert win.names == ("fcfs", "cbf") and win.driver.sessions == tuple(sessions)
    win.close()
    assert all(
        session.child.process.poll() is not None
        for session in sessions
        if isinstance(session, ChildSession)
    )


def test_a_comparison_starts_where_the_main_window_stands(qtbot: QtBot) -> None:
    win = open_comparison(DEMO, "fcfs", "easy", playing=False, at=5400.0)
    qtbot.addWidget(win)
    # both daemons at the main window's time, paused as it was: not from t = 0, not playing
    assert [side.session.now for side in win.sides] == [5400.0, 5400.0]
    assert win.driver.now == 5400.0 and not win.driver.playing
    local = demo_session("easy")
    local.run_until(5400.0)
    assert win.sides[1].session.snapshot().jobs.label == local.snapshot().jobs.label
