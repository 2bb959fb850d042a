"""The job context menu and the submit dialog: what they run is what the CLI runs, and the views
show the outcome (offscreen)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from emulator.child import ChildSession
from emulator.session import Session
from gui import palette
from gui.job_menu import JobMenu
from gui.views.nodes import CELL
from gui.window import MainWindow
from tests.gui.helpers import (
    daemon,
    open_window,
    platform,
    platform_file,
    plot_point,
    run_to,
    widget_point,
)

HELD_COLUMN = 8  # NODELIST(REASON) in the multi-cluster table (CLUSTER first)


def right_click_row(win: MainWindow, job_id: int) -> JobMenu:
    """A real context-menu event on the job's row of the queue table."""
    table, model = win.queue.table, win.queue.model
    position = model.position_of(job_id)
    assert position is not None
    centre = table.visualRect(model.index(position, 1)).center()
    viewport = table.viewport()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, centre, viewport.mapToGlobal(centre))
    QApplication.sendEvent(viewport, event)
    menu = win.job_menu
    assert menu is not None and menu.job.label == str(job_id)
    return menu


def reason(win: MainWindow, job_id: int) -> str:
    position = win.queue.model.position_of(job_id)
    assert position is not None
    return win.queue.model.table()[position][HELD_COLUMN]


QUEUED = (
    'sbatch -M c0 -n 4 -t 10 --wrap "sleep 300"',
    'sbatch -M c0 -n 2 -t 10 --wrap "sleep 300"',
)


@pytest.fixture
def two_clusters(tmp_path: Path) -> Path:
    """Two 2-node clusters of 2 cores."""
    return platform_file(tmp_path, 2, 2, cores=2)


def queued_session(file: Path, user: str | None = None) -> ChildSession:
    """A daemon on ``file`` (two clusters) where job 1 fills c0 and job 2 waits behind it."""
    session = daemon(file, "easy", *QUEUED, user=user)
    run_to(session, 1.0)
    return session


def test_hold_and_release_from_the_queue_menu_as_scontrol_does(
    qtbot: QtBot, two_clusters: Path
) -> None:
    session = queued_session(two_clusters, "alice")
    win = open_window(qtbot, session)
    assert reason(win, 2) == "(Resources)"
    menu = right_click_row(win, 2)
    assert [menu.action(n).isEnabled() for n in ("Cancel", "Hold", "Release")] == [1, 1, 0]
    menu.action("Hold").trigger()
    # the queue shows what squeue shows: a user's hold
    assert reason(win, 2) == "(JobHeldUser)"
    twin = Session(platform(2, 2, cores=2), "easy", user="alice")  # the same, in this process
    for line in QUEUED:
        twin.command(line)
    twin.advance(1)
    twin.command("scontrol hold 2")
    assert win.queue.model.table() == list(twin.queue_table().rows)
    assert "alice$ scontrol hold 2\n" in win.console.output.toPlainText()

    menu = right_click_row(win, 2)
    assert [menu.action(n).isEnabled() for n in ("Cancel", "Hold", "Release")] == [1, 0, 1]
    menu.action("Release").trigger()
    assert reason(win, 2) != "(JobHeldUser)"
    # a running job can be cancelled, not held
    menu = right_click_row(win, 1)
    assert [menu.action(n).isEnabled() for n in ("Cancel", "Hold", "Release")] == [1, 0, 0]


def test_root_holds_are_admin_holds_and_refusals_are_shown(
    qtbot: QtBot, two_clusters: Path
) -> None:
    session = queued_session(two_clusters)
    win = open_window(qtbot, session)
    right_click_row(win, 2).action("Hold").trigger()
    assert reason(win, 2) == "(JobHeldAdmin)"
    # bob may not release root's hold: the CLI's refusal, in the console and the status bar
    session.command("as bob")
    right_click_row(win, 2).action("Release").trigger()
    assert reason(win, 2) == "(JobHeldAdmin)"
    text = win.console.output.toPlainText()
    assert text.endswith(
        "bob$ scontrol release 2\nAccess/permission denied for job 2\n"
        "slurm_suspend error: Access/permission denied\n[exit 1]\n"
    )
    assert "Access/permission denied" in win.statusBar().currentMessage()


def test_cancel_a_running_job_from_its_node_idles_the_nodes(
    qtbot: QtBot, two_clusters: Path
) -> None:
    session = queued_session(two_clusters)
    win = open_window(qtbot, session)
    win.refresh()
    job1 = tuple(palette.colours([1])[0])
    assert tuple(win.nodes.image(0)[4, 4]) == job1
    qtbot.wait(50)  # let the layout give the view its size
    graphics, item = win.nodes.graphics, win.nodes.images[0]
    target = widget_point(graphics, item, CELL + 4.5, 4.5)  # node c0n2
    qtbot.mouseClick(graphics.viewport(), Qt.MouseButton.RightButton, pos=target)
    menu = win.job_menu
    assert menu is not None and menu.job.label == "1" and win.selection.job_id == 1
    menu.action("Cancel").trigger()
    image = win.nodes.image(0)
    assert tuple(image[4, 4]) == tuple(image[4, CELL + 4]) == tuple(palette.IDLE)
    assert session.snapshot().jobs.state_of(session.snapshot().jobs.row(1)).value == "CA"
    assert "$ scancel 1\n" in win.console.output.toPlainText()
    # and on the screen: the cell's pixel is the idle colour
    shown = graphics.viewport().grab().toImage().pixelColor(target)
    assert (shown.red(), shown.green(), shown.blue()) == tuple(int(v) for v in palette.IDLE[:3])


