"""Classroom features: presentation mode, two schedulers side by side in lockstep, and the
README demo's choice between the window and the headless replay."""

from __future__ import annotations

import colorsys
import math
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from emulator.model.job import Request, Submission
from emulator.model.platform import Platform
from emulator.session import Pacer, Session, demo_session
from gui import palette
from gui.app import display_problem
from gui.driver import Driver
from gui.lockstep import Lockstep

ROOT = Path(__file__).resolve().parents[2]


# --- the Qt-free parts ---------------------------------------------------------------------------


def backfill_workload() -> list[Submission]:
    """Four cores: job 1 takes three for 1000 s, job 2 wants all four, then short one-core jobs
    arrive. EASY backfills them beside job 1 (they end before job 2's reservation); FCFS keeps
    them behind job 2, so they wait until 1500 s and more."""
    jobs = [
        Submission(1, 0.0, Request(tasks=3, time_limit=1200, name="long"), 1000.0),
        Submission(2, 10.0, Request(tasks=4, time_limit=600, name="wide"), 500.0),
    ]
    jobs += [
        Submission(i, 20.0 * i, Request(tasks=1, time_limit=120, name=f"short{i}"), 100.0)
        for i in range(3, 9)
    ]
    return jobs


def session(scheduler: str) -> Session:
    result = Session(Platform.single_cluster(4), scheduler)
    result.submit_workload(backfill_workload())
    return result


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


def test_lockstep_leaves_every_session_at_the_same_time() -> None:
    fcfs, easy = session("fcfs"), session("easy")
    both = Lockstep((fcfs, easy))
    times = []
    while not both.idle:
        both.run_until(math.inf, max_events=2)  # a small bound: the leader stops mid-run
        assert fcfs.now == easy.now == both.now
        times.append(both.now)
    assert len(times) > 5 and times == sorted(times)
    # each ran its whole schedule: FCFS ends later (the short jobs wait behind job 2)
    assert fcfs.snapshot().jobs.end.max() == 1700.0
    assert easy.snapshot().jobs.end.max() == 1500.0


def test_lockstep_steps_to_the_next_event_of_either() -> None:
    fcfs, easy = session("fcfs"), session("easy")
    both = Lockstep((fcfs, easy))
    seen = []
    for _ in range(6):
        upcoming = min(fcfs.next_time(), easy.next_time())
        assert both.step()
        assert fcfs.now == easy.now == upcoming
        seen.append(both.now)
    assert seen == [0.0, 10.0, 60.0, 80.0, 100.0, 120.0]  # the arrivals (each with its pass)


def test_one_driver_plays_and_pauses_both() -> None:
    wall = [0.0]
    fcfs, easy = session("fcfs"), session("easy")
    driver = Driver(Lockstep((fcfs, easy)), Pacer(lambda: wall[0], speed=10.0))
    driver.play()
    wall[0] = 7.5
    driver.tick()
    assert fcfs.now == easy.now == 75.0
    driver.pause()
    wall[0] = 100.0
    driver.tick()
    assert fcfs.now == easy.now == 75.0
    driver.set_speed(math.inf)
    driver.play()
    while driver.playing:
        driver.tick()
    assert fcfs.idle and easy.idle and fcfs.now == easy.now == 1700.0


# --- the README demo: a window when a display is available, else the headless replay -----------


def without_display() -> dict[str, str]:
    hidden = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    return {key: value for key, value in os.environ.items() if key not in hidden}


