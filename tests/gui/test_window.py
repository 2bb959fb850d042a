"""The window under pytest-qt (offscreen): each test checks what a view shows."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetrics, QImage
from pytestqt.qtbot import QtBot

from emulator.child import ChildSession, Feed
from emulator.model.job import Request, Submission
from emulator.model.platform import Platform
from emulator.session import DEMO_PLATFORM, Session, demo_session
from gui import palette, presentation
from gui.views.nodes import CELL
from gui.window import MainWindow
from resources import platform_path
from tests.gui.helpers import (
    FakeClock,
    daemon,
    open_window,
    run_to,
    single_cluster_file,
    tab_bars,
)
from tests.gui.test_files import SWF_HEADER, swf_line

SMALL = """name = "small"

[[clusters]]
name = "c"
link_capacity = 10.0
""" + "".join(
    f"""
[[clusters.nodes]]
names = "{names}"
cores = 2
speed = {speed}
"""
    for names, speed in (("c[1-2]", 1.0), ("c[3-4]", 2.0))
)


def small_platform(directory: Path) -> Path:
    """One cluster of four 2-core nodes, speeds 1, 1, 2, 2."""
    path = directory / "small.toml"
    path.write_text(SMALL, encoding="utf-8")
    return path


def demo() -> ChildSession:
    """``batchlab gui --demo``'s daemon."""
    return daemon(platform_path(DEMO_PLATFORM), "easy", feed=Feed(demo=True))


