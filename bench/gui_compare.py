"""The comparison window (``batchlab gui --compare``) on two daemons of the big platform of
:mod:`bench.gui_frames`, flat out: how long the window's thread is held, how often it redraws,
and what keeping the two on one clock costs; writes bench/results/gui_compare.json.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_compare     # about a minute

Three identical child daemons (:class:`bench.gui_attached.Daemon`) start paused. The window
runs two of them in lockstep (:class:`gui.driver.Driver`), as fast as it can, for
``--seconds`` x ``--rounds`` wall seconds; then the third advances alone, nobody watching, to
the simulated time the pair reached. Reported: ``held_ms`` (:class:`bench.gui_attached.Held`),
``redraws_per_s``, ``simulated_per_s`` of the pair, and ``lockstep_slowdown``, the pair's wall
time over the lone daemon's for the same simulated span (the lockstep's waits, the second
daemon and the window sharing two cores).
"""

from __future__ import annotations

import math
import time
from typing import Any

from bench.gui_attached import Daemon, Held, daemons, report
from bench.gui_frames import arguments, summary


def measure(pair: list[Daemon], alone: Daemon, wall: float) -> dict[str, Any]:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from emulator.heap import settle_heap
    from emulator.remote import RemoteSession
    from gui.compare import CompareWindow

    app = QApplication.instance() or QApplication([])
    sessions = [RemoteSession(daemon.socket) for daemon in pair]
    window = CompareWindow(*sessions, speed=math.inf)
    window.show()
    app.processEvents()
    settle_heap()
    held = Held()
    redraws = 0
    refresh = window.refresh

    def counted(views: Any = None) -> None:
        nonlocal redraws
        redraws += 1
        refresh(views)

    window.refresh = counted  # type: ignore[method-assign]
    loop = QEventLoop()
    QTimer.singleShot(int(wall * 1000), loop.quit)
    held.start()
    started = time.perf_counter()
    window.play()
    loop.exec()
    window.pause()
    elapsed = time.perf_counter() - started
    held.stop()
    driver = window.driver
    driver.settle()  # both at the last goal
    reached = driver.now
    window.close()
    begun = time.perf_counter()
    answer = alone.advance(reached)
    alone_wall = time.perf_counter() - begun
    if answer != reached:
        raise RuntimeError(f"the lone daemon reached {answer}, not {reached}")
    return {
        "wall_s": round(elapsed, 1),
        "simulated_s": round(reached),
        "simulated_per_s": round(reached / elapsed),
        "lockstep_slowdown": round(elapsed / alone_wall, 2),
        "redraws_per_s": round(redraws / elapsed, 1),
        "held_ms": summary(held.gaps),
    }


def main() -> int:
    args = arguments(__doc__, "gui_compare.json")
    with daemons(3, args.nodes, args.queued) as (first, second, alone):
        result = measure([first, second], alone, args.seconds * args.rounds)
    return report(args, result)


if __name__ == "__main__":
    raise SystemExit(main())
