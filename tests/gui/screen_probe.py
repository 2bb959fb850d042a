"""Run under Xvfb by ``test_screen_geometry.py`` (and to make ``docs/figures``): open the demo's
windows as ``batchlab gui --demo`` does on a real X display of the size Xvfb was given, run each
to a simulated time, and print as JSON where the clock, the queue's reason column and the status
bar are inside the window; with a directory, save the windows of :data:`FIGURES` there as PNGs.

``python tests/gui/screen_probe.py AFTER [DIRECTORY]``

The figures in ``docs/figures`` (``window-*.png``) were made with ``xvfb-run -a -s "-screen 0
1280x800x24" python tests/gui/screen_probe.py 14400 docs/figures``: 128 colours (Pillow, which
matplotlib brings), a tenth of the size of the window's own PNG.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from emulator.child import Feed
from emulator.session import DEMO_PLATFORM
from gui import presentation
from gui.clock_window import ClockWindow
from gui.compare import CompareWindow
from gui.scenario import Scenario
from gui.views.queue import QueueView
from gui.window import MainWindow
from resources import platform_path

KINDS = ("main", "presentation", "comparison", "comparison presented")
FIGURES = KINDS[:3]  # the windows docs/figures shows


def rect_in(widget: QWidget, window: QWidget) -> list[int]:
    """``widget``'s rectangle in ``window``'s coordinates: x, y, width, height."""
    corner = widget.mapTo(window, QPoint(0, 0))
    return [corner.x(), corner.y(), widget.width(), widget.height()]


def reason_column(queue: QueueView, window: QWidget) -> dict[str, Any]:
    """The reason column's rectangle in the window, and the widest reason on screen."""
    table, model = queue.table, queue.model
    header = table.horizontalHeader()
    column = model.headers.index("NODELIST(REASON)")
    corner = table.viewport().mapTo(window, QPoint(header.sectionViewportPosition(column), 0))
    metrics = table.fontMetrics()
    shown = range(max(0, table.rowAt(0)), min(model.rowCount(), table.rowAt(0) + 20))
    widest = max((metrics.horizontalAdvance(model.row_cells(r)[column]) for r in shown), default=0)
    return {
        "rect": [corner.x(), corner.y(), header.sectionSize(column), table.viewport().height()],
        "hidden": header.isSectionHidden(column),
        "widest_text": widest,
        "viewport": rect_in(table.viewport(), window),
    }


def nodes_inside(window: ClockWindow) -> bool:
    """Whether every cluster's grid of every Nodes view is whole inside its view."""
    views = [window.nodes] if isinstance(window, MainWindow) else [s.nodes for s in window.sides]
    for view in views:
        if not view.isVisible():  # (behind its Gantt's tab)
            continue
        shown = view.graphics.viewport().rect()
        for item in view.images:
            drawn = view.graphics.mapFromScene(item.sceneBoundingRect()).boundingRect()
            if not shown.contains(drawn):
                return False
    return True


def metric_ticks(window: ClockWindow) -> list[dict[str, Any]]:
    """Each metric plot's value axis: the plot's height, its tick labels, their font, and
    whether the axis is wide enough for them."""
    found = []
    for plot in window.metrics.plots:
        axis, box = plot.getAxis("left"), plot.getViewBox()
        low, high = box.viewRange()[1]
        values = axis.tickValues(low, high, box.height())[0][1]
        tick_font = axis.style["tickFont"] or axis.font()
        font = QFontMetrics(tick_font)
        step = values[1] - values[0] if len(values) > 1 else 1.0
        widest = max(font.horizontalAdvance(t) for t in axis.tickStrings(values, 1, step))
        found.append(
            {
                "height": box.height(),
                "labels": len(values),
                "spacing": box.height() * step / (high - low),
                "line": font.height(),
                "points": tick_font.pointSizeF(),
                "fits": axis.width() >= widest + axis.style["tickLength"],
            }
        )
    return found


def summary(window: CompareWindow) -> list[int]:
    """The comparison's figures in the status bar: their rectangle in the window, and the
    width and height their lines need."""
    label = window.summary
    font = label.fontMetrics()
    lines = label.text().splitlines() or [""]
    needed = [max(font.horizontalAdvance(line) for line in lines), font.height() * len(lines)]
    return [*rect_in(label, window), *needed]


def probe(window: ClockWindow, kind: str) -> dict[str, Any]:
    frame = window.frameGeometry()
    screen = window.screen().availableGeometry()
    queues = [window.queue] if isinstance(window, MainWindow) else [s.queue for s in window.sides]
    return {
        "kind": kind,
        "screen": [screen.x(), screen.y(), screen.width(), screen.height()],
        "frame": [frame.x(), frame.y(), frame.width(), frame.height()],
        "window": [0, 0, window.width(), window.height()],
        "clock": rect_in(window.clock, window),
        "clock_visible": window.clock.isVisibleTo(window),
        "clock_points": window.clock.font().pointSizeF(),
        "clock_text": window.clock.text(),
        "status": rect_in(window.statusBar(), window),
        "reasons": [reason_column(queue, window) for queue in queues],
        "nodes_inside": nodes_inside(window),
        "metric_ticks": metric_ticks(window),
        "summary": summary(window) if isinstance(window, CompareWindow) else None,
    }


def small(path: Path) -> None:
    """Rewrite the PNG at ``path`` in 128 colours, without dithering (flat colours stay flat)."""
    from PIL import Image

    with Image.open(path) as image:
        quantized = image.convert("RGB").quantize(
            colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    quantized.save(path, optimize=True)


def main(argv: list[str]) -> None:
    after = float(argv[0])
    directory = Path(argv[1]) if len(argv) > 1 else None
    app = QApplication(sys.argv[:1])
    scenario = Scenario(platform_path(DEMO_PLATFORM), Feed(demo=True), 60.0)
    results = []
    for kind in KINDS:
        window: ClockWindow
        presentation.mode().set(kind in ("presentation", "comparison presented"))
        if kind.startswith("comparison"):
            window = CompareWindow(scenario.open("fcfs"), scenario.open("easy"))
        else:
            window = MainWindow(scenario.open("easy"), scenario=scenario)
        window.show()
        window.finished.connect(app.quit)
        path = (directory or Path.cwd()) / f"window-{kind.replace(' ', '-')}.png"
        if isinstance(window, MainWindow):
            window.screenshot_at(after, path, as_shown=True)
        else:
            window.screenshot_at(after, path)
        app.exec()
        results.append(probe(window, kind))
        window.close()
        window.deleteLater()
        if directory is None or kind not in FIGURES:
            path.unlink()
        else:
            small(path)
    presentation.mode().set(False)
    print(json.dumps(results), flush=True)
    os._exit(0)  # (Qt's teardown at exit may crash: nothing more to say)


if __name__ == "__main__":
    main(sys.argv[1:])
