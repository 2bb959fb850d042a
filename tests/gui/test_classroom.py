"""Classroom features: presentation mode and two schedulers side by side in lockstep (the README
demo's choice between a window and the headless replay: test_demo_display.py)."""

from __future__ import annotations

import colorsys
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from emulator.child import ChildSession, Feed
from emulator.session import DEMO_PLATFORM, Pacer
from gui import palette
from gui.driver import Driver
from gui.scenario import Scenario
from resources import platform_path
from tests.gui.helpers import FakeClock, daemon, run_to, single_cluster_file
from tests.gui.test_files import SWF_HEADER, swf_line

ROOT = Path(__file__).resolve().parents[2]
DEMO = Scenario(platform_path(DEMO_PLATFORM), Feed(demo=True))


# --- the Qt-free parts ---------------------------------------------------------------------------


@pytest.fixture
def backfill(tmp_path: Path) -> Scenario:
    """Four single-core nodes: job 1 takes three for 1000 s, job 2 wants all four, then short
    one-core jobs arrive. EASY backfills them beside job 1 (they end before job 2's
    reservation); FCFS keeps them behind job 2, so they wait until 1500 s and more."""
    lines = [swf_line(1, 0, 1000, 3, 1200), swf_line(2, 10, 500, 4, 600)]
    lines += [swf_line(i, 20 * i, 100, 1, 120) for i in range(3, 9)]
    trace = tmp_path / "backfill.swf"
    trace.write_text(SWF_HEADER + "".join(lines))
    return Scenario(single_cluster_file(tmp_path, 4), Feed(workload=trace))


@pytest.fixture
def pair(backfill: Scenario) -> Iterator[tuple[ChildSession, ChildSession]]:
    """:func:`backfill` under FCFS and EASY, a daemon each."""
    fcfs, easy = backfill.open("fcfs"), backfill.open("easy")
    yield fcfs, easy
    fcfs.close()
    easy.close()


def now(session: ChildSession) -> float:
    """The daemon's clock, asked for now (a driver's goals do not wait for the state)."""
    return float(session.steer("show")["clock"]["now"])


def play_out(driver: Driver, clock: FakeClock) -> list[float]:
    """Tick ``driver`` (its wall clock 10 ms further each time) until it pauses; the times
    where the daemons stood together."""
    stood = []
    while driver.playing:
        clock.now += 0.01
        driver.settle()  # (as the window's timer would, a frame later)
        driver.tick()
        stood.append(driver.now)
    return stood


def test_high_contrast_palette_keeps_jobs_distinct_and_their_hues() -> None:
    bright, normal = palette.HIGH_CONTRAST, palette.DEFAULT
    jobs = bright.jobs[:, :3].astype(float)

    def distance(colour: np.ndarray) -> float:
        return float(np.sqrt(((jobs - colour[:3].astype(float)) ** 2).sum(axis=1)).min())

    # idle and the background stand far from every job colour and from each other
    assert distance(bright.idle) > 100 and distance(bright.background) > 150
    assert float(np.abs(bright.idle[:3].astype(int) - bright.background[:3]).sum()) > 400

    # a job keeps its hue (within rounding): the same entry, only brighter and more saturated
    def hues(colours: np.ndarray) -> np.ndarray:
        return np.array([colorsys.rgb_to_hsv(*(v / 255 for v in rgb[:3]))[0] for rgb in colours])

    apart = np.abs(hues(normal.jobs) - hues(bright.jobs))
    assert np.minimum(apart, 1 - apart).max() < 0.005
    try:
        palette.use(bright)
        assert tuple(palette.colours([-1])[0]) == tuple(bright.idle)
        assert np.array_equal(palette.colours([5, 6]), bright.jobs[palette.index([5, 6])])
    finally:
        palette.use(normal)
    assert tuple(palette.colours([-1])[0]) == tuple(normal.idle)


