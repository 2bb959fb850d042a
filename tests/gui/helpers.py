"""Windows for the GUI tests: a main window on a session, with a hand-driven clock."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtWidgets import QApplication, QMainWindow, QTabBar
from pytestqt.qtbot import QtBot

from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.session import Pacer, Session
from gui.window import MainWindow


class FakeClock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def open_window(qtbot: QtBot, session: Session, clock: FakeClock | None = None) -> MainWindow:
    """A shown window on ``session`` whose timer is stopped (the test ticks)."""
    win = MainWindow(session, pacer=Pacer(clock or FakeClock()), speed=10.0)
    win.timer.stop()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def platform(*sizes: int, cores: int = 1) -> Platform:
    """Clusters ``c0``, ``c1``... of ``sizes[k]`` nodes of ``cores`` cores (speed 1, one
    partition ``p`` each)."""
    clusters, first = [], 0
    for k, size in enumerate(sizes):
        nodes = tuple(
            Node(id=first + i, name=f"c{k}n{i + 1}", cluster=k, local=i, cores=cores, speed=1.0)
            for i in range(size)
        )
        partition = Partition("p", tuple(range(size)), True)
        clusters.append(Cluster(f"c{k}", k, nodes, (partition,), 10.0))
        first += size
    return Platform("test", tuple(clusters))


def widget_point(view: Any, item: Any, x: float, y: float) -> QPoint:
    """Where item coordinates (x, y) are in ``view``'s viewport (a pyqtgraph GraphicsView)."""
    point: QPoint = view.mapFromScene(item.mapToScene(QPointF(x, y)))
    return point


def plot_point(plot: Any, x: float, y: float) -> QPoint:
    """Where data coordinates (x, y) of a pyqtgraph PlotWidget are in its viewport."""
    point: QPoint = plot.mapFromScene(plot.getViewBox().mapViewToScene(QPointF(x, y)))
    return point


def tab_bars(qtbot: QtBot, window: QMainWindow) -> list[tuple[str, ...]]:
    """Show ``window`` as ``batchlab gui`` opens it and let its layout settle (events processed
    for 0.1 s, as a running event loop would), then the tabs of each tab bar on screen,
    sorted."""
    qtbot.addWidget(window)
    window.show()
    for _ in range(10):
        QApplication.processEvents()
        time.sleep(0.01)
    bars = window.findChildren(QTabBar)
    shown = [bar for bar in bars if bar.count() and bar.isVisible()]
    return sorted(tuple(bar.tabText(i) for i in range(bar.count())) for bar in shown)
