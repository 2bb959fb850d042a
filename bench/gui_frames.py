"""The GUI benchmarks' big platform and window probe, and what a snapshot of it costs; writes
bench/results/gui.json.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_frames     # under a minute
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_frames --nodes 900 --queued 2000

Platform: ``--nodes`` 4-core nodes in three clusters (speeds 1 / 1.5 / 0.75, 10 Gbit/s links).
Workload: ``--queued`` jobs submitted at time 0 (1-64 tasks, limits of 1-4 h), then
:data:`ARRIVING` times as many arriving at the rate the platform serves them, so the queue stays
about that long while the emulator runs as fast as it can under EASY. :mod:`bench.gui_attached`
and :mod:`bench.gui_compare` run it in daemons under the window (:class:`Phases` probes the
window's ticks and redraws); this module measures, in this process, what every full snapshot
of it costs the daemon that makes it (``snapshot_ms``, :meth:`Session.snapshot`): the first
(every row built), then after 1 event (the fixed cost) and after 50 (about a frame's worth at
full speed). Wall time (``time.perf_counter``) throughout.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emulator.model.job import JobState, Request, Submission
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.session import Session

if TYPE_CHECKING:
    from emulator.remote import RemoteSession

RESULTS = Path(__file__).resolve().parent / "results"
SPEEDS = (1.0, 1.5, 0.75)


def platform(nodes: int, sites: int = 3) -> Platform:
    clusters = []
    first = 0
    for k in range(sites):
        count = nodes // sites + (1 if k < nodes % sites else 0)
        members = tuple(
            Node(id=first + i, name=f"s{k}n{i:05d}", cluster=k, local=i, cores=4, speed=SPEEDS[k])
            for i in range(count)
        )
        partition = Partition("batch", tuple(range(count)), default=True)
        clusters.append(Cluster(f"site{k}", k, members, (partition,), 10.0))
        first += count
    return Platform("bench", tuple(clusters))


MEAN_WORK = 32.5 * 0.6 * (3600 + 7200 + 14400) / 3  # core-seconds of an average job


ARRIVING = 20  # times ``queued``: enough for any run of these benchmarks to keep its queue


def workload(queued: int, sites: int, cores: int, seed: int = 1) -> Iterator[Submission]:
    """``queued`` jobs at time 0, then :data:`ARRIVING` times as many arriving at the rate the
    platform serves them, so the queue stays about ``queued`` long."""
    rng = random.Random(seed)
    spacing = MEAN_WORK / cores
    for job_id in range(1, (ARRIVING + 1) * queued + 1):
        limit = rng.choice((3600, 7200, 14400))
        request = Request(
            tasks=rng.randint(1, 64),
            time_limit=limit,
            name=f"j{job_id}",
            user=f"u{job_id % 37}",
            clusters=(f"site{job_id % sites}",),
        )
        submit = 0.0 if job_id <= queued else (job_id - queued) * spacing
        yield Submission(job_id, submit, request, rng.uniform(0.2, 1.0) * limit)


def build(nodes: int, queued: int) -> Session:
    session = Session(platform(nodes), "easy")
    # made beforehand: drawing it as the session runs would count as the emulator's work
    session.submit_workload(list(workload(queued, 3, session.platform.cores)))
    session.run_until(0.0)  # every job submitted and the first pass run
    return session


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    return {
        "n": len(values),
        "median": round(statistics.median(ordered) * 1000, 2),
        "p95": round(ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)] * 1000, 2),
        "max": round(ordered[-1] * 1000, 2),
    }


class Phases:
    """The window on a daemon's session, and the probes: counts and times taken around the
    real tick. A phase (the caller runs :attr:`loop`) ends when :attr:`over` says so."""

    def __init__(self, windowed: RemoteSession) -> None:
        from PySide6.QtCore import QEventLoop
        from PySide6.QtWidgets import QApplication

        from gui import window as window_module

        self.app = QApplication.instance() or QApplication([])
        window = self.window = window_module.MainWindow(windowed)
        window.timer.stop()
        window.show()
        window.show_every_view()  # the worst case
        self.app.processEvents()
        self.draws = dict.fromkeys(window_module.RATES, 0)
        self.inside = False  # in a view's counted redraw
        for title, dock in window.docks.items():
            if title in self.draws:
                self._count(title, dock.widget())
        self.ticks: list[float] = []  # wall time at the start of each tick
        self.tick_seconds: list[float] = []  # how long each tick took (its painting aside)
        window_tick = window.tick
        self.loop = QEventLoop()  # a phase (QApplication.quit would close the window)
        self.over: Callable[[], bool] = lambda: not window.driver.playing

        def timed_tick() -> None:
            started = time.perf_counter()
            self.ticks.append(started)
            window_tick()
            self.tick_seconds.append(time.perf_counter() - started)
            if self.over():
                self.loop.quit()

        window.timer.timeout.disconnect()
        window.timer.timeout.connect(timed_tick)

    def _count(self, title: str, view: Any) -> None:
        for name in ("show_snapshot", "show_clusters"):  # the nodes: from either snapshot
            if hasattr(view, name):
                setattr(view, name, self._counted(title, getattr(view, name)))

    def _counted(self, title: str, show: Any) -> Any:
        def counted(snapshot: Any) -> None:
            if not self.inside:  # NodesView.show_snapshot draws through show_clusters
                self.draws[title] += 1
            self.inside = True
            try:
                show(snapshot)
            finally:
                self.inside = False

        return counted

    def blocks(self) -> list[float]:
        """Wall seconds between consecutive ticks of one phase."""
        ticks = self.ticks
        return [b - a for a, b in itertools.pairwise(ticks) if a == a and b == b]


def _queued(session: Session) -> int:
    snapshot = session.snapshot()
    return int((snapshot.jobs.state == snapshot.jobs.code(JobState.PENDING)).sum())


def first_snapshot(session: Session) -> float:
    """Milliseconds of the first snapshot: every row built."""
    started = time.perf_counter()
    session.snapshot()
    return round(1000 * (time.perf_counter() - started), 2)


def snapshot_times(session: Session) -> dict[str, Any]:
    """Snapshots after 1 event (the fixed cost) and after 50 (about a frame's worth)."""
    result: dict[str, Any] = {}
    for events in (1, 50):
        times, changed = [], []
        for _ in range(20):
            session.run_until(math.inf, max_events=events)
            changed.append(len(session._dirty))
            started = time.perf_counter()
            session.snapshot()
            times.append(time.perf_counter() - started)
        result[f"after_{events}_events_ms"] = summary(times)
        result[f"after_{events}_events_jobs_changed"] = round(statistics.mean(changed))
    return result


def arguments(doc: str, out: str) -> argparse.Namespace:
    """The options of the GUI benchmarks (``out``: the result file's default name); Qt
    offscreen unless told otherwise."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--queued", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per headless phase")
    parser.add_argument("--rounds", type=int, default=9, help="headless + window phase pairs")
    parser.add_argument("--out", type=Path, default=RESULTS / out)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return args


def main() -> int:
    args = arguments(__doc__, "gui.json")

    started = time.perf_counter()
    session = build(args.nodes, args.queued)
    setup = time.perf_counter() - started
    print(f"setup: {args.nodes} nodes, {args.queued} jobs queued in {setup:.1f} s", flush=True)
    snap = {"first_full_ms": first_snapshot(session), **snapshot_times(session)}
    print(f"snapshot: {snap}", flush=True)
    result = {
        "nodes": args.nodes,
        "cores": session.platform.cores,
        "queued": args.queued,
        "queued_after": _queued(session),
        "scheduler": "easy",
        "setup_s": round(setup, 1),
        "snapshot_ms": snap,
    }
    return save(result, args.out)


def save(result: dict[str, Any], out: Path) -> int:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