def test_two_daemons_on_one_clock_stand_at_the_same_time(
    pair: tuple[ChildSession, ChildSession],
) -> None:
    fcfs, easy = pair
    clock = FakeClock()
    driver = Driver(pair, Pacer(clock))
    driver.set_speed(math.inf)
    driver.play()
    times = play_out(driver, clock)
    assert len(times) > 3 and times == sorted(times)
    # both idle, at the same time: the goal past the last event (at 1700 s) where they saw it
    assert now(fcfs) == now(easy) == driver.now >= 1700.0 and driver.idle
    # each ran its whole schedule: FCFS ends later (the short jobs wait behind job 2)
    assert fcfs.snapshot().jobs.end.max() == 1700.0
    assert easy.snapshot().jobs.end.max() == 1500.0


def test_two_daemons_step_to_the_next_event_of_either(
    pair: tuple[ChildSession, ChildSession],
) -> None:
    fcfs, easy = pair
    driver = Driver(pair, Pacer(FakeClock()))
    seen = []
    for _ in range(6):
        assert driver.step()
        assert now(fcfs) == now(easy) == driver.now
        seen.append(driver.now)
    assert seen == [0.0, 10.0, 60.0, 80.0, 100.0, 120.0]  # the arrivals (each with its pass)


def test_one_driver_plays_and_pauses_both(pair: tuple[ChildSession, ChildSession]) -> None:
    fcfs, easy = pair
    clock = FakeClock()
    driver = Driver(pair, Pacer(clock, speed=10.0))
    driver.play()
    clock.now += 7.5
    driver.tick()  # a goal: where 7.5 wall seconds at 10x lead
    driver.settle()
    assert now(fcfs) == now(easy) == 75.0
    driver.pause()
    clock.now += 100.0
    driver.tick()
    driver.settle()
    assert now(fcfs) == now(easy) == 75.0
    driver.set_speed(math.inf)
    driver.play()
    play_out(driver, clock)
    assert fcfs.idle and easy.idle and now(fcfs) == now(easy) >= 1700.0


# --- the windows --------------------------------------------------------------------------------

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QPointF  # noqa: E402
from PySide6.QtGui import QFontMetrics  # noqa: E402
from PySide6.QtWidgets import QDialog, QMessageBox  # noqa: E402
from pytestqt.qtbot import QtBot  # noqa: E402

from gui import presentation  # noqa: E402
from gui.compare import CompareDialog, CompareWindow, open_comparison  # noqa: E402
from gui.views.nodes import CELL, NodesView  # noqa: E402
from tests.gui.helpers import open_window, tab_bars  # noqa: E402


@pytest.fixture(autouse=True)
def presentation_off(request: pytest.FixtureRequest) -> Iterator[None]:
    """Presentation mode is application-wide: leave it off for the next test."""
    yield
    if "qtbot" in request.fixturenames:
        presentation.mode().set(False)


