"""The window on its own child daemon (``batchlab gui --platform/--workload/--demo``): File >
Open starts a new child and stops the old one, Save results has the daemon make them, and a
screenshot runs the daemon to its time first."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from emulator.child import ChildSession, Feed, open_child
from emulator.session import DEMO_PLATFORM, demo_session, queue_rows
from gui.scenario import Scenario
from gui.window import MainWindow
from resources import platform_path
from tests.daemon.helpers import LAB
from tests.gui.test_files import small_trace


def child_window(qtbot: QtBot, session: ChildSession) -> MainWindow:
    win = MainWindow(session, scenario=Scenario(LAB))
    win.timer.stop()  # the test ticks
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_opening_a_file_starts_a_new_child_and_stops_the_old(qtbot: QtBot, tmp_path: Path) -> None:
    first = open_child(LAB, "cbf")
    win = child_window(qtbot, first)
    assert win.driver.sessions == (first,) and win.driver.follows
    assert win.files.open_workload(small_trace(tmp_path / "small.swf"))
    second = win.session
    assert isinstance(second, ChildSession) and second is not first
    assert first.child.process.poll() is not None  # the old emulator stopped
    assert second.scheduler == "cbf" and second.platform == first.platform
    assert win.driver.sessions == (second,)
    # a file it cannot use: a message, and the running child stays
    assert not win.files.open_workload(tmp_path / "none.swf")
    assert win.files.message is not None and "no such workload file" in win.files.message.text()
    assert win.session is second and second.child.process.poll() is None
    assert win.files.open_platform(platform_path(DEMO_PLATFORM))
    assert win.session.platform.name == DEMO_PLATFORM and len(win.nodes.images) == 3
    assert second.child.process.poll() is not None
    third = win.session
    win.close()
    assert isinstance(third, ChildSession) and third.child.process.poll() is not None


def test_a_screenshot_runs_the_child_to_its_time(qtbot: QtBot, tmp_path: Path) -> None:
    session = open_child(platform_path(DEMO_PLATFORM), "easy", Feed(demo=True))
    win = MainWindow(session)  # its timer runs, as in ``batchlab gui --screenshot``
    qtbot.addWidget(win)
    win.show()
    path = tmp_path / "shot.png"
    with qtbot.waitSignal(win.finished, timeout=30000):
        win.screenshot_at(5400.0, path)
    assert session.now == 5400.0 and not win.play_action.isChecked()
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    # what it drew is the daemon's state then: the queue table is the in-process demo's
    local = demo_session("easy")
    local.run_until(5400.0)
    jobs = local.snapshot().jobs
    queued = [jobs.label[row] for row in queue_rows(jobs).tolist()]
    assert [row[1] for row in win.queue.model.table()] == queued and len(queued) == 5
    # and Save results writes what the daemon made
    assert win.files.save_results(tmp_path / "results")
    local.save_results(tmp_path / "here")
    for name in ("jobs.csv", "summary.json"):
        assert (tmp_path / "results" / name).read_text() == (tmp_path / "here" / name).read_text()