def centre(node: int, width: int) -> tuple[int, int]:
    """(row, column) of the middle of a node's colour block in a cluster image."""
    return (node // width) * CELL + 4, (node % width) * CELL + 4


def test_drained_and_down_nodes_are_striped(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(small_platform(tmp_path), "easy", 'sbatch -n 1 -t 10 --wrap "sleep 300"')
    run_to(session, 1.0)  # job 1 on one core of c1
    assert session.command("scontrol update NodeName=c1 State=DRAIN Reason=fan").exit_code == 0
    assert session.command("scontrol update NodeName=c4 State=DOWN Reason=psu").exit_code == 0
    win = open_window(qtbot, session)
    win.refresh()
    image = win.nodes.image(0)
    job1 = tuple(palette.colours([1])[0])
    drained, down = (tuple(colour) for colour in palette.OUT_OF_SERVICE)
    idle = tuple(palette.IDLE)
    # c1 drains: job 1 in the bottom half of its block, amber stripes over the free half
    assert tuple(image[6, 5]) == job1
    assert (tuple(image[1, 1]), tuple(image[1, 2]), tuple(image[2, 3])) == (drained, idle, drained)
    # c4 is down: red stripes over the whole block; c2 is idle, no stripes
    assert (tuple(image[1, 3 * CELL + 1]), tuple(image[6, 3 * CELL + 2])) == (down, down)
    assert tuple(image[6, 3 * CELL + 3]) == idle
    assert tuple(image[1, CELL + 1]) == idle
    assert "DRAIN: fan (root)" in win.nodes.describe(0, 0) and "job 1" in win.nodes.describe(0, 0)
    assert "DOWN: psu (root)" in win.nodes.describe(0, 3)
    session.command("scontrol update NodeName=c[1,4] State=RESUME")
    win.refresh()
    image = win.nodes.image(0)
    assert tuple(image[1, 3 * CELL + 1]) == tuple(image[1, 1]) == idle


def test_nodes_view_pixels(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(
        small_platform(tmp_path),
        "easy",
        'sbatch -n 4 -t 10 --wrap "sleep 300"',  # job 1 takes c1 and c2
        'sbatch -n 1 -t 10 --wrap "sleep 300"',  # job 2: one core of c3
    )
    run_to(session, 1.0)
    win = open_window(qtbot, session)
    win.refresh()
    image = win.nodes.image(0)
    assert image.shape == (CELL, 4 * CELL, 4)  # one row of four cells
    job1 = palette.colours([1])[0]
    job2 = palette.colours([2])[0]
    assert tuple(image[centre(0, 4)]) == tuple(job1)
    assert tuple(image[centre(1, 4)]) == tuple(job1)
    assert tuple(image[centre(3, 4)]) == tuple(palette.IDLE)
    # c3 is half busy: job 2's colour in the bottom half of the block, idle above
    assert tuple(image[6, 2 * CELL + 4]) == tuple(job2)
    assert tuple(image[1, 2 * CELL + 4]) == tuple(palette.IDLE)
    # the speed bar: full under the speed-2 nodes, half under the speed-1 nodes
    assert tuple(image[8, 3 * CELL + 8]) == tuple(palette.SPEED)
    assert tuple(image[8, 0 * CELL + 4]) == tuple(palette.SPEED)
    assert tuple(image[8, 0 * CELL + 6]) == tuple(palette.SPEED_TRACK)

    # what is on screen: map a block's centre to the widget and read the grabbed pixel
    qtbot.wait(50)  # let the layout give the view its size
    item = win.nodes.images[0]
    graphics = win.nodes.graphics
    shown = graphics.viewport().grab().toImage()

    def pixel(x: float, y: float) -> tuple[int, int, int]:
        colour = shown.pixelColor(graphics.mapFromScene(item.mapToScene(QPointF(x, y))))
        return colour.red(), colour.green(), colour.blue()

    # (laid out to fill the view's box now: the fourth node's cell wherever the grid put it)
    row, column = divmod(3, win.nodes.columns(0))
    x3, y3 = column * CELL, row * CELL
    assert pixel(0 * CELL + 4.5, 4.5) == tuple(int(v) for v in job1[:3])
    assert pixel(x3 + 4.5, y3 + 4.5) == tuple(int(v) for v in palette.IDLE[:3])

    # hover text, and a click selects the job everywhere (white ring around its nodes)
    assert item.node_at(4, 4) == 0 and item.node_at(x3 + 4, y3 + 4) == 3
    assert "c1" in win.nodes.describe(0, 0) and "job 1 wrap (root)" in win.nodes.describe(0, 0)
    win.selection.select(1)
    image = win.nodes.image(0)
    assert tuple(image[0, 4]) == tuple(palette.SELECTED)
    assert tuple(image[y3, x3 + 4]) == tuple(palette.BACKGROUND)
    assert win.queue.table.selectionModel().selectedRows()[0].row() == win.queue.model.position_of(
        1
    )
    assert win.gantt.highlight.path().elementCount() == 5  # one rectangle outlined


def test_queue_table_equals_squeue(qtbot: QtBot) -> None:
    session, twin = demo(), demo_session()  # the daemon's, and the same in this process
    run_to(session, 2400.0)
    twin.run_until(2400)
    lines = (
        ('sbatch -M north -N 8 -n 32 -t 60 -J whole --wrap "sleep 600"', None),
        ('sbatch -M east -H -n 2 -t 10 -J held --wrap "sleep 60"', "carol"),
    )
    for line, user in lines:
        assert session.command(line if user is None else f"as {user} {line}").exit_code == 0
        twin.command(line, user=user)
    run_to(session, 2401.0)
    twin.advance(1)
    win = open_window(qtbot, session)
    win.refresh()
    model = win.queue.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    table = twin.queue_table()  # squeue -r -M all, the same columns
    assert tuple(headers) == table.headers
    assert model.table() == list(table.rows)
    assert model.rowCount() > 3 and any(row[5] == "PD" for row in table.rows)
    # the text of an ordinary squeue, column by column
    plain = session.command("squeue -M all -h -r").stdout.split("\n")
    first = next(line.split() for line in plain if line.strip() and "CLUSTER" not in line)
    assert first[0] == model.table()[0][1]

    # sorting by NODES (descending), then filtering on a user
    win.queue.table.sortByColumn(7, Qt.SortOrder.DescendingOrder)
    nodes = [int(row[7]) for row in model.table()]
    assert nodes == sorted(nodes, reverse=True)
    qtbot.keyClicks(win.queue.filter, "alice")
    assert model.rowCount() and all("alice" in " ".join(row) for row in model.table())
    assert len(model.table()) < len(table.rows)


def workload(directory: Path) -> ChildSession:
    """A daemon on one single-core node fed jobs 1, 2, 3 arriving at 10, 20, 30 s (limits of
    100 s, running 50)."""
    trace = directory / "three.swf"
    trace.write_text(SWF_HEADER + "".join(swf_line(i, 10 * i, 50, 1, 100) for i in (1, 2, 3)))
    return daemon(single_cluster_file(directory, 1), "fcfs", feed=Feed(workload=trace))


def workload_session() -> Session:
    """:func:`workload`'s, in this process."""
    session = Session(Platform.single_cluster(1), "fcfs")
    session.submit_workload(
        Submission(i, 10.0 * i, Request(tasks=1, time_limit=100), 50.0) for i in (1, 2, 3)
    )
    return session


def test_pause_stops_the_clock_and_play_follows_it(qtbot: QtBot, tmp_path: Path) -> None:
    clock = FakeClock()
    session = workload(tmp_path)
    win = open_window(qtbot, session, clock)
    assert not win.driver.playing
    win.tick()
    win.tick()
    assert session.now == 0.0  # paused
    win.set_speed(600.0)
    win.play()  # the daemon's clock plays, at 600x
    assert session.steer("show")["clock"]["paused"] is False
    qtbot.waitUntil(lambda: session.now > 0.0, timeout=10000)
    win.pause()
    assert session.steer("show")["clock"]["paused"] is True
    stopped = session.now
    win.tick()
    assert "paused" in win.clock.text()
    # and the real timer too: paused, its ticks change nothing
    win.timer.start()
    qtbot.wait(150)
    assert session.now == stopped and not win.play_action.isChecked()


def test_each_pair_of_tabbed_docks_has_one_tab_bar(qtbot: QtBot) -> None:
    win = MainWindow(demo())  # (tabbed before shown, Qt 6.11 drew a tab bar twice)
    assert tab_bars(qtbot, win) == [
        ("Console", "Event log", "Moves", "Routes"),
        ("Metrics", "Links", "Sites"),
    ]


def test_a_tick_leaves_the_timer_s_schedule_alone(qtbot: QtBot, tmp_path: Path) -> None:
    """The timer fires every FRAME_MS from its start, however long a tick takes (a timer
    restarted at the end of each tick would fire a tick's length late)."""

    from gui.clock_window import FRAME_MS

    win = open_window(qtbot, workload(tmp_path))
    win.play()
    win.timer.start()
    time.sleep(0.015)  # as a tick's work would take
    win.tick()
    assert win.timer.interval() == FRAME_MS
    assert win.timer.remainingTime() <= FRAME_MS - 10


def test_step_advances_exactly_one_event(qtbot: QtBot, tmp_path: Path) -> None:
    session = workload(tmp_path)
    twin = workload_session()
    win = open_window(qtbot, session)
    for _ in range(4):
        assert win.step()
        twin.step()
        mine, theirs = session.snapshot().jobs, twin.snapshot().jobs
        assert session.now == twin.now
        assert mine.state.tolist() == theirs.state.tolist()
    assert session.now == 60.0  # arrivals at 10, 20, 30, then job 1's end
    assert session.snapshot().jobs.state_of(1).value == "R"
    assert not win.driver.playing and win.play_action.text() == "Play"


def test_scheduler_chooser_switches_the_policy(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 4), "easy")
    win = open_window(qtbot, session)
    names = [win.chooser.itemText(i) for i in range(win.chooser.count())]
    assert {"easy", "fcfs", "cbf"} <= set(names)
    win.chooser.setCurrentText("fcfs")
    win.chooser.activated.emit(win.chooser.currentIndex())
    assert session.scheduler == "fcfs"
    assert "scheduler fcfs from the next pass" in win.statusBar().currentMessage()
    assert not win.choose("no-such-policy")
    assert session.scheduler == "fcfs" and "no-such-policy" in win.statusBar().currentMessage()
    assert win.choose("cbf") and session.scheduler == "cbf"


def test_console_prints_what_the_command_returns(qtbot: QtBot, tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 4), "easy")
    win = open_window(qtbot, session)
    console = win.console
    qtbot.keyClicks(console.input, 'sbatch -n 2 -t 5 --wrap "sleep 60"')
    qtbot.keyClick(console.input, Qt.Key.Key_Return)
    run_to(session, 1.0)
    qtbot.keyClicks(console.input, "squeue")
    qtbot.keyClick(console.input, Qt.Key.Key_Return)
    expected = session.command("squeue")  # nothing moved: squeue prints the same again
    text = console.output.toPlainText()
    assert text.startswith('$ sbatch -n 2 -t 5 --wrap "sleep 60"\nSubmitted batch job 1\n')
    assert text.endswith("$ squeue\n" + expected.stdout)
    assert " R " in expected.stdout
    qtbot.keyClicks(console.input, "squeue -j 99")
    qtbot.keyClick(console.input, Qt.Key.Key_Return)
    error = session.command("squeue -j 99")
    assert error.exit_code == 1 and error.stderr
    assert console.output.toPlainText().endswith(f"$ squeue -j 99\n{error.stderr}[exit 1]\n")
    assert console.input.text() == ""


def test_screenshot_writes_a_png(qtbot: QtBot, tmp_path: Path) -> None:
    session = demo()
    win = MainWindow(session)
    qtbot.addWidget(win)
    win.show()
    path = tmp_path / "shot.png"
    with qtbot.waitSignal(win.finished, timeout=20000):
        win.screenshot_at(1800.0, path)
    assert session.now == 1800.0
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    # every view on screen, none behind another's tab, in a window tall enough for them
    assert QImage(str(path)).size().toTuple() == (1600, 1200)
    hidden = [title for title, dock in win.docks.items() if dock.visibleRegion().isEmpty()]
    assert hidden == []
    assert not math.isnan(float(np.sum(session.snapshot().metrics.utilization)))


def test_a_window_opened_in_presentation_mode_has_one_tab_bar_per_tab_group(
    qtbot: QtBot,
) -> None:
    presentation.mode().set(True)
    try:
        win = MainWindow(demo())
        assert tab_bars(qtbot, win) == [
            ("Console", "Event log", "Moves", "Routes"),
            ("Metrics", "Links", "Sites"),
        ]
    finally:
        presentation.mode().set(False)


def test_even_tick_steps_label_the_top_of_the_range() -> None:
    from gui.views.metrics import even_step

    # two intervals where pyqtgraph can label them exactly (its decimals follow the step)
    assert even_step(200.0, 2) == 100.0  # 0, 100, 200
    assert even_step(1.0, 2) == 0.5
    assert even_step(1.0, 3) == 0.5  # (0.333 would print 0.3): two intervals
    assert even_step(6.0, 4) == 2.0
    assert even_step(200.0, 5) == 40.0
    # 1.5 / 2 = 0.75 reads "0.8", 1.5 reads "2": the next nice step, the top unlabelled
    assert even_step(1.5, 2) == 0.8


def test_presentation_mode_metrics_are_readable_at_1280_by_800(qtbot: QtBot) -> None:
    """Large tick labels, at least three a plot (0, halfway, the top: labelled, on an axis wide
    enough), and the larger share of the right-hand column for the metrics."""
    session = demo()
    run_to(session, 4 * 3600.0)
    presentation.mode().set(True)
    try:
        win = MainWindow(session)
        win.resize(1280, 800)
        qtbot.addWidget(win)
        win.show()
        qtbot.waitExposed(win)
        qtbot.wait(100)  # (the docks' layout settles)
        win.refresh()
        docks = win.docks
        assert docks["Metrics"].height() > 1.2 * docks["Queues"].height()
        metrics = win.metrics
        for field, plot in zip(metrics.curves, metrics.plots, strict=True):
            axis = plot.getAxis("left")
            assert axis.style["tickFont"].pointSizeF() == presentation.TICK_POINTS
            low, high = metrics.y_ranges[field].current
            values = axis.tickValues(*plot.getViewBox().viewRange()[1], plot.height())[0][1]
            assert len(values) >= 3 and values[0] == low and values[-1] == pytest.approx(high)
            font = QFontMetrics(axis.style["tickFont"])
            widest = max(font.horizontalAdvance(t) for t in axis.tickStrings(values, 1, 1))
            assert axis.width() >= widest + axis.style["tickLength"]
            # the labels do not overlap: a text line apart at least
            step = plot.getViewBox().height() * (values[1] - values[0]) / (high - low)
            assert step >= font.height()
    finally:
        presentation.mode().set(False)


def test_presentation_mode_switched_on_in_an_open_window_enlarges_the_gantt_legend(
    qtbot: QtBot,
) -> None:
    session = demo()
    run_to(session, 4 * 3600.0)  # (job ids on the Gantt chart)
    win = MainWindow(session)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    before = win.gantt.legend.font().pointSizeF()
    presentation.mode().set(True)
    try:
        assert win.gantt.legend.font().pointSizeF() == presentation.TEXT_POINTS > before
        assert win.docks["Gantt"].font().pointSizeF() == presentation.TEXT_POINTS
        labels = [text for text in win.gantt.labels if text.isVisible()]  # job ids
        assert labels and all(
            text.font().pointSizeF() == presentation.TEXT_POINTS for text in labels
        )
    finally:
        presentation.mode().set(False)
    assert win.gantt.legend.font().pointSizeF() == before