def shown_pixel(view: NodesView, cluster: int, node: int) -> tuple[int, int, int]:
    """The colour on screen at the middle of a node's colour block (grabbed from the widget)."""
    item = view.images[cluster]
    width = item.image.shape[1] // CELL
    x, y = (node % width) * CELL + 4.5, (node // width) * CELL + 4.5
    graphics = view.graphics
    shown = graphics.viewport().grab().toImage()
    colour = shown.pixelColor(graphics.mapFromScene(item.mapToScene(QPointF(x, y))))
    return colour.red(), colour.green(), colour.blue()


def rgb(colour: np.ndarray) -> tuple[int, int, int]:
    return int(colour[0]), int(colour[1]), int(colour[2])


def test_presentation_mode_enlarges_text_thickens_lines_and_recolours(
    qtbot: QtBot, tmp_path: Path
) -> None:
    line = 'sbatch -n 2 -t 10 --wrap "sleep 300"'  # nodes 1 and 2 busy, 3 and 4 idle
    live = daemon(single_cluster_file(tmp_path, 4), "easy", line)
    run_to(live, 60.0)
    win = open_window(qtbot, live)
    win.refresh()

    def looks() -> dict[str, Any]:
        qtbot.wait(50)  # the layout settles on the new sizes
        return {
            "table points": win.queue.table.font().pointSizeF(),
            "row height": win.queue.table.verticalHeader().defaultSectionSize(),
            "console points": win.console.output.font().pointSizeF(),
            "curve width": win.metrics.curves["utilization"].opts["pen"].widthF(),
            "idle": shown_pixel(win.nodes, 0, 3),
            "job": shown_pixel(win.nodes, 0, 0),
        }

    before = looks()
    assert before["idle"] == rgb(palette.DEFAULT.idle)
    assert before["job"] == palette.colour(1)
    win.presentation_action.trigger()  # View → Presentation mode (F5)
    assert presentation.mode().on and win.presentation_action.isChecked()
    shown = looks()
    assert shown["table points"] == presentation.TEXT_POINTS > before["table points"]
    assert shown["row height"] > before["row height"]
    assert shown["console points"] == presentation.OWN_FONT_POINTS
    assert shown["curve width"] == 2 * before["curve width"]
    assert shown["idle"] == rgb(palette.HIGH_CONTRAST.idle) != before["idle"]
    assert (
        shown["job"] == palette.colour(1) == rgb(palette.HIGH_CONTRAST.jobs[palette.index([1])[0]])
    )
    win.presentation_action.trigger()  # and back
    assert looks() == before


def test_a_window_opened_in_presentation_mode_starts_in_it(
    qtbot: QtBot, backfill: Scenario
) -> None:
    presentation.mode().set(True)
    win = CompareWindow(backfill.open("fcfs"), backfill.open("easy"), pacer=Pacer(FakeClock()))
    win.timer.stop()
    qtbot.addWidget(win)
    assert win.presentation_action.isChecked()
    assert win.sides[0].queue.table.font().pointSizeF() == presentation.TEXT_POINTS
    width = win.metrics.series["mean_wait"][1].opts["pen"].widthF()
    win.presentation_action.trigger()
    assert not presentation.mode().on
    assert win.metrics.series["mean_wait"][1].opts["pen"].widthF() == width / 2


def compare_window(qtbot: QtBot, scenario: Scenario, clock: FakeClock) -> CompareWindow:
    win = CompareWindow(scenario.open("fcfs"), scenario.open("easy"), pacer=Pacer(clock))
    win.timer.stop()  # the tests tick by hand
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_each_scheduler_s_nodes_and_gantt_share_one_tab_bar(qtbot: QtBot) -> None:
    win = CompareWindow(DEMO.open("fcfs"), DEMO.open("easy"))
    assert tab_bars(qtbot, win) == [
        ("easy: nodes", "easy: Gantt"),
        ("easy: queue", "easy: moves", "easy: routes"),
        ("fcfs: nodes", "fcfs: Gantt"),
        ("fcfs: queue", "fcfs: moves", "fcfs: routes"),
    ]


def test_each_side_has_the_families_moves_and_routes_and_a_view_menu_for_every_dock(
    qtbot: QtBot,
) -> None:
    # realloc against the mct broker (teaching.md steps 9 and 8), both run to 04:05, when job
    # 64, moved at 04:00, runs in south (waiting there, unplanned, it was not drawn)
    win = open_comparison(DEMO, "realloc", "mct", playing=False, at=4 * 3600.0 + 300)
    win.timer.stop()
    qtbot.addWidget(win, before_close_func=lambda widget: widget.close())
    win.refresh()
    realloc, mct = win.sides
    assert realloc.moves.table() == [
        ("11-22 04:00:00", "64", "north", "01:21:32", "south", "00:51:57", "00:29:35")
    ]
    assert realloc.moves.diagram.arrows() == [("north", "south", 1)]
    realloc.docks["A Gantt"].raise_()  # (behind the nodes' tab, not drawn)
    qtbot.waitExposed(win)
    win.refresh()
    assert realloc.gantt.move_marks.captions() == ["64 north→south"]
    assert mct.moves.table() == [] and mct.gantt.move_marks.captions() == []
    win.selection.select(7)  # mct routed job 7 to east, its ECT the least
    assert [(site, round(minutes, 2), chosen) for site, minutes, chosen in mct.routes.drawn()] == [
        ("south", 6.67, False),
        ("east", 3.33, True),
        ("north", 5.0, False),
    ]
    # the View menu brings back any closed dock
    (view,) = [a.menu() for a in win.menuBar().actions() if a.text() == "&View"]
    shown = [action for action in view.actions() if action.isCheckable()]
    docks = [dock for side in win.sides for dock in side.docks.values()]
    assert [action.text() for action in shown[1:]] == [dock.windowTitle() for dock in docks]
    assert (
        mct.docks["B Routes"].windowTitle() == "mct+lsf: routes"
    )  # (the broker and its sites' scheduler)
    routes = shown[1 + docks.index(mct.docks["B Routes"])]
    mct.docks["B Routes"].close()
    assert not routes.isChecked()
    routes.trigger()
    assert mct.docks["B Routes"].isVisible()


def tick_until_paused(win: CompareWindow, clock: FakeClock) -> None:
    """The window's timer, a frame of the wall clock apart, until the driver pauses, and once
    more (the redraw of where the daemons stopped)."""
    while win.driver.playing:
        clock.now += 0.01
        win.driver.settle()
        win.tick()
    clock.now += 1.0
    win.tick()


def test_comparison_runs_both_in_lockstep_and_the_waits_part(
    qtbot: QtBot, backfill: Scenario
) -> None:
    clock = FakeClock()
    win = compare_window(qtbot, backfill, clock)
    fcfs, easy = (side.session for side in win.sides)
    assert win.names == ("fcfs", "easy")

    win.driver.stop_at = 130.0
    win.set_speed(math.inf)
    win.play()  # one goal, to stop_at
    tick_until_paused(win, clock)
    assert fcfs.now == easy.now == 130.0 and not win.play_action.isChecked()
    assert "t = 130 s" in win.clock.text()
    # at 130 s EASY has backfilled the short jobs beside job 1; FCFS keeps them waiting
    pending = {
        side.session.scheduler: [row[4] for row in side.queue.model.table()].count("PD")
        for side in win.sides
    }  # (one cluster: squeue's columns, ST the fifth)
    assert pending == {"fcfs": 5, "easy": 4}  # jobs 2-6 wait; under EASY job 3 runs
    fourth = {}
    for side in win.sides:  # node 4's cell, wherever the grid fitted to its dock put it
        row, column = divmod(3, side.nodes.columns(0))
        fourth[side.session.scheduler] = side.nodes.image(0)[row * CELL + 4, column * CELL + 4]
    assert tuple(fourth["fcfs"]) == tuple(palette.IDLE)  # node 4 idle under FCFS
    assert tuple(fourth["easy"]) != tuple(palette.IDLE)  # a backfilled short job on it

    win.driver.stop_at = math.inf
    win.play()
    tick_until_paused(win, clock)
    assert now(fcfs) == now(easy) == win.driver.now >= 1700.0 and win.driver.idle

    def caught_up() -> bool:  # the snapshots come in the background, the plots a frame later
        clock.now += 1.0
        win.tick()
        curves = win.metrics.series["mean_wait"]
        return all(curve.getData()[0][-1] >= 1700.0 / 3600 for curve in curves)

    qtbot.waitUntil(caught_up, timeout=20000)
    # the plot holds each scheduler's mean wait: equal at first, then FCFS's is larger
    (fx, fy), (ex, ey) = (curve.getData() for curve in win.metrics.series["mean_wait"])
    assert fx[-1] == ex[-1] >= 1700.0 / 3600
    assert fy[-1] > ey[-1] > 0
    assert fy[-1] == pytest.approx(fcfs.snapshot().metrics.mean_wait[-1])
    assert ey[-1] == pytest.approx(easy.snapshot().metrics.mean_wait[-1])
    colours = [curve.opts["pen"].color().getRgb()[:3] for curve in win.metrics.series["mean_wait"]]
    assert colours[0] != colours[1]
    legend = win.metrics.plots[1].legend
    assert [label.text for _, label in legend.items] == ["fcfs", "easy"]
    assert "fcfs: mean wait" in win.summary.text() and "easy: mean wait" in win.summary.text()


def test_comparison_step_and_shared_selection(qtbot: QtBot, backfill: Scenario) -> None:
    win = compare_window(qtbot, backfill, FakeClock())
    fcfs, easy = (side.session for side in win.sides)
    for _ in range(4):
        assert win.step()
        assert fcfs.now == easy.now
    assert fcfs.now == 80.0 and not win.driver.playing  # 0, 10, 60, 80: the arrivals
    win.selection.select(1)  # a job clicked on one side is outlined on both
    for side in win.sides:
        assert tuple(side.nodes.image(0)[0, 4]) == tuple(palette.SELECTED)


def test_compare_from_the_main_window(qtbot: QtBot, backfill: Scenario) -> None:
    plain = open_window(qtbot, daemon(backfill.platform_file, "easy"))
    assert not plain.compare_action.isEnabled()  # no scenario to run again (--socket's)
    win = open_window(qtbot, backfill.open("easy"), scenario=backfill)
    assert win.compare_action.isEnabled()
    other = open_comparison(backfill, "fcfs", "cbf", playing=False)
    other.timer.stop()
    qtbot.addWidget(other)
    assert other.names == ("fcfs", "cbf") and other.isVisible()
    assert [side.session.now for side in other.sides] == [0.0, 0.0]
    assert other.windowTitle() == "batchlab — fcfs vs cbf on cluster"


def test_compare_schedulers_dialog(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, backfill: Scenario
) -> None:
    win = open_window(qtbot, backfill.open("easy"), scenario=backfill)
    asked: list[tuple[str, str]] = []

    def answer(dialog: CompareDialog) -> int:  # instead of the modal loop: the user's choice
        asked.append(dialog.specs())
        dialog.choosers[1].setCurrentText(second)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(CompareDialog, "exec", answer)
    second = "cbf"
    win.compare_action.trigger()
    assert asked == [("fcfs", "easy")]  # FCFS and the window's scheduler, to begin with
    opened = win.comparisons[-1]
    qtbot.addWidget(opened)
    opened.timer.stop()
    assert opened.names == ("fcfs", "cbf")
    # where and as the main window is: at its time, paused as it is (not from 0, not playing)
    assert opened.driver.now == win.driver.now and not opened.driver.playing
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warned.append(args[2]))
    second = "nosuch"
    win.compare_action.trigger()
    assert len(win.comparisons) == 1 and "nosuch" in warned[0]


