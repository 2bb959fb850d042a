"""The File menu's work, called with paths (the dialogs only pick them): opening platforms,
workloads and command files as ``batchlab gui`` does, exporting views, saving results as
``batchlab replay`` writes them; errors leave the session as it was."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from emulator.child import Feed
from emulator.cli import main
from emulator.model.platform import Platform
from emulator.model.platform_file import PlatformError, load_platform
from emulator.session import Session, open_session
from gui import palette
from gui.scenario import Scenario
from gui.views.nodes import CELL
from gui.window import MainWindow
from resources import platform_path
from tests.gui.helpers import (
    daemon,
    open_window,
    run_idle,
    run_to,
    single_cluster_file,
    widget_point,
)

ROOT = Path(__file__).resolve().parents[2]
TEACHING = ROOT / "resources" / "commands" / "teaching-scenario.txt"
SWF_HEADER = "; MaxProcs: 4\n"


def swf_line(job: int, submit: int, run: int, procs: int, limit: int) -> str:
    fields = [job, submit, -1, run, procs, -1, -1, procs, limit, -1, 1, 1, 1, 1, 1, 1, -1, -1]
    return " ".join(str(v) for v in fields) + "\n"


def small_trace(path: Path) -> Path:
    path.write_text(
        SWF_HEADER
        + swf_line(1, 0, 100, 2, 200)
        + swf_line(2, 10, 300, 4, 400)
        + swf_line(3, 20, 50, 1, 100)
        + swf_line(4, 30, 80, 3, 100)
        + swf_line(5, 400, 10, 1, 60)
    )
    return path


def four_cores(qtbot: QtBot, directory: Path, scheduler: str) -> MainWindow:
    """A window on its own daemon of four single-core nodes, as ``batchlab gui --platform``
    opens it."""
    scenario = Scenario(single_cluster_file(directory, 4))
    return open_window(qtbot, scenario.open(scheduler), scenario=scenario)


def test_open_platform_replaces_the_session_and_the_views(qtbot: QtBot, tmp_path: Path) -> None:
    win = four_cores(qtbot, tmp_path, "cbf")
    session = win.session
    assert win.files.open_platform(platform_path("teaching-3sites"))
    new = win.session
    assert new is not session and new.platform.name == "teaching-3sites"
    assert new.scheduler == "cbf" and win.chooser.currentText() == "cbf"  # the scheduler stays
    assert len(win.nodes.images) == 3 and win.windowTitle() == "batchlab — teaching-3sites"
    assert win.docks["Nodes"].widget() is win.nodes and win.nodes.selection is win.selection
    # the new session is live in every control: a command, a step, the views
    win.console.run('sbatch -M north -n 2 -t 10 --wrap "sleep 60"')
    assert win.step()
    assert session.child.process.poll() is not None  # the old daemon stopped
    twin = Session(load_platform(platform_path("teaching-3sites")), "cbf")
    twin.command('sbatch -M north -n 2 -t 10 --wrap "sleep 60"')
    twin.run_until(0.0)
    assert win.queue.model.table() == list(twin.queue_table().rows)
    jobs = new.snapshot().jobs
    assert jobs.state_of(0).value == "R"
    node = int(new.snapshot().clusters[0].job[0])
    assert tuple(win.nodes.image(0)[4, 4]) == tuple(palette.colours([node])[0])


def test_open_platform_errors_leave_the_session(qtbot: QtBot, tmp_path: Path) -> None:
    win = four_cores(qtbot, tmp_path, "easy")
    session = win.session
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[clusters]]\nname = 3\n')
    with pytest.raises(PlatformError) as raised:
        load_platform(bad)
    assert not win.files.open_platform(bad)
    assert win.session is session and win.docks["Nodes"].widget() is win.nodes
    assert win.files.message is not None and win.files.message.text() == str(raised.value)
    assert not win.files.open_platform(tmp_path / "none.toml")
    assert "cannot read" in win.files.message.text() and win.session is session


def test_open_workload_runs_it_as_batchlab_gui_would(qtbot: QtBot, tmp_path: Path) -> None:
    trace = small_trace(tmp_path / "small.swf")
    platform = Platform.single_cluster(4)
    win = four_cores(qtbot, tmp_path, "fcfs")
    assert win.files.open_workload(trace)
    twin = open_session(platform, "fcfs", workload=trace)  # batchlab gui --workload's in-process
    run_to(win.session, 150.0)
    twin.run_until(150)
    win.refresh()
    assert win.queue.model.table() == list(twin.queue_table().rows)
    assert len(win.queue.model.table()) == 3  # job 1 ended; 2 runs; 3 and 4 wait
    assert win.scenario is not None and win.compare_action.isEnabled()
    assert win.scenario.feed == Feed(workload=trace)  # Compare runs the same files
    other = win.scenario.open("easy")
    run_to(other, 150.0)
    assert other.scheduler == "easy" and other.snapshot().jobs.label == twin.snapshot().jobs.label
    other.close()


def test_open_workload_errors_name_the_line(qtbot: QtBot, tmp_path: Path) -> None:
    win = four_cores(qtbot, tmp_path, "easy")
    session = win.session
    trace = tmp_path / "broken.swf"
    trace.write_text(SWF_HEADER + swf_line(1, 0, 100, 2, 200) + "2 10 -1 300\n")
    assert not win.files.open_workload(trace)
    assert win.files.message is not None
    assert win.files.message.text() == f"{trace}:3: expected 18 fields, found 4"
    gz = tmp_path / "cut.swf.gz"
    gz.write_bytes(gzip.compress(trace.read_bytes())[:30])  # cut short
    assert not win.files.open_workload(gz)
    assert win.files.message.text().startswith(f"{gz}: cannot read:")
    assert not win.files.open_workload(tmp_path / "none.swf")
    assert win.files.message.text() == f"no such workload file: {tmp_path / 'none.swf'}"
    assert win.session is session


def test_open_command_file(qtbot: QtBot, tmp_path: Path) -> None:
    lab = load_platform(platform_path("lab"))
    scenario = Scenario(platform_path("lab"))
    win = open_window(qtbot, scenario.open("easy"), scenario=scenario)
    assert win.files.open_commands(TEACHING)
    session = win.session
    assert session.idle  # the file ends with "wait"
    text = win.console.output.toPlainText()
    twin = open_session(lab, "easy", commands=TEACHING)
    assert text == "".join(twin.transcript)
    assert text.startswith("$ @ 09:00:00\n$ sinfo\n") and "Submitted batch job 1" in text
    # a command file the runner rejects: its message, and the old session stays
    bad = tmp_path / "bad.txt"
    bad.write_text("sinfo\n@ soon\n")
    assert not win.files.open_commands(bad)
    assert win.files.message is not None
    assert win.files.message.text() == f"{bad}:2: invalid time 'soon'"
    assert win.session is session


def test_export_view_writes_what_is_drawn(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(
        single_cluster_file(tmp_path, 4), "easy", 'sbatch -n 2 -t 10 --wrap "sleep 300"'
    )
    run_to(session, 1.0)
    win = open_window(qtbot, session)
    qtbot.wait(50)
    path = tmp_path / "nodes.png"
    assert win.files.export_view("Nodes", path)
    image = QImage(str(path))
    assert image.size() == win.nodes.size()

    def pixel(x: float, y: float) -> tuple[int, int, int]:
        """The exported pixel where the view draws image point (x, y) of cluster 0."""
        graphics = win.nodes.graphics
        point = graphics.mapTo(win.nodes, widget_point(graphics, win.nodes.images[0], x, y))
        colour = image.pixelColor(point)
        return colour.red(), colour.green(), colour.blue()

    assert pixel(4.5, 4.5) == palette.colour(1)  # job 1's first node
    assert pixel(3 * CELL + 4.5, 4.5) == tuple(int(v) for v in palette.IDLE[:3])
    # any view: the Links view (behind the Metrics tab) is brought forward, then written
    assert win.files.export_view("Links", tmp_path / "links.png")
    links = QImage(str(tmp_path / "links.png"))
    assert links.size() == win.links.size() and links.width() > 100
    assert win.links.isVisible()
    assert not win.files.export_view("Gantt", tmp_path / "missing" / "gantt.png")
    assert "cannot write" in win.files.message.text()


def test_save_results_writes_what_batchlab_replay_writes(qtbot: QtBot, tmp_path: Path) -> None:
    trace = small_trace(tmp_path / "small.swf")
    replayed = tmp_path / "replay"
    status = main(["replay", str(trace), "--cores", "4", "-s", "fcfs", "-o", str(replayed), "-q"])
    assert status == 0
    win = four_cores(qtbot, tmp_path, "fcfs")
    assert win.files.open_workload(trace)
    run_idle(win.session)
    saved = tmp_path / "saved"
    assert win.files.save_results(saved)
    assert (saved / "jobs.csv").read_text() == (replayed / "jobs.csv").read_text()
    ours = json.loads((saved / "summary.json").read_text())
    theirs = json.loads((replayed / "summary.json").read_text())
    for key in ("jobs", "makespan", "utilization", "mean_wait", "mean_bounded_slowdown"):
        assert ours[key] == theirs[key]
    assert ours["scheduler"] == "fcfs" and ours["now"] == win.session.now
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert not win.files.save_results(blocked)
    assert win.files.message is not None and "file" in win.files.message.text()
