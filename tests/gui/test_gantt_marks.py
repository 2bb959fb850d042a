"""The Gantt chart's marks: co-allocations linked across cluster bands, reservations outlined at
their planned place, a time axis in simulated clock time that follows the clock."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtGui import QPainterPath
from pytestqt.qtbot import QtBot

from gui.views.clock import ClockAxis, label, spacing
from gui.views.gantt import GROWTH, HOUR, LINK, coallocation_links
from tests.gui.helpers import (
    daemon,
    open_window,
    platform_file,
    plot_point,
    run_to,
    single_cluster_file,
)

ORIGIN = datetime(2026, 11, 22, tzinfo=UTC).timestamp()


def points(path: QPainterPath) -> list[tuple[float, float]]:
    return [(path.elementAt(i).x, path.elementAt(i).y) for i in range(path.elementCount())]


def test_coallocated_job_is_linked_across_clusters(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(
        platform_file(tmp_path, 2, 2, 2),
        "coalloc",
        'sbatch -n 3 -t 10 -J wide --wrap "sleep 600"',  # more than any cluster
        'sbatch -M c2 -n 1 -t 10 -J narrow --wrap "sleep 600"',
    )
    run_to(session, 60.0)
    jobs = session.snapshot().jobs
    wide = jobs.row(1)
    assert wide is not None and jobs.nodes[wide] == (0, 1, 2)  # c0n1, c0n2, c1n1
    win = open_window(qtbot, session)
    win.gantt.follow = False
    win.gantt.plot.setXRange(0, 0.05, padding=0)
    win.refresh()
    assert win.gantt.links.path().isEmpty()  # no job selected: no bar (no barcode)
    win.selection.select(1)
    # one link (job 2, on c2 alone, has none): at job 1's start, from the top of its c0 rows
    # to the bottom of its c1 row
    assert points(win.gantt.links.path()) == [(0.0, 0.0), (0.0, 3.0)]
    # on the screen: the link's colour just left of the job's start, halfway down
    qtbot.wait(50)
    plot = win.gantt.plot
    image = plot.viewport().grab().toImage()
    at = plot_point(plot, 0.0, 1.5)
    found = {
        (c.red(), c.green(), c.blue())
        for c in (image.pixelColor(at.x() + dx, at.y()) for dx in (-1, 0, 1))
    }
    assert LINK in found


def test_links_from_arrays() -> None:
    firsts = np.array([0, 4, 8])
    x0 = np.array([1.0, 1.0, 2.0, 3.0, 3.0])
    y0 = np.array([2.0, 8.0, 0.0, 3.0, 4.0])  # job 7: c0 and c2; job 8: c0; job 9: c0 + c1
    y1 = np.array([4.0, 9.0, 4.0, 4.0, 6.0])
    ids = np.array([7.0, 7.0, 8.0, 9.0, 9.0])
    x, top, bottom = coallocation_links(x0, y0, y1, ids, firsts)
    assert x.tolist() == [1.0, 3.0] and top.tolist() == [2.0, 3.0]
    assert bottom.tolist() == [9.0, 6.0]
    one = coallocation_links(x0, y0, y1, ids, np.array([0]))
    assert all(part.size == 0 for part in one)


def test_reservation_outline_at_the_planned_start(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(
        single_cluster_file(tmp_path, 4),
        "easy",
        'sbatch -n 4 -t 10 --wrap "sleep 300"',  # runs until 600 at the latest
        'sbatch -n 4 -t 5 --wrap "sleep 60"',  # EASY reserves the machine at 600
    )
    run_to(session, 1.0)
    jobs = session.snapshot().jobs
    planned = float(jobs.planned_start[jobs.row(2)])
    assert planned == 600.0
    win = open_window(qtbot, session)
    win.refresh()
    x0, x1, y0, y1, ids = win.gantt.reservations(session.snapshot())
    assert (x0.tolist(), x1.tolist(), ids.tolist()) == ([planned / HOUR], [900 / HOUR], [2.0])
    assert (y0.tolist(), y1.tolist()) == ([0.0], [4.0])  # all four nodes, from the top
    corners = points(win.gantt.reserved.path())
    assert corners[0] == (planned / HOUR, 0.0) and corners[2] == (900 / HOUR, 4.0)
    # the START column says the same, in squeue's words
    position = win.queue.model.position_of(2)
    assert position is not None
    assert win.queue.model.table()[position][8] == "2026-11-22T00:10:00"
    # the outline is the job's: a right click inside it opens job 2's menu
    assert win.gantt.job_at(700 / HOUR, 2.5) == 2 and win.gantt.job_at(950 / HOUR, 2.5) is None


def test_time_axis_reads_the_simulated_clock(qtbot: QtBot) -> None:  # (an axis needs the app)
    assert spacing(12 * 3600, 1000) == 3600 and spacing(600, 700) == 60
    assert spacing(10 * 86400, 300) == 3 * 86400
    assert label(ORIGIN, 3600) == "Nov 22" and label(ORIGIN + 5400, 1800) == "01:30"
    assert label(ORIGIN + 30, 10) == "00:00:30" and label(ORIGIN + 86400, 86400) == "Nov 23"
    axis = ClockAxis(HOUR)
    axis.set_origin(ORIGIN + 1000)  # simulated 0 is 00:16:40: ticks still fall on the hour
    (major, values), *_ = axis.tickValues(0.0, 4.0, 400)
    assert major == 1.0
    assert [round(v * HOUR) for v in values] == [2600, 6200, 9800, 13400]
    assert axis.tickStrings(values, 1.0, major) == ["01:00", "02:00", "03:00", "04:00"]


def test_time_axis_follows_the_clock(qtbot: QtBot, tmp_path: Path) -> None:
    line = 'sbatch -n 1 -t 2-0 --wrap "sleep 100000"'
    session = daemon(single_cluster_file(tmp_path, 2), "easy", line)
    win = open_window(qtbot, session)
    run_to(session, 30 * 3600.0)
    win.refresh()
    assert win.gantt.axis.origin == session.origin
    low, high = win.gantt.plot.getViewBox().viewRange()[0]
    now = session.now / HOUR
    # fitted to the data: from 0 (the job's start) to the clock, with room to grow
    assert low == 0.0 and now <= high <= GROWTH * GROWTH * now
    assert win.gantt.rectangles == 1 and not math.isnan(low)
    # zoom and pan in time only: the node axis keeps every node in view
    assert not win.gantt.plot.getViewBox().state["mouseEnabled"][1]


def test_the_time_axis_names_the_dates_shown(qtbot: QtBot, tmp_path: Path) -> None:
    line = 'sbatch -n 1 -t 3-0 --wrap "sleep 200000"'
    session = daemon(single_cluster_file(tmp_path, 2), "easy", line)
    win = open_window(qtbot, session)
    run_to(session, 50 * 3600.0)  # 2026-11-24 02:00 (simulated 0: Sunday 2026-11-22 00:00)
    win.refresh()
    title = win.gantt.plot.getAxis("bottom").labelText
    assert title == "simulated time (UTC), Sun Nov 22 – Tue Nov 24"
    win.gantt.follow = False  # (as a pan or zoom by hand leaves it)
    win.gantt.plot.setXRange(30.0, 40.0, padding=0)  # zoomed into the second day alone
    win.gantt.redraw()
    assert win.gantt.plot.getAxis("bottom").labelText == "simulated time (UTC), Mon Nov 23"


def test_a_move_is_marked_on_its_job_s_top_row_until_its_start() -> None:
    from gui.views.move_marks import marks, paths
    from gui.views.moves import Move

    def move(job: int, time: float) -> Move:
        return Move(time, job, str(job), "north", "01:00:00", "south", "00:30:00")

    # job 7: two pieces in south (nodes 6-7 and 4-5) from 2 h; job 8: a reservation on node 9
    # from 3 h; job 9 is not drawn (waiting, unplanned)
    rects = tuple(
        np.array(c, np.float64)
        for c in ([2.0, 2.0], [5.0, 5.0], [6.0, 4.0], [8.0, 6.0], [7.0, 7.0])
    )
    reserved = tuple(np.array(c, np.float64) for c in ([3.0], [4.0], [9.0], [10.0], [8.0]))
    found = marks([move(7, 3600.0), move(9, 5400.0), move(8, 3.0 * HOUR)], rects, reserved)
    assert [(m.move.job_id, m.time, m.top, m.bottom, m.start) for m in found] == [
        (7, 1.0, 4.0, 6.0, 2.0),  # its highest piece, nodes 4-5
        (8, 3.0, 9.0, 10.0, 3.0),
    ]
    assert found[0].caption == "7 north→south"
    ticks, waits = paths(found, 0.5)  # half a node per pixel: a tick reaches 3 nodes each way
    assert points(ticks) == [(1.0, 2.0), (1.0, 8.0), (3.0, 6.5), (3.0, 12.5)]
    assert points(waits) == [(1.0, 5.0), (2.0, 5.0)]  # job 8 started when it moved: no wait
