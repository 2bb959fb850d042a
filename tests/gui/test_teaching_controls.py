"""What issue 23 asked of the window for a classroom: the queue's default columns, speed presets
and a run-to field, a View menu that brings every dock back, Help, Quit, the Gantt chart and
the metrics as CSV, and node grids laid out to fill their box."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from gui import palette
from gui.views.nodes import grid_width
from tests.gui.helpers import daemon, open_window, platform_file, run_to, single_cluster_file

JOB = 'sbatch -n 1 -t 10 -J short --wrap "sleep 100"'


@pytest.mark.parametrize(
    ("nodes", "width", "height", "columns"),
    [
        (4, 400, 100, 4),  # one row: cells 100 px (2 x 2 would give 50)
        (4, 100, 100, 2),  # a square box: 2 x 2, cells 50 px (one row: 25)
        (8, 200, 400, 2),  # tall: 2 across, 4 down, cells 100 px (1 across: 50)
        (2500, 600, 150, 100),  # 100 x 25 cells of 6 px fill 600 x 150
        (1, 50, 50, 1),
    ],
)
def test_a_grid_takes_the_columns_that_make_its_cells_largest(
    nodes: int, width: int, height: int, columns: int
) -> None:
    assert grid_width(nodes, width, height) == columns


def test_the_queue_shows_squeue_s_short_columns_and_the_reason_fits(
    qtbot: QtBot, tmp_path: Path
) -> None:
    session = daemon(platform_file(tmp_path, 2, 2), "fcfs", JOB, JOB, JOB, JOB, JOB)
    run_to(session, 1.0)
    win = open_window(qtbot, session)
    win.refresh()
    queue = win.queue
    header = queue.table.horizontalHeader()
    shown = [t for c, t in enumerate(queue.model.headers) if not header.isSectionHidden(c)]
    assert shown == ["JOBID", "NAME", "USER", "ST", "TIME", "NODELIST(REASON)"]
    # the reason column (stretched) ends at the table's right edge: no horizontal scrolling
    reason = queue.model.headers.index("NODELIST(REASON)")
    right = header.sectionViewportPosition(reason) + header.sectionSize(reason)
    assert right == queue.table.viewport().width()
    queue.show_column("START", True)  # the header's menu
    assert not header.isSectionHidden(queue.model.headers.index("START"))


def test_presets_and_run_to_drive_the_clock(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 2), "fcfs", JOB, JOB, JOB)
    win = open_window(qtbot, session)
    assert list(win.presets) == ["1x", "10x", "60x", "600x", "3600x", "max"]
    win.presets["600x"].trigger()
    assert win.driver.speed == 600.0 and win.speed_label.text().strip() == "600x"
    assert session.steer("show")["clock"]["speed"] == 600.0
    win.presets["max"].trigger()
    assert math.isinf(win.driver.speed)
    assert not win.run_to("tomorrow")  # said in the status bar
    assert "run to" in win.statusBar().currentMessage()
    assert win.run_to("00:02")  # 2 minutes: HH:MM as the console's @
    qtbot.waitUntil(lambda: (win.tick(), not win.driver.playing)[1], timeout=30000)
    assert session.now == 120.0 and math.isinf(win.driver.stop_at)  # Play plays on again
    assert "00:02:00" in win.clock.text()


def test_view_menu_restores_closed_docks_and_help_and_quit_exist(
    qtbot: QtBot, tmp_path: Path
) -> None:
    win = open_window(qtbot, daemon(single_cluster_file(tmp_path, 2), "fcfs"))
    view = next(a.menu() for a in win.menuBar().actions() if a.text() == "&View")
    toggles = {a.text(): a for a in view.actions() if a.text() in win.docks}
    assert set(toggles) == set(win.docks)
    win.docks["Queues"].close()
    assert win.docks["Queues"].isHidden()
    toggles["Queues"].trigger()
    assert not win.docks["Queues"].isHidden()
    win.help_action.trigger()
    text = win.help_box.text()  # type: ignore[attr-defined]
    assert "reservation" in text and "F5" in text and "Space" in text
    assert win.quit_action.shortcut().toString() == "Ctrl+Q"


def test_gantt_and_metrics_export_as_csv(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 2), "fcfs", JOB, JOB, JOB)
    run_to(session, 150.0)
    win = open_window(qtbot, session)
    gantt, metrics = tmp_path / "gantt.csv", tmp_path / "metrics.csv"
    assert win.files.export_csv("gantt", gantt) and win.files.export_csv("metrics", metrics)
    rows = list(csv.DictReader(gantt.open()))
    # jobs 1 and 2 ran 0-100 on n001 and n002; job 3 from 100 on the freed node, to the clock
    runs = [(r["job"], r["first_node"], r["start_s"], r["end_s"]) for r in rows]
    assert runs == [
        ("1", "n001", "0", "100"),
        ("2", "n002", "0", "100"),
        ("3", "n001", "100", "150"),
    ]
    assert rows[0]["start"] == "2026-11-22T00:00:00" and rows[2]["state"] == "R"
    samples = list(csv.DictReader(metrics.open()))
    assert samples and samples[-1]["time_s"] == "150"
    assert samples[-1]["utilization"] == "0.5"  # one of two cores busy


def test_the_event_log_filters_by_job_and_prints_clock_times(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 1), "fcfs", JOB, JOB, JOB)
    run_to(session, 250.0)
    win = open_window(qtbot, session)
    win.docks["Event log"].show()
    win.docks["Event log"].raise_()
    win.refresh()
    every = win.events.toPlainText().splitlines()
    assert {row.split()[4] for row in every} == {"1", "2", "3"}  # the job column
    # job 2 started at 100 s: 2026-11-22 00:01:40, printed as month-day and clock time
    panel = win.docks["Event log"].widget()
    panel.filter.setText("2")  # type: ignore[union-attr]
    mine = win.events.toPlainText().splitlines()
    assert mine and all(row.split()[4] == "2" for row in mine)
    assert any(row.startswith("11-22 00:01:40") and "Start" in row for row in mine)
    panel.filter.setText("")  # type: ignore[union-attr]
    assert win.events.toPlainText().splitlines() == every


def test_scontrol_show_job_lists_every_node_of_a_co_allocated_job(tmp_path: Path) -> None:
    session = daemon(
        platform_file(tmp_path, 2, 2, 2),
        "coalloc",
        'sbatch -n 5 -t 10 -J wide --wrap "sleep 600"',  # more than any cluster: over three
    )
    try:
        run_to(session, 60.0)
        jobs = session.snapshot().jobs
        row = jobs.row(1)
        assert row is not None and len(jobs.nodes[row]) == 5
        shown = session.command("scontrol show job 1").stdout.split()
        # c0n1, c0n2, c1n1, c1n2, c2n1 (the cluster's own view listed c0n[1-2] and 2 nodes)
        assert "NodeList=c0n[1-2],c1n[1-2],c2n1" in shown and "NumNodes=5" in shown
        assert "ReqNodeList=(null)" in shown  # left alone
    finally:
        session.close()


MIXED = """name = "mixed"

