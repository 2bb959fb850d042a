"""docs/teaching.md, replayed against the window as ``batchlab gui`` runs it (its own daemon):
each step's *Do* is done as the teacher does it (lines typed into the console, the scheduler
box, Step, the Queues table, View > Compare's window) and its *Students see* is checked in what
the window shows.

The steps type the doc's times in full (``@ 03:50:00``), which reads the same under any
interpretation of the console's ``@``; the doc's own short form (``@ 03:50``: 3 h 50 min, the
issue 17 fix) is pinned by :func:`test_the_doc_s_short_times_mean_hours_and_minutes`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from emulator.cli import _parser
from emulator.model.hostlist import expand
from emulator.remote import RemoteSession
from gui import presentation
from gui.cli import _scenario
from gui.compare import CompareWindow
from gui.window import MainWindow
from tests.gui.helpers import REACH_TIMEOUT, FakeClock


def hms(text: str) -> float:
    """Simulated seconds of ``HH:MM:SS``."""
    hours, minutes, seconds = (int(part) for part in text.split(":"))
    return 3600.0 * hours + 60.0 * minutes + seconds


def words(text: str) -> str:
    """``text`` with every run of blanks one space (the views align their columns)."""
    return " ".join(text.split())


def clock(session: RemoteSession) -> dict[str, Any]:
    return dict(session.steer("show")["clock"])


def gui(qtbot: QtBot, *options: str) -> MainWindow:
    """The window of ``batchlab gui OPTIONS`` (on its own daemon), its timer stopped: the test
    ticks it."""
    args = _parser().parse_args(["gui", *options])
    scenario = _scenario(args)
    window = MainWindow(scenario.open(args.scheduler or "easy"), scenario=scenario)
    window.timer.stop()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    presentation.mode().set(args.presentation)
    return window


@pytest.fixture(autouse=True)
def presentation_off() -> Iterator[None]:
    """Presentation mode is application-wide: leave it off for the next test."""
    yield
    presentation.mode().set(False)


def type_line(qtbot: QtBot, window: MainWindow, line: str) -> str:
    """Type ``line`` into the console and press Enter; what the console printed for it. A
    clock line (``@``, ``sleep``) is waited for: the daemon answers it when its clock gets
    there."""
    console = window.console
    before = len(console.output.toPlainText())
    start = clock(window.session)["now"]
    qtbot.keyClicks(console.input, line)
    qtbot.keyClick(console.input, Qt.Key.Key_Return)
    if line.split()[0] in ("@", "sleep"):

        def arrived() -> bool:
            shown = clock(window.session)
            return shown["goals"] == 0 and shown["now"] > start

        qtbot.waitUntil(arrived, timeout=int(REACH_TIMEOUT * 1000))
    window.refresh()
    return console.output.toPlainText()[before:]


def queue(window: MainWindow) -> dict[str, tuple[str, ...]]:
    """The Queues table's rows by job id."""
    window.refresh()
    return {row[1]: row for row in window.queue.model.table()}


def test_the_doc_s_short_times_mean_hours_and_minutes(qtbot: QtBot) -> None:
    win = gui(qtbot, "--demo", "--scheduler", "fcfs", "--paused", "--presentation")
    type_line(qtbot, win, "@ 00:03")
    at_step_1 = clock(win.session)["now"]
    type_line(qtbot, win, "@ 03:50")
    at_step_2 = clock(win.session)["now"]
    assert (at_step_1, at_step_2) == (180.0, hms("03:50:00"))


