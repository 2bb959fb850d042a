"""Two daemons on one clock (:class:`gui.paired.PairedDriver`): what ``batchlab gui --compare``
runs, each emulator in a daemon of its own. They must stand where two in-process sessions in
lockstep stand, and the window must never wait for them but to step."""

from __future__ import annotations

import math
from functools import partial

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from emulator.child import ChildSession, Feed, open_child
from emulator.session import DEMO_PLATFORM, demo_session
from gui.compare import CompareWindow, open_comparison
from gui.lockstep import Lockstep
from gui.paired import PairedDriver
from resources import platform_path

DEMO = partial(open_child, platform_path(DEMO_PLATFORM), feed=Feed(demo=True))


def compare_window(qtbot: QtBot, first: str, second: str) -> CompareWindow:
    win = CompareWindow(DEMO(first), DEMO(second), speed=math.inf)
    qtbot.addWidget(win)
    win.show()
    return win


def test_two_daemons_run_to_the_same_time_as_sessions_in_lockstep(qtbot: QtBot) -> None:
    win = compare_window(qtbot, "fcfs", "easy")
    driver = win.driver
    assert isinstance(driver, PairedDriver)
    driver.stop_at = 9000.0
    win.play()
    qtbot.waitUntil(lambda: not driver.playing, timeout=30000)
    assert driver.now == 9000.0 and not win.play_action.isChecked()
    local = Lockstep((demo_session("fcfs"), demo_session("easy")))
    local.run_until(9000.0)
    for side, session in zip(win.sides, local.sessions, strict=True):
        assert side.session.now == 9000.0
        ours, theirs = side.session.snapshot().jobs, session.snapshot().jobs
        assert ours.label == theirs.label and ours.where == theirs.where
        assert ours.start.tolist() == pytest.approx(theirs.start.tolist(), nan_ok=True)
    # a step: both to the earlier of their next events, as Lockstep.step
    assert win.step()
    local.step()
    assert driver.now == local.now and all(s.session.now == local.now for s in win.sides)


def test_a_comparison_from_a_daemon_s_window_runs_in_daemons_and_stops_them(
    qtbot: QtBot,
) -> None:
    win = open_comparison(DEMO, "fcfs", "cbf", speed=600.0, playing=False)
    qtbot.addWidget(win)
    sessions = [side.session for side in win.sides]
    assert all(isinstance(session, ChildSession) for session in sessions)
    assert win.names == ("fcfs", "cbf") and isinstance(win.driver, PairedDriver)
    win.close()
    assert all(
        session.child.process.poll() is not None
        for session in sessions
        if isinstance(session, ChildSession)
    )