[[clusters]]
name = "slow"
[[clusters.nodes]]
names = "s[1-2]"
cores = 2
speed = 1.0

[[clusters]]
name = "fast"
[[clusters.nodes]]
names = "f1"
cores = 2
speed = 2.0
[[clusters.nodes]]
names = "f2"
cores = 2
speed = 1.0
"""


def test_the_site_table_is_the_bpu_policy_s_and_follows_jobs(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "mixed.toml"
    path.write_text(MIXED, encoding="utf-8")
    session = daemon(path, "bpu", 'sbatch -M fast -w f1 -n 2 -t 10 --wrap "sleep 100"')
    win = open_window(qtbot, session)
    win.docks["Sites"].show()
    win.docks["Sites"].raise_()
    win.refresh()
    # idle: slow 4 cores x 1 BPU = 4 BPU / 4; fast 2 x 2 + 2 x 1 = 6 BPU / 4 cores
    assert win.sites.table() == [
        ("1", "fast", "4", "4", "6.00", "1.50"),
        ("2", "slow", "4", "4", "4.00", "1.00"),
    ]
    run_to(session, 1.0)  # f1's 2 cores (4 BPU) taken: fast has 2 BPU / 4 = 0.5, now second
    win.refresh()
    assert win.sites.table() == [
        ("1", "slow", "4", "4", "4.00", "1.00"),
        ("2", "fast", "4", "2", "2.00", "0.50"),
    ]
    run_to(session, 101.0)  # the job ended: back as it was
    win.refresh()
    assert win.sites.table()[0][1] == "fast"


def test_an_attached_window_shows_the_daemon_s_speed(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 2), "fcfs", JOB)
    win = open_window(qtbot, session)  # as with --socket: no scenario of its own
    assert not win.driver.stop_when_idle  # another client's clock is left running
    session.steer("speed", 120.0)  # batchlab clock speed 120, from elsewhere
    win.tick()
    assert win.speed_label.text().strip() == "120x" and win.driver.speed == 120.0


def test_a_node_shared_by_two_jobs_shows_both(qtbot: QtBot, tmp_path: Path) -> None:
    line = 'sbatch -n 2 -t 10 --wrap "sleep 100"'
    four = tmp_path / "four.toml"  # one node of 4 cores: two 2-core jobs share it
    four.write_text(
        'name = "one"\n\n[[clusters]]\nname = "c"\n\n[[clusters.nodes]]\n'
        'names = "n1"\ncores = 4\nspeed = 1.0\n',
        encoding="utf-8",
    )
    session = daemon(four, "fcfs", line, line)
    run_to(session, 1.0)
    win = open_window(qtbot, session)
    win.refresh()
    named = int(session.nodes_snapshot()[0].job[0])
    assert named in (1, 2)
    image = win.nodes.image(0)
    # all 4 cores in use: the whole fill; its right half the named job, its left half the other
    right, left = tuple(image[6, 7][:3]), tuple(image[6, 2][:3])
    assert right == palette.colour(named) and left == palette.colour(3 - named)
    tooltip = win.nodes.describe(0, 0)
    assert "4/4 cores busy" in tooltip and "\nand job" in tooltip
    run_to(session, 101.0)  # both ended: an idle cell
    win.refresh()
    assert tuple(win.nodes.image(0)[6, 2][:3]) == tuple(palette.IDLE[:3])
