"""The window attached to a running daemon (``batchlab gui --socket``): it shows the daemon's
jobs, its console runs commands there, and its controls steer the daemon's clock."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from emulator.remote import RemoteSession
from emulator.session import Pacer
from gui import palette
from gui.views.nodes import CELL
from gui.window import MainWindow
from tests.daemon.helpers import FakeWall


def attached_window(qtbot: QtBot, socket: Any, clock: FakeWall) -> MainWindow:
    remote = RemoteSession(socket, clock=clock)
    win = MainWindow(remote, pacer=Pacer(clock))
    win.timer.stop()  # the test ticks
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_the_window_shows_the_daemon_s_job_and_steers_its_clock(
    qtbot: QtBot, make_daemon: Any
) -> None:
    running = make_daemon()  # paused
    running.run("sbatch", "-J", "hello", "-n", "4", "-t", "10", "--wrap", "sleep 300")
    clock = FakeWall()
    win = attached_window(qtbot, running.socket, clock)
    assert win.driver.follows and not win.play_action.isChecked()  # the daemon's clock rules
    win.refresh()
    (row,) = win.queue.model.table()
    assert (row[0], row[2], row[3], row[4]) == ("1", "hello", "root", "PD")
    assert tuple(win.nodes.image(0)[4, 4]) == tuple(palette.IDLE)

    assert win.step()  # the daemon's clock to its next event: job 1 starts on node01
    (row,) = win.queue.model.table()
    assert row[4] == "R" and row[7] == "node01"
    job1 = palette.colours([1])[0]
    assert tuple(win.nodes.image(0)[4, 4]) == tuple(job1)  # node01's cell in job 1's colour
    assert tuple(win.nodes.image(0)[4, CELL + 4]) == tuple(palette.IDLE)
    assert running.call("clock", action="show")["clock"]["now"] == 0.0

    # steered elsewhere (batchlab clock): the window follows at its next tick
    running.call("clock", action="speed", value=600)
    running.call("clock", action="resume")
    clock.later()  # past the refresh interval: the window asks the daemon again
    win.tick()
    win.session.wait_in_flight()
    win.tick()  # and takes the answer
    assert win.play_action.isChecked() and win.driver.speed == 600.0
    # steered here: the daemon follows
    win.set_speed(3600.0)
    win.pause()
    shown = running.call("clock", action="show")["clock"]
    assert shown["paused"] is True and shown["speed"] == 3600.0

    # the console runs commands on the daemon, as its user, with the CLI's output
    result = win.console.run('sbatch -J typed -n 1 -t 5 --wrap "sleep 60"')
    assert result.stdout == "Submitted batch job 2\n"
    assert "$ sbatch -J typed" in win.console.output.toPlainText()
    win.refresh()
    assert [cells[2] for cells in win.queue.model.table()] == ["typed", "hello"]
    assert "2 typed" in running.run("squeue", "-h", "-o", "%i %j")["stdout"]


def test_the_status_bar_says_when_the_daemon_refuses_or_is_gone(
    qtbot: QtBot, make_daemon: Any
) -> None:
    running = make_daemon()
    clock = FakeWall()
    win = attached_window(qtbot, running.socket, clock)
    driver = win.driver
    assert driver.follows
    win.tick()
    assert win.trouble.isHidden()

    driver.set_speed(-1.0)  # the daemon refuses a negative speed
    win.tick()
    assert driver.refused and win.trouble.text() == driver.refused and not win.trouble.isHidden()
    label = win.trouble.geometry().translated(win.statusBar().pos())
    assert win.statusBar().geometry().contains(label) and label.width() > 0

    driver.set_speed(600.0)  # accepted: the refusal is no longer news
    win.tick()
    assert win.trouble.isHidden()

    running.stop()
    clock.later()  # past the refresh interval: the window asks the daemon again
    win.tick()
    assert "does not answer" in win.trouble.text() and not win.trouble.isHidden()


def test_a_nodes_frame_asks_the_daemon_for_the_nodes_alone(qtbot: QtBot, make_daemon: Any) -> None:
    running = make_daemon()  # paused
    clock = FakeWall()
    win = attached_window(qtbot, running.socket, clock)
    remote = win.session
    assert isinstance(remote, RemoteSession) and remote.fetch_in_background
    running.run("sbatch", "-J", "hello", "-n", "4", "-t", "10", "--wrap", "sleep 300")
    running.call("clock", action="step")  # another client's: job 1 starts on node01
    clock.later()
    fetched = remote.fetches
    win.refresh(["Nodes"])  # asks, without waiting
    remote.wait_in_flight()
    win.refresh(["Nodes"])
    assert remote.fetches == fetched  # no job table crossed the socket
    assert tuple(win.nodes.image(0)[4, 4]) == tuple(palette.colours([1])[0])