def run_cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "emulator.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def test_gui_compare_rejects_a_third_scheduler() -> None:
    done = run_cli("gui", "--demo", "--compare", "fcfs", "easy", "--scheduler", "cbf")
    assert done.returncode == 1 and "--compare names both schedulers" in done.stderr
    done = run_cli("gui", "--demo", "--compare", "fcfs", "nosuch")
    assert done.returncode == 1 and "nosuch" in done.stderr


@pytest.mark.slow
def test_gui_compare_and_presentation_screenshots(tmp_path: Path) -> None:
    path = tmp_path / "compare.png"
    done = run_cli("gui", "--demo", "--compare", "fcfs", "easy", "--screenshot", str(path))
    assert done.returncode == 0, done.stderr
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    path = tmp_path / "presentation.png"
    done = run_cli("gui", "--demo", "--presentation", "--screenshot", str(path), "--after", "900")
    assert done.returncode == 0, done.stderr
    assert path.stat().st_size > 20000


def test_comparison_in_presentation_mode_at_1280_by_800_cuts_nothing_off(qtbot: QtBot) -> None:
    win = open_comparison(DEMO, "fcfs", "easy", playing=False, at=4 * 3600.0)
    win.timer.stop()
    qtbot.addWidget(win, before_close_func=lambda widget: widget.close())
    win.resize(1280, 800)
    qtbot.waitExposed(win)
    presentation.mode().set(True)  # F5 in the open window
    try:
        qtbot.wait(100)  # (the layout settles)
        win.refresh()
        # the figures: a line per scheduler, each whole in the status bar
        lines = win.summary.text().splitlines()
        assert [line.split(":")[0] for line in lines] == ["fcfs", "easy"]
        font = win.summary.fontMetrics()
        assert max(font.horizontalAdvance(line) for line in lines) <= win.summary.width()
        assert win.summary.height() >= 2 * font.height()
        # the metrics between the nodes views: not squeezed, three value labels a line apart
        metrics = win.metrics
        assert metrics.width() >= metrics.graphics.minimumSizeHint().width()
        for field, plot in zip(metrics.curves, metrics.plots, strict=True):
            low, high = metrics.y_ranges[field].current
            axis, box = plot.getAxis("left"), plot.getViewBox()
            values = axis.tickValues(*box.viewRange()[1], box.height())[0][1]
            spacing = box.height() * (values[1] - values[0]) / (high - low) / 1.1
            assert len(values) >= 3 and spacing >= QFontMetrics(axis.style["tickFont"]).height()
    finally:
        presentation.mode().set(False)
