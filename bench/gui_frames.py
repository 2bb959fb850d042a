"""GUI frame times on a big platform, and how much the GUI slows the emulator; writes
bench/results/gui.json.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_frames     # a few minutes: setup
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_frames --nodes 900 --queued 2000

Platform: ``--nodes`` 4-core nodes in three clusters (speeds 1 / 1.5 / 0.75, 10 Gbit/s links).
Workload: ``--queued`` jobs submitted at time 0 (1-64 tasks, pinned round-robin to a cluster,
limits of 1-4 h), then 4 times as many arriving at the rate the platform serves them, so the queue
stays about that long while the emulator runs as fast as it can (speed "as fast as possible")
under EASY.

Measured, wall time (``time.perf_counter``):

* ``snapshot_ms``: :meth:`Session.snapshot`: the first (every row built), then after 1 event
  (the fixed cost) and after 200 (about 40 us more per job that changed);
* ``frame_ms``: each timer tick of the window (offscreen, all docks visible, the real QTimer at
  <= 30 Hz): the emulator's slice plus the redraw, and the redraw alone, as median / p95 / max;
  ``queue_refresh_ms``: the ticks that also refreshed the queue table;
* ``emulator``: engine events per wall second, headless (the same :class:`gui.driver.Driver`
  ticks back to back, nothing drawn) and inside the window; ``slowdown`` is their ratio.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from emulator.model.job import JobState, Request, Submission
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.session import Session

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


def workload(queued: int, sites: int, cores: int, seed: int = 1) -> list[Submission]:
    """``queued`` jobs at time 0, then 4 times as many arriving at the rate the platform
    serves them, so the queue stays about ``queued`` long."""
    rng = random.Random(seed)
    jobs = []
    spacing = MEAN_WORK / cores
    for job_id in range(1, 5 * queued + 1):
        limit = rng.choice((3600, 7200, 14400))
        request = Request(
            tasks=rng.randint(1, 64),
            time_limit=limit,
            name=f"j{job_id}",
            user=f"u{job_id % 37}",
            clusters=(f"site{job_id % sites}",),
        )
        submit = 0.0 if job_id <= queued else (job_id - queued) * spacing
        jobs.append(Submission(job_id, submit, request, rng.uniform(0.2, 1.0) * limit))
    return jobs


def build(nodes: int, queued: int) -> Session:
    session = Session(platform(nodes), "easy")
    session.submit_workload(workload(queued, 3, session.platform.cores))
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


def headless(session: Session, seconds: float) -> dict[str, float]:
    from gui.driver import Driver

    driver = Driver(session)
    driver.set_speed(math.inf)
    driver.play()
    events = 0
    started = time.perf_counter()
    now0 = session.now
    while time.perf_counter() - started < seconds and driver.playing:
        events += driver.tick()
    wall = time.perf_counter() - started
    return {
        "events": events,
        "wall_s": round(wall, 3),
        "events_per_s": round(events / wall),
        "sim_s_per_wall_s": round((session.now - now0) / wall),
    }


def windowed(session: Session, seconds: float) -> dict[str, Any]:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from gui import window as window_module

    app = QApplication.instance() or QApplication([])
    window = window_module.MainWindow(session, speed=math.inf)
    # the Links view out of its tab: every plot visible, the worst case
    window.splitDockWidget(window.docks["Metrics"], window.docks["Links"], Qt.Orientation.Vertical)
    window.show()
    app.processEvents()
    frames: list[float] = []
    draws: list[float] = []
    queue_frames: list[float] = []
    original_tick = window.tick

    def timed_tick() -> None:
        start = time.perf_counter()
        queue_before = window.queue_tick
        original_tick()
        app.processEvents()  # the repaints the tick scheduled (offscreen rendering)
        elapsed = time.perf_counter() - start
        (queue_frames if window.queue_tick != queue_before else frames).append(elapsed)
        draws.append(window.draw_time)

    window.timer.timeout.disconnect()
    window.timer.timeout.connect(timed_tick)
    queued0 = _queued(session)
    now0 = session.now
    window.play()
    started = time.perf_counter()
    QTimer.singleShot(int(seconds * 1000), app.quit)
    app.exec()
    wall = time.perf_counter() - started
    window.timer.stop()
    result = {
        "frames": len(frames) + len(queue_frames),
        "frames_per_s": round((len(frames) + len(queue_frames)) / wall, 1),
        "frame_ms": summary(frames),
        "redraw_ms_smoothed": summary(draws),
        "queue_refresh_ms": summary(queue_frames),
        "events": window.events_done,
        "events_per_s": round(window.events_done / wall),
        "sim_s_per_wall_s": round((session.now - now0) / wall),
        "queue_length": [queued0, _queued(session)],
        "gantt_rectangles": window.gantt.rectangles,
    }
    window.close()
    return result


def _queued(session: Session) -> int:
    snapshot = session.snapshot()
    return int((snapshot.jobs.state == snapshot.jobs.code(JobState.PENDING)).sum())


def snapshot_times(session: Session) -> dict[str, Any]:
    """The first snapshot (every row built), then snapshots after 1 and after 200 events."""
    started = time.perf_counter()
    session.snapshot()
    first = time.perf_counter() - started
    result: dict[str, Any] = {"first_full_ms": round(first * 1000, 2)}
    for events in (1, 200):
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--queued", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=8.0, help="wall seconds per measurement")
    parser.add_argument("--out", type=Path, default=RESULTS / "gui.json")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    started = time.perf_counter()
    base = build(args.nodes, args.queued)
    setup = time.perf_counter() - started
    print(f"setup: {args.nodes} nodes, {args.queued} jobs queued in {setup:.1f} s", flush=True)
    alone = headless(base, args.seconds)
    print(f"headless: {alone}", flush=True)
    snap = snapshot_times(base)
    print(f"snapshot: {snap}", flush=True)
    inside = windowed(build(args.nodes, args.queued), args.seconds)
    print(f"window: {inside}", flush=True)
    import pyqtgraph
    import PySide6

    result = {
        "nodes": args.nodes,
        "cores": base.platform.cores,
        "queued": args.queued,
        "scheduler": "easy",
        "setup_s": round(setup, 1),
        "snapshot_ms": snap,
        "headless": alone,
        "window": inside,
        "slowdown": round(alone["events_per_s"] / max(1, inside["events_per_s"]), 2),
        "pyside6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
        "platform": "QT_QPA_PLATFORM=" + os.environ.get("QT_QPA_PLATFORM", ""),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