def test_display_problem_says_why_no_window_can_open() -> None:
    env = without_display()
    assert display_problem(env) == "neither DISPLAY nor WAYLAND_DISPLAY is set"
    offscreen = display_problem({**env, "DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})
    assert offscreen == "QT_QPA_PLATFORM=offscreen shows no window"
    # a display that does not exist: Qt is tried in a child process, which fails
    problem = display_problem({**env, "DISPLAY": ":87"})
    assert problem is not None and problem.startswith("Qt cannot start: ")


def test_demo_without_a_display_says_so_and_replays(tmp_path: Path) -> None:
    env = {**without_display(), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "emulator.cli", "demo", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "batchlab demo: no display (neither DISPLAY nor WAYLAND_DISPLAY is set): "
        "running the headless demo instead"
    )
    assert lines[1] == "kth-sp2-first-2000.swf.gz under easy on 100 cores"
    assert (tmp_path / "summary.json").is_file()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
def test_demo_with_a_display_opens_the_window(tmp_path: Path) -> None:
    pytest.importorskip("PySide6.QtWidgets")
    env = {**without_display(), "PYTHONPATH": str(ROOT)}
    command = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m"]
    command += ["emulator.cli", "demo", "--out", str(tmp_path)]
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    ) as child:
        try:
            child.wait(timeout=10)  # the window stays open: this must time out
        except subprocess.TimeoutExpired:
            opened = True
        else:
            opened = False
        finally:  # xvfb-run, Xvfb and batchlab: the whole group
            os.killpg(child.pid, signal.SIGTERM)
            output = child.communicate(timeout=20)[0]
    assert opened, output
    assert "no display" not in output and not (tmp_path / "summary.json").exists()


# --- the windows --------------------------------------------------------------------------------

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QPointF  # noqa: E402
from PySide6.QtWidgets import QDialog, QMessageBox  # noqa: E402
from pytestqt.qtbot import QtBot  # noqa: E402

from gui import presentation  # noqa: E402
from gui.compare import CompareDialog, CompareWindow, open_comparison  # noqa: E402
from gui.views.nodes import CELL, NodesView  # noqa: E402
from gui.window import MainWindow  # noqa: E402
from tests.gui.helpers import tab_bars  # noqa: E402


@pytest.fixture(autouse=True)
def presentation_off(request: pytest.FixtureRequest) -> Iterator[None]:
    """Presentation mode is application-wide: leave it off for the next test."""
    yield
    if "qtbot" in request.fixturenames:
        presentation.mode().set(False)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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


def test_presentation_mode_enlarges_text_thickens_lines_and_recolours(qtbot: QtBot) -> None:
    live = Session(Platform.single_cluster(4), "easy")
    live.command('sbatch -n 2 -t 10 --wrap "sleep 300"')  # nodes 1 and 2 busy, 3 and 4 idle
    live.advance(60)
    win = MainWindow(live, pacer=Pacer(FakeClock()))
    win.timer.stop()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
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


def test_a_window_opened_in_presentation_mode_starts_in_it(qtbot: QtBot) -> None:
    presentation.mode().set(True)
    win = CompareWindow(session("fcfs"), session("easy"), pacer=Pacer(FakeClock()))
    win.timer.stop()
    qtbot.addWidget(win)
    assert win.presentation_action.isChecked()
    assert win.sides[0].queue.table.font().pointSizeF() == presentation.TEXT_POINTS
    width = win.metrics.series["mean_wait"][1].opts["pen"].widthF()
    win.presentation_action.trigger()
    assert not presentation.mode().on
    assert win.metrics.series["mean_wait"][1].opts["pen"].widthF() == width / 2


def compare_window(qtbot: QtBot) -> CompareWindow:
    win = CompareWindow(session("fcfs"), session("easy"), pacer=Pacer(FakeClock()))
    win.timer.stop()  # the tests tick by hand
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_each_scheduler_s_nodes_and_gantt_share_one_tab_bar(qtbot: QtBot) -> None:
    win = CompareWindow(demo_session("fcfs"), demo_session("easy"))
    assert tab_bars(qtbot, win) == [("easy: nodes", "easy: Gantt"), ("fcfs: nodes", "fcfs: Gantt")]


def test_comparison_runs_both_in_lockstep_and_the_waits_part(qtbot: QtBot) -> None:
    win = compare_window(qtbot)
    fcfs, easy = (side.session for side in win.sides)
    assert win.names == ("fcfs", "easy")

    win.driver.stop_at = 130.0
    win.set_speed(math.inf)
    win.play()
    win.tick()  # the fake wall clock stands still: one tick runs to stop_at
    assert fcfs.now == easy.now == 130.0 and not win.driver.playing
    assert "t = 130 s" in win.clock.text()
    # at 130 s EASY has backfilled the short jobs beside job 1; FCFS keeps them waiting
    pending = {
        side.session.scheduler: [row[4] for row in side.queue.model.table()].count("PD")
        for side in win.sides
    }  # (one cluster: squeue's columns, ST the fifth)
    assert pending == {"fcfs": 5, "easy": 4}  # jobs 2-6 wait; under EASY job 3 runs
    fourth = {side.session.scheduler: side.nodes.image(0)[4, 3 * CELL + 4] for side in win.sides}
    assert tuple(fourth["fcfs"]) == tuple(palette.IDLE)  # node 4 idle under FCFS
    assert tuple(fourth["easy"]) != tuple(palette.IDLE)  # a backfilled short job on it

    win.driver.stop_at = math.inf
    win.play()
    while win.driver.playing:
        win.tick()
    assert fcfs.now == easy.now == 1700.0
    # the plot holds each scheduler's mean wait: equal at first, then FCFS's is larger
    (fx, fy), (ex, ey) = (curve.getData() for curve in win.metrics.series["mean_wait"])
    assert fx[-1] == ex[-1] == 1700.0 / 3600
    assert fy[-1] > ey[-1] > 0
    assert fy[-1] == pytest.approx(fcfs.snapshot().metrics.mean_wait[-1])
    assert ey[-1] == pytest.approx(easy.snapshot().metrics.mean_wait[-1])
    colours = [curve.opts["pen"].color().getRgb()[:3] for curve in win.metrics.series["mean_wait"]]
    assert colours[0] != colours[1]
    legend = win.metrics.graphics.getItem(1, 0).legend
    assert [label.text for _, label in legend.items] == ["fcfs", "easy"]
    assert "fcfs: mean wait" in win.summary.text() and "easy: mean wait" in win.summary.text()


def test_comparison_step_and_shared_selection(qtbot: QtBot) -> None:
    win = compare_window(qtbot)
    fcfs, easy = (side.session for side in win.sides)
    for _ in range(4):
        assert win.step()
        assert fcfs.now == easy.now
    assert fcfs.now == 80.0 and not win.driver.playing  # 0, 10, 60, 80: the arrivals
    win.selection.select(1)  # a job clicked on one side is outlined on both
    for side in win.sides:
        assert tuple(side.nodes.image(0)[0, 4]) == tuple(palette.SELECTED)


def test_compare_from_the_main_window(qtbot: QtBot) -> None:
    plain = MainWindow(Session(Platform.single_cluster(4), "easy"), pacer=Pacer(FakeClock()))
    plain.timer.stop()
    qtbot.addWidget(plain)
    assert not plain.compare_action.isEnabled()  # no scenario to run again
    win = MainWindow(session("easy"), pacer=Pacer(FakeClock()), scenario=session)
    win.timer.stop()
    qtbot.addWidget(win)
    assert win.compare_action.isEnabled()
    other = open_comparison(session, "fcfs", "cbf", playing=False)
    other.timer.stop()
    qtbot.addWidget(other)
    assert other.names == ("fcfs", "cbf") and other.isVisible()
    assert [side.session.now for side in other.sides] == [0.0, 0.0]
    assert other.windowTitle() == "batchlab — fcfs vs cbf on cluster"


def test_compare_schedulers_dialog(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    win = MainWindow(session("easy"), pacer=Pacer(FakeClock()), scenario=session)
    win.timer.stop()
    qtbot.addWidget(win)
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
    assert opened.names == ("fcfs", "cbf") and opened.driver.playing
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
