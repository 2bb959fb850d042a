"""``batchlab gui`` end to end, and the CLI staying free of Qt when the GUI does not run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_the_cli_does_not_import_qt_unless_the_gui_runs() -> None:
    done = run(
        "-c",
        "import sys, emulator.cli as c; c._parser(); c.main(['schedulers']); "
        "print(sorted(m for m in ('PySide6', 'pyqtgraph', 'gui.app', 'gui.window') "
        "if m in sys.modules))",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_batchlab_gui_comes_from_the_gui_package() -> None:
    """The emulator imports no GUI module: ``batchlab gui`` and ``demo`` are the gui package's,
    found through the ``batchlab.commands`` entry point group."""
    done = run(
        "-c",
        "import sys, emulator.cli; "
        "print(sorted(m for m in sys.modules if m == 'gui' or m.startswith('gui.')))",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    from emulator.cli import _parser

    commands = _parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert commands["gui"].get_default("handler").__module__ == "gui.cli"
    assert commands["demo"].get_default("handler").__module__ == "gui.cli"


@pytest.mark.slow
def test_gui_demo_screenshot(tmp_path: Path) -> None:
    pytest.importorskip("PySide6.QtWidgets")
    path = tmp_path / "demo.png"
    done = run("-m", "emulator.cli", "gui", "--demo", "--screenshot", str(path), "--after", "900")
    assert done.returncode == 0, done.stderr
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000


def test_gui_rejects_bad_arguments(tmp_path: Path) -> None:
    done = run("-m", "emulator.cli", "gui", "--demo", "--platform", "lab")
    assert done.returncode == 1
    assert done.stderr == "batchlab: error: --demo brings its own platform and workload\n"
    done = run("-m", "emulator.cli", "gui", "--workload", str(tmp_path / "none.swf"))
    assert done.returncode == 1 and done.stderr.startswith("batchlab: error: no such workload")


def test_gui_help_describes_the_window_as_it_is() -> None:
    done = run("-m", "emulator.cli", "gui", "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    # --compare: a daemon per scheduler on the window's clock (not two sessions in the window)
    assert "a daemon each, both driven by the window's one clock" in text
    assert "sizes itself to the screen" in text and "pauses when the workload is done" in text
    assert "F1" in text and "Ctrl+Q" in text