def test_gantt_right_click_opens_the_job_menu_and_details(qtbot: QtBot, two_clusters: Path) -> None:
    session = queued_session(two_clusters)
    run_to(session, 601.0)  # job 1 ran 0..300, job 2 runs from 300
    win = open_window(qtbot, session)
    win.gantt.follow = False
    win.gantt.plot.setXRange(0, 0.25, padding=0)
    win.refresh()
    qtbot.wait(50)
    plot = win.gantt.plot
    on_job2 = plot_point(plot, 400 / 3600, 0.5)  # node 0 at t = 400 s
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.RightButton, pos=on_job2)
    menu = win.job_menu
    assert menu is not None and menu.job.label == "2" and win.selection.job_id == 2
    details = menu.show_details()
    assert details.text.toPlainText() == session.command("scontrol show job 2").stdout
    assert "JobId=2 " in details.text.toPlainText()
    # off any job, the plot's own menu, not a job menu
    win.job_menu = None
    empty = plot_point(plot, 400 / 3600, 3.5)  # cluster c1: idle
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.RightButton, pos=empty)
    assert win.job_menu is None


def test_submit_dialog_composes_and_runs_sbatch(qtbot: QtBot, two_clusters: Path) -> None:
    session = daemon(two_clusters, "easy")
    win = open_window(qtbot, session)
    dialog = win.submit_dialog()
    qtbot.keyClicks(dialog.name, "sim")
    dialog.clusters.setCurrentText("c1")
    dialog.tasks.setValue(3)
    dialog.time.clear()
    qtbot.keyClicks(dialog.time, "30")
    qtbot.keyClicks(dialog.runtime, "2:00")
    dialog.wrap.clear()
    qtbot.keyClicks(dialog.wrap, "srun ./sim --steps 10")
    line = "sbatch -J sim -M c1 -n 3 -t 30 --emulate-runtime 2:00 --wrap 'srun ./sim --steps 10'"
    assert dialog.line.toPlainText() == line
    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    assert dialog.output.text() == "Submitted batch job 1 on cluster c1"
    assert win.console.output.toPlainText().startswith(f"$ {line}\nSubmitted batch job 1")
    jobs = session.snapshot().jobs
    row = jobs.row(1)
    assert row is not None and jobs.name[row] == "sim" and int(jobs.cores[row]) == 3
    assert float(jobs.time_limit[row]) == 1800.0
    assert win.queue.model.table()[0][:4] == ("c1", "1", "p", "sim")
    run_to(session, 121.0)  # --emulate-runtime: it ran two minutes
    assert session.snapshot().jobs.state_of(row).value == "CD"


def test_submit_dialog_script_and_errors(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(platform_file(tmp_path, 2, cores=2), "easy", user="carol")
    win = open_window(qtbot, session)
    dialog = win.submit_dialog()
    dialog.use_script.click()
    dialog.script.setPlainText("#!/bin/bash\n#SBATCH -J fromscript\nsleep 60")
    expected = "sbatch -t 10 <<'EOF'\n#!/bin/bash\n#SBATCH -J fromscript\nsleep 60\nEOF"
    assert dialog.line.toPlainText() == expected and not dialog.wrap.isEnabled()
    dialog.submit()
    assert dialog.output.text() == "Submitted batch job 1"
    console = win.console.output.toPlainText()
    assert console.startswith(
        "carol$ sbatch -t 10 <<'EOF'\n> #!/bin/bash\n> #SBATCH -J fromscript\n> sleep 60\n> EOF\n"
    )
    jobs = session.snapshot().jobs
    assert jobs.name[jobs.row(1)] == "fromscript"  # sbatch read the script's directives
    run_to(session, 61.0)  # the script's sleep is its run time
    assert session.snapshot().jobs.state_of(jobs.row(1)).value == "CD"

    # sbatch's own error, and no job
    qtbot.keyClicks(dialog.array, "1-x")
    result = dialog.submit()
    assert result.exit_code == 1 and dialog.output.text() == result.stderr.strip()
    assert result.stderr == (
        "sbatch: error: Batch job submission failed: Invalid job array specification\n"
    )
    assert "e05050" in dialog.output.styleSheet()
    assert len(session.snapshot().jobs) == 1
    assert not math.isnan(float(session.snapshot().jobs.end[0]))


def test_the_menu_is_the_windows_single_job_menu(qtbot: QtBot, two_clusters: Path) -> None:
    session = queued_session(two_clusters)
    win = open_window(qtbot, session)
    win.selection.request_menu(2, QPoint(10, 10))
    first = win.job_menu
    win.selection.request_menu(1, QPoint(10, 10))
    assert win.job_menu is not first and win.job_menu is not None
    assert win.job_menu.job.label == "1" and win.selection.job_id == 1
