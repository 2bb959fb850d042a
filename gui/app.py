"""Start the window: ``batchlab gui`` ends here (the CLI builds the session)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from emulator.session import Session

# Bindings known to break the window: (version, why). PySide6 6.12.0 returns None from every
# void method without taking a reference (harmless from Python 3.12, where None is immortal): on
# 3.11 None's count falls by one per call (QPainter.drawRect, QPen.setWidth, ...) and Python
# aborts with "none_dealloc: deallocating None" after a minute or so of drawing. 6.11.3 is fine.
BROKEN_BINDINGS = {"6.12.0": "it frees None after a while on Python < 3.12 (use 6.11.3)"}


def binding_problem() -> str | None:
    """Why the installed PySide6 cannot run the window for long, or None."""
    import PySide6

    why = BROKEN_BINDINGS.get(PySide6.__version__)
    if why is None or sys.version_info >= (3, 12):
        return None
    return f"PySide6 {PySide6.__version__}: {why}"


def run(
    session: Session,
    *,
    speed: float = 60.0,
    playing: bool = True,
    screenshot: Path | None = None,
    after: float = 3600.0,
) -> int:
    """Show the window until it is closed; with ``screenshot``, run to simulated time ``after``
    as fast as possible, save the window as a PNG there and exit. Returns the exit status."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from gui.window import MainWindow

    problem = binding_problem()
    if problem is not None:
        print(f"batchlab gui: warning: {problem}", file=sys.stderr)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(session, speed=speed, playing=playing and screenshot is None)
    window.show()
    if screenshot is not None:
        window.finished.connect(app.quit)
        window.screenshot_at(after, screenshot)
    status = app.exec()
    # Tear the window down while Qt is whole: left to interpreter shutdown, the C++ objects die
    # in arbitrary order and a pyqtgraph scene now and then outlives its items (a segfault).
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    del window
    gc.collect()
    return int(status)
