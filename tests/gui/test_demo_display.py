"""The README demo: a window when a display is available, else the headless replay that says
why no window opened."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gui.app import display_problem

ROOT = Path(__file__).resolve().parents[2]


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