def test_steps_1_to_4_fcfs_then_easy_at_run_time(qtbot: QtBot) -> None:
    # 1. The platform
    win = gui(qtbot, "--demo", "--scheduler", "fcfs", "--paused", "--presentation")
    assert presentation.mode().on and win.presentation_action.isChecked()
    type_line(qtbot, win, "@ 00:03:00")
    assert len(win.nodes.images) == 3  # one grid per site
    rows = queue(win)
    for job in ("1_1", "1_2", "1_3", "2", "7"):  # on north: three tasks, prep and short1
        assert (rows[job][0], rows[job][5]) == ("north", "R"), rows[job]
    assert (rows["2"][3], rows["7"][3]) == ("prep", "short1")
    assert all(rows[task][8] == "(JobArrayTaskLimit)" for task in ("1_4", "1_5", "1_6"))
    assert "1_[4-6%3]" in type_line(qtbot, win, "squeue")  # squeue folds the pending tasks
    assert (rows["3"][3], rows["3"][8]) == ("post", "(Dependency)")
    win.selection.select(7)  # clicked anywhere: outlined everywhere
    assert win.queue.table.selectionModel().selectedRows()[0].row() == (
        win.queue.model.position_of(7)
    )

    # 2. FCFS: head-of-line blocking
    type_line(qtbot, win, "@ 03:50:00")
    squeue = type_line(qtbot, win, "squeue -M east")
    sinfo = type_line(qtbot, win, "sinfo -M east")
    assert any(line.split()[-2:] == ["idle", "east[01-02]"] for line in sinfo.splitlines())
    rows = queue(win)
    assert (rows["56"][3], rows["56"][8]) == ("wide48", "(Resources)")
    assert (rows["66"][3], rows["66"][8]) == ("short58", "(Priority)")
    assert (rows["67"][3], rows["67"][8]) == ("short59", "(Priority)")
    assert "(Resources)" in words(squeue) and "56" in squeue and "66" in squeue
    assert (rows["62"][3], rows["62"][8]) == ("medium54", "(Resources)")
    assert all(rows[job][8] == "(Priority)" for job in ("63", "64", "65"))
    assert [rows[job][0] for job in ("62", "63", "64", "65")] == ["north"] * 4

    # 3. "Why does my job wait?"
    shown = words(type_line(qtbot, win, "scontrol show job 56"))
    assert "JobState=PENDING Reason=Resources" in shown and "StartTime=Unknown" in shown
    assert "Explanation=FCFS: head of the queue, waits for cores" in shown
    assert "Reason=Priority" in type_line(qtbot, win, "scontrol show job 66")
    table = win.queue.table
    centre = table.visualRect(win.queue.model.index(win.queue.model.position_of(56), 1)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert win.statusBar().currentMessage() == (
        "job 56 wide48 (dave) PD (Resources) — FCFS: head of the queue, waits for cores"
    )

    # 4. Switching to EASY at run time: backfilling
    win.chooser.setCurrentText("easy")
    win.chooser.activated.emit(win.chooser.currentIndex())
    assert win.statusBar().currentMessage() == "scheduler easy from the next pass"
    assert win.step()  # the next pass runs under EASY
    start = words(type_line(qtbot, win, "squeue -M all --start"))
    assert "2026-11-22T04:23:02" in start and "east[01-06]" in start
    win.docks["Event log"].raise_()
    qtbot.waitUntil(lambda: "Event log" in win._visible())
    win.refresh()
    log = words(win.events.toPlainText())
    assert "easy Reserve 56 reserve for t=15782" in log
    for job in (66, 67):
        assert f"easy Start {job} start: EASY: backfilled, ends before the head's reservation" in (
            log
        )
    snapshot = win.session.snapshot()
    x0, x1, _, _, ids = win.gantt.reservations(snapshot)
    (head,) = [k for k, job in enumerate(ids.tolist()) if job == 56]
    assert round(x0[head] * 3600) == hms("04:23:02")  # a dashed outline from 04:23...
    assert round(x1[head] * 3600) // 60 == hms("06:02:00") // 60  # ...to 06:02, its limit
    running = {row[1]: row for row in win.queue.model.table() if row[5] == "R"}
    assert {running["66"][8], running["67"][8]} == {"east01"}  # jobs 66 and 67 take east01
    type_line(qtbot, win, "@ 04:20:00")  # (as Play would, faster): east until about 04:20
    jobs = win.session.snapshot().jobs
    assert math.floor(jobs.start[jobs.row(56)]) == hms("04:16:33")  # before its reservation


def test_step_5_co_allocation_and_link_contention(qtbot: QtBot) -> None:
    win = gui(qtbot, "--demo", "--scheduler", "coalloc", "--paused", "--presentation")
    type_line(qtbot, win, "@ 19:30:00")
    entries = win.session.snapshot().events
    said = {
        words(f"{entry.policy} {entry.kind} {entry.label} {entry.text}"): entry for entry in entries
    }
    wide = (
        "coalloc Start 305 start on 9 nodes: co-allocated over 3 sites (north+east+south): "
        "predicted slowdown 1.45, links saturated (SC 1.73)"
    )
    assert wide in said and math.floor(said[wide].time) == hms("18:54:05")
    shown = words(type_line(qtbot, win, "scontrol show job 305"))
    assert f"Explanation={wide.split(': ', 1)[1]}" in shown  # the same sentence
    earlier = [
        entry
        for entry in entries
        if entry.label == "36" and entry.kind == "Start" and "co-allocated" in entry.text
    ]
    assert len(earlier) == 1 and earlier[0].time // 60 == hms("01:53:00") // 60
    assert "north+south" in earlier[0].text and "predicted slowdown 1.23" in earlier[0].text
    assert "saturated" not in earlier[0].text  # below capacity


def test_step_6_two_schedulers_side_by_side(qtbot: QtBot) -> None:
    args = _parser().parse_args(["gui", "--demo", "--compare", "fcfs", "easy", "--presentation"])
    scenario = _scenario(args)
    win = CompareWindow(*(scenario.open(spec) for spec in args.compare), speed=600.0)
    win.timer.stop()
    qtbot.addWidget(win)
    win.show()
    presentation.mode().set(True)
    assert win.names == ("fcfs", "easy")  # FCFS on the left, EASY on the right
    legend = win.metrics.plots[1].legend
    assert [label.text for _, label in legend.items] == ["fcfs", "easy"]
    win.driver.stop_at = hms("04:00:00")
    win.play()
    wall = FakeClock()
    while win.driver.playing:
        wall.now += 0.01
        win.driver.settle()
        win.tick()
    win.refresh()
    # (on one line if it fits the status bar, else a line each: presentation mode's large text)
    assert win.summary.text().replace("   |   ", "\n").splitlines() == [
        "fcfs: mean wait 188 s, bounded slowdown 1.24, 8 waiting",
        "easy: mean wait 137 s, bounded slowdown 1.13, 2 waiting",
    ]
    # the curves coincide until 02:17:12, when EASY first passes a head; then FCFS's queue
    # and mean wait climb above EASY's
    snapshots = [side.session.snapshot() for side in win.sides]
    fcfs, easy = (snapshot.metrics for snapshot in snapshots)
    parted = hms("02:17:12")
    backfills = [e.time for e in snapshots[1].events if "backfilled" in e.text]
    assert backfills and backfills[0] == parted
    samples = [
        zip(
            metrics.time.tolist(),
            metrics.mean_wait.tolist(),
            metrics.queue_length.tolist(),
            strict=True,
        )
        for metrics in (fcfs, easy)
    ]
    before = [[sample for sample in side if sample[0] < parted] for side in samples]
    assert len(before[0]) > 10 and before[0] == before[1]
    assert fcfs.mean_wait[-1] > easy.mean_wait[-1] and fcfs.queue_length[-1] > easy.queue_length[-1]


def test_extra_node_maintenance(qtbot: QtBot) -> None:
    win = gui(qtbot, "--demo", "--paused")
    type_line(qtbot, win, "@ 03:00:00")
    drain = 'scontrol -M east update NodeName=east[01-02] State=DRAIN Reason="new disks"'
    assert "[exit" not in type_line(qtbot, win, drain)  # the window's user is the operator
    type_line(qtbot, win, "sleep 600")
    east = 1  # the Nodes view's second grid
    for node in (0, 1):  # amber stripes: drained, or draining while a job ends
        assert "DRAIN: new disks (root)" in win.nodes.describe(east, node)
    draining = [  # sinfo's drained (drng: still running a job) nodes
        name
        for fields in (line.split() for line in type_line(qtbot, win, "sinfo -M east").splitlines())
        if len(fields) == 6 and fields[4] in ("drain", "drng")
        for name in expand(fields[5])
    ]
    assert sorted(draining) == ["east01", "east02"]
    reasons = words(type_line(qtbot, win, "sinfo -M east -R"))
    assert "new disks root" in reasons
    down = "scontrol -M east update NodeName=east03 State=DOWN Reason=psu"
    assert "[exit" not in type_line(qtbot, win, down)
    assert "DOWN: psu (root)" in win.nodes.describe(east, 2)
    failed = words(type_line(qtbot, win, "sacct -M east -X -s NF -o JobID,JobName,State,NodeList"))
    assert "53 medium45 NODE_FAIL east[03-04]" in failed  # the job running there is killed
    type_line(qtbot, win, "scontrol -M east update NodeName=east[01-03] State=RESUME")
    assert not any(
        "DRAIN" in win.nodes.describe(east, node) or "DOWN" in win.nodes.describe(east, node)
        for node in (0, 1, 2)
    )


def test_step_7_the_bpu_site_table(qtbot: QtBot) -> None:
    win = gui(qtbot, "--demo", "--scheduler", "bpu", "--paused")
    type_line(qtbot, win, "@ 03:09:33")
    win.docks["Sites"].show()
    win.docks["Sites"].raise_()
    win.refresh()
    before = win.sites.table()
    assert (before[0][1], before[0][5]) == ("east", "1.00")  # the first row, highlighted
    type_line(qtbot, win, "@ 03:09:34")
    win.docks["Event log"].show()  # open the Event log
    win.docks["Event log"].raise_()
    win.refresh()
    log = win.events.toPlainText()
    said = "Start 53 start on 3 nodes: BPU: east (avg free 1.00): 6 x speed 2.0 = 6 tasks"
    assert any(words(line).endswith(words(said)) and "bpu" in line for line in log.splitlines())
    after = {row[1]: row for row in win.sites.table()}
    assert int(after["east"][3]) == int(before[0][3]) - 6  # its six cores gone at once
    type_line(qtbot, win, "@ 03:50")
    assert [(row[1], row[5]) for row in win.sites.table()] == [
        ("east", "0.67"),
        ("south", "0.25"),
        ("north", "0.00"),
    ]


def test_step_8_a_broker_s_route_and_its_figures(qtbot: QtBot) -> None:
    win = gui(qtbot, "--demo", "--scheduler", "mct", "--paused")
    type_line(qtbot, win, "@ 00:03:00")
    win.docks["Event log"].show()  # open the Event log, type 7 in its filter box
    win.docks["Event log"].raise_()
    win.refresh()
    panel = win.docks["Event log"].widget()
    qtbot.keyClicks(panel.filter, "7")  # type: ignore[union-attr]
    figures = (
        "MCT: available south..north (first south); ECT south 00:06:40, east 00:03:20, "
        "north 00:05:00 -> east"
    )
    assert [words(line) for line in win.events.toPlainText().splitlines()] == [
        f"11-22 00:01:34 mct Route 7 route to east: {figures}",
        "11-22 00:01:34 lsf Start 7 start",
    ]
    shown = type_line(qtbot, win, "scontrol show job 7")
    assert "NodeList=east03" in shown.split() and f"Explanation={figures}" in shown
    win.docks["Routes"].show()  # the Routes tab, job 7 selected: its figures as bars
    win.docks["Routes"].raise_()
    job = next(route.job_id for route in win.routes.routes.values() if route.label == "7")
    win.selection.select(job)
    assert (
        win.routes.caption.text() == "job 7: MCT, ECT per site (minutes from the decision) -> east"
    )
    assert win.routes.drawn() == [
        ("south", 400 / 60, False),
        ("east", 200 / 60, True),
        ("north", 300 / 60, False),
    ]


def test_step_9_reallocation_moves_between_queues(qtbot: QtBot) -> None:
    win = gui(qtbot, "--demo", "--scheduler", "realloc", "--paused")
    type_line(qtbot, win, "@ 03:59:59")
    assert win.moves.table() == [] and win.moves.diagram.arrows() == []
    type_line(qtbot, win, "@ 04:00:01")
    win.docks["Moves"].show()  # click the Moves tab
    win.docks["Moves"].raise_()
    win.refresh()
    assert win.moves.table() == [
        ("11-22 04:00:00", "64", "north", "01:21:32", "south", "00:51:57", "00:29:35")
    ]
    assert win.moves.diagram.arrows() == [("north", "south", 1)]
    win.docks["Event log"].show()
    win.docks["Event log"].raise_()
    win.refresh()
    said = (
        "realloc Route 64 route to south: realloc: moved from north (ECT 01:21:32) to south "
        "(ECT 00:51:57), algo 1, mct"
    )
    log = [words(line) for line in win.events.toPlainText().splitlines()]
    assert f"11-22 04:00:00 {said}" in log
    shown = type_line(qtbot, win, "scontrol show job 64")
    assert "Reallocations=1 ReallocatedFrom=north" in words(shown)
    type_line(qtbot, win, "@ 10:00:01")
    assert [(row[1], row[2]) for row in win.moves.table()] == [
        ("157", "north"),
        ("154", "north"),
        ("123", "south"),
        ("64", "north"),
    ]
    assert win.moves.diagram.arrows() == [
        ("north", "east", 1),
        ("north", "south", 2),
        ("south", "east", 1),
    ]
    assert win.moves.diagram.latest == ("north", "east")
    # the Gantt chart marks the moves of the jobs it draws (154 and 157 wait unplanned): a
    # tick at the move's time on the job's top row, in the destination's band, captioned
    marks = win.gantt.move_marks
    assert marks.captions() == ["64 north→south", "123 south→east"]
    snapshot = win.gantt.snapshot
    assert snapshot is not None
    bands = {c.name: (c.first_node, c.first_node + len(c.node_names)) for c in snapshot.clusters}
    jobs = snapshot.jobs
    for mark, at, band in zip(marks.drawn, (4.0, 8.0), ("south", "east"), strict=True):
        assert mark.time == at
        assert bands[band][0] <= mark.top < mark.bottom <= bands[band][1]
        row = jobs.row(mark.move.job_id)
        assert row is not None and mark.start == jobs.start[row] / 3600.0 >= at


def test_step_10_economic_windows_and_their_alternatives(qtbot: QtBot) -> None:
    win = gui(qtbot, "-p", "teaching-3sites", "-c", "economic", "-s", "amp:cycle=0", "--paused")
    win.refresh()
    assert clock(win.session)["now"] == hms("00:21:00")  # the command file ran to its end
    assert win.gantt.window_captions() == ["1: best of 6", "2: best of 5"]
    type_line(qtbot, win, 'sbatch -n 24 -t 60 --min-speed 1.2 -J wide --wrap "sleep 3000"')
    type_line(qtbot, win, 'sbatch -n 8 -t 30 --min-speed 1.2 -J next --wrap "sleep 600"')
    type_line(qtbot, win, "@ 00:21:01")
    assert win.gantt.window_captions() == [
        "1: best of 6",
        "2: best of 5",
        "4: the only alternative",
        "5: best of 6",
    ]
    # job 5's window is reserved: east01 and east02 from 01:01:00, for its 30 min limit
    snapshot = win.gantt.snapshot
    assert snapshot is not None
    x0, x1, y0, y1, ids = win.gantt.windows.outlines(snapshot, win.gantt.reservations(snapshot))
    assert (y1 - y0).tolist() == [1.0, 1.0]
    east = snapshot.clusters[1].first_node
    assert ids.tolist() == [5.0, 5.0]
    assert x0.tolist() == [hms("01:01:00") / 3600] * 2
    assert x1.tolist() == [hms("01:31:00") / 3600] * 2
    assert y0.tolist() == [float(east), float(east) + 1]
    shown = type_line(qtbot, win, "squeue -M all --start")
    assert "2026-11-22T01:01:00" in shown and "east[01-02]" in shown
    shown = type_line(qtbot, win, "scontrol show job 5")
    assert "at 01:01:00, cost 21283.2 (best of 6 alternatives, minimising time)" in shown
