"""Windows for the GUI tests: a main window on a daemon of its own (as ``batchlab gui`` opens
it), with a hand-driven wall clock, and the platforms such daemons run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtWidgets import QApplication, QMainWindow, QTabBar
from pytestqt.qtbot import QtBot

from emulator.child import ChildSession, Feed, open_child
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.model.platform_file import load_platform
from emulator.remote import RemoteSession
from emulator.session import Pacer
from gui.scenario import Scenario
from gui.window import MainWindow

REACH_TIMEOUT = 60.0  # wall seconds a daemon may take to run its clock somewhere


class FakeClock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def open_window(
    qtbot: QtBot,
    session: RemoteSession,
    clock: FakeClock | None = None,
    scenario: Scenario | None = None,
) -> MainWindow:
    """A shown window on ``session`` (of ``scenario``, if given) whose timer is stopped (the
    test ticks); closed (its daemon stopped) at the end of the test."""
    win = MainWindow(session, pacer=Pacer(clock or FakeClock()), scenario=scenario)
    win.timer.stop()
    win.resize(1600, 1000)  # (the offscreen platform's screen is 800 x 600)
    qtbot.addWidget(win, before_close_func=lambda widget: widget.close())
    win.show()
    qtbot.waitExposed(win)
    return win


def platform(*sizes: int, cores: int = 1) -> Platform:
    """Clusters ``c0``, ``c1``... of ``sizes[k]`` nodes ``cKn1``... of ``cores`` cores (speed 1,
    one partition ``p`` each, a link of 10 Gbit/s)."""
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


def platform_file(directory: Path, *sizes: int, cores: int = 1) -> Path:
    """:func:`platform`'s platform as a TOML file in ``directory``, for a daemon."""
    text = 'name = "test"\n'
    for k, size in enumerate(sizes):
        names = ", ".join(f"c{k}n{i + 1}" for i in range(size))
        text += f'\n[[clusters]]\nname = "c{k}"\nlink_capacity = 10.0\n'
        text += f'\n[[clusters.nodes]]\nnames = "{names}"\ncores = {cores}\nspeed = 1.0\n'
        text += '\n[[clusters.partitions]]\nname = "p"\ndefault = true\n'
    path = directory / f"test-{'-'.join(map(str, sizes))}-{cores}.toml"
    path.write_text(text, encoding="utf-8")
    assert load_platform(path) == platform(*sizes, cores=cores)
    return path


def single_cluster_file(directory: Path, cores: int) -> Path:
    """:meth:`Platform.single_cluster`'s platform (``cores`` single-core nodes) as a file."""
    width = max(len(str(cores)), 3)
    text = 'name = "cluster"\n\n[[clusters]]\nname = "cluster"\n\n[[clusters.nodes]]\n'
    text += f'names = "n[{1:0{width}d}-{cores:0{width}d}]"\ncores = 1\nspeed = 1.0\n'
    path = directory / f"single-{cores}.toml"
    path.write_text(text, encoding="utf-8")
    assert load_platform(path) == Platform.single_cluster(cores)
    return path


def daemon(
    file: Path, scheduler: str, *lines: str, user: str | None = None, feed: Feed | None = None
) -> ChildSession:
    """A child daemon on the platform ``file`` (fed ``feed``), paused at 0, that ran ``lines``
    (console lines) as ``user`` (default: the operator, this process's user)."""
    session = open_child(file, scheduler, feed)
    if user is not None:
        session.command(f"as {user}")
    for line in lines:
        result = session.command(line)
        assert result.exit_code == 0, result.stderr
    return session


def run_to(session: RemoteSession, until: float) -> None:
    """The daemon's clock to simulated time ``until`` (every event there, and its pass)."""
    reached = session.reach({"action": "until", "value": until}, f"@ {until:g}")
    assert reached.wait(REACH_TIMEOUT), f"the daemon did not reach {until:g} in time"
    assert session.now == until


def run_idle(session: RemoteSession) -> None:
    """The daemon's clock until nothing is left to happen (``wait`` in the console)."""
    reached = session.reach({"action": "idle"}, "wait")
    assert reached.wait(REACH_TIMEOUT), "the daemon did not run idle in time"
    assert session.idle


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
    qtbot.addWidget(window, before_close_func=lambda widget: widget.close())
    window.show()
    for _ in range(10):
        QApplication.processEvents()
        time.sleep(0.01)
    bars = window.findChildren(QTabBar)
    shown = [bar for bar in bars if bar.count() and bar.isVisible()]
    return sorted(tuple(bar.tabText(i) for i in range(bar.count())) for bar in shown)
