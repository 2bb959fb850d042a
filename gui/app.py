"""Start the window: ``batchlab gui`` ends here (:mod:`gui.cli` starts the daemons)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from emulator.remote import RemoteSession
    from gui.compare import CompareWindow
    from gui.scenario import Scenario
    from gui.window import MainWindow

# Bindings known to break the window: (version, why). PySide6 6.12.0 returns None from every
# void method without taking a reference (harmless from Python 3.12, where None is immortal): on
# 3.11 None's count falls by one per call (QPainter.drawRect, QPen.setWidth, ...) and Python
# aborts with "none_dealloc: deallocating None" after a minute or so of drawing. 6.11.3 is fine.
BROKEN_BINDINGS = {"6.12.0": "it frees None after a while on Python < 3.12 (use 6.11.3)"}
_WINDOWLESS = ("offscreen", "minimal")  # Qt platforms that draw without showing a window
_PROBE = "import sys; from PySide6.QtGui import QGuiApplication; QGuiApplication(sys.argv[:1])"


def binding_problem() -> str | None:
    """Why the installed PySide6 cannot run the window for long, or None."""
    import PySide6

    why = BROKEN_BINDINGS.get(PySide6.__version__)
    if why is None or sys.version_info >= (3, 12):
        return None
    return f"PySide6 {PySide6.__version__}: {why}"


def display_problem(environ: Mapping[str, str] | None = None, timeout: float = 30.0) -> str | None:
    """Why no window can open here, or None if one can: no display in the environment
    (``DISPLAY``, ``WAYLAND_DISPLAY``), a Qt platform that shows nothing (``QT_QPA_PLATFORM=
    offscreen``), or Qt failing to start on the display. Qt is tried in a child process with
    ``environ`` (default: this one's), because Qt aborts a process that cannot connect."""
    env = dict(os.environ if environ is None else environ)
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform.split(":")[0] in _WINDOWLESS:
        return f"QT_QPA_PLATFORM={platform} shows no window"
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"Qt did not start within {timeout:g} s"
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()  # Qt's own lines first, else a traceback's last
    said = next((line for line in lines if line.startswith("qt.qpa")), lines[-1] if lines else "")
    return f"Qt cannot start: {said or f'exit status {done.returncode}'}"


def run(
    session: RemoteSession,
    *,
    playing: bool = True,
    screenshot: Path | None = None,
    after: float = 3600.0,
    presentation: bool = False,
    scenario: Scenario | None = None,
) -> int:
    """Show the window until it is closed; with ``screenshot``, run to simulated time ``after``
    as fast as possible, save the window as a PNG there and exit. ``presentation`` starts in
    presentation mode; ``scenario`` (what the daemon runs, if the window started it) starts
    more daemons for View → Compare schedulers… and File > Open. Returns the exit status."""
    app = _application()
    from gui.window import MainWindow

    window = MainWindow(session, playing=playing and screenshot is None, scenario=scenario)
    return _show(app, window, screenshot, after, presentation)


def compare(
    first: RemoteSession,
    second: RemoteSession,
    *,
    speed: float = 60.0,
    playing: bool = True,
    screenshot: Path | None = None,
    after: float = 3600.0,
    presentation: bool = False,
) -> int:
    """The comparison window (:mod:`gui.compare`) of two daemons, as :func:`run` shows one."""
    app = _application()
    from gui.compare import CompareWindow

    window = CompareWindow(first, second, speed=speed, playing=playing and screenshot is None)
    return _show(app, window, screenshot, after, presentation)


def _application() -> QApplication:
    from PySide6.QtWidgets import QApplication

    problem = binding_problem()
    if problem is not None:
        print(f"batchlab gui: warning: {problem}", file=sys.stderr)
    app = QApplication.instance()
    return app if isinstance(app, QApplication) else QApplication(sys.argv[:1])


def _show(
    app: QApplication,
    window: MainWindow | CompareWindow,
    screenshot: Path | None,
    after: float,
    presenting: bool,
) -> int:
    from PySide6.QtCore import QEvent

    from emulator.heap import release_heap, settle_heap
    from gui import presentation

    window.show()
    presentation.mode().set(presenting)  # once shown: a hidden window's headers miss the font
    if screenshot is not None:
        window.finished.connect(app.quit)
        window.screenshot_at(after, screenshot)
    settle_heap()
    status = app.exec()
    # Tear the window down while Qt is whole: left to interpreter shutdown, the C++ objects die
    # in arbitrary order and a pyqtgraph scene now and then outlives its items (a segfault).
    window.close()
    window.deleteLater()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    del window
    release_heap()  # (settle_heap froze the window's objects: collect them now, not at exit)
    return int(status)
