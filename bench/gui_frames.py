"""GUI frame times on a big platform, and how much the GUI slows the emulator; writes
bench/results/gui.json.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_frames     # about a minute
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_frames --nodes 900 --queued 2000

Platform: ``--nodes`` 4-core nodes in three clusters (speeds 1 / 1.5 / 0.75, 10 Gbit/s links).
Workload: ``--queued`` jobs submitted at time 0 (1-64 tasks, pinned round-robin to a cluster,
limits of 1-4 h), then :data:`ARRIVING` times as many arriving at the rate the platform serves
them, so the queue stays about that long while the emulator runs as fast as it can (speed "as
fast as possible") under EASY.

Two identical sessions (the emulator is deterministic) run in alternating phases, ``--rounds``
times: *headless*, the first session driven for ``--seconds`` by a :class:`gui.driver.Driver`
ticking back to back with the largest slice, nothing drawn; then *window*, the second session in
the window (offscreen, 1600 x 1000, every dock on screen: the Links view and the event log out of
their tabs) with its real timer and schedule, after :func:`emulator.heap.settle_heap` as ``batchlab
gui`` does, until it reaches the simulated time the headless phase reached. Both phases thus
process exactly the same events (an event's cost depends a lot on the state: the queue's length,
how many jobs a pass starts), under about the same load from other processes (the machine is
shared). Wall time (``time.perf_counter``) throughout:

* ``slowdown``: window wall time over headless wall time for the same events, per round (median;
  ``slowdown_overall``: of the totals). Short phases, many rounds: the host's speed drifts by
  tens of percent over seconds, which a single long pair of phases would take for the GUI's
  doing;
  ``cpu``: the same in CPU time of this process (``time.process_time``), which other processes
  on the machine disturb less than wall time (``cpu_per_wall`` says how much CPU it got);
* ``window.redraws_per_s`` and ``redraws_by_view``: how often the window redrew, and each view;
* ``window.block_ms``: how long the thread was held between two visits of the event loop (a
  tick, its slice and redraw, and the painting that follows: one timer period when the timer
  runs back to back), median / p95 / max: the GUI's latency to input;
* ``window.emulation_share``: the part of the wall time spent in the emulator's slices
  (``cpu.emulation_share``: of the CPU time; ``cpu.event_cost_ratio``: CPU per event in those
  slices over CPU per event headless);
  ``gui_ms_per_redraw``: the rest (snapshot, views, Qt's painting) per redraw;
* ``gc_ms_per_s``, ``gc_pause_ms``: Python's garbage collections, per wall second in each kind
  of phase, and their pauses in the window phases (a collection pauses emulator and GUI alike);
* ``snapshot_ms``: :meth:`Session.snapshot` alone: the first (every row built), then after 1
  event (the fixed cost) and after 50 (about one frame's worth at full speed).
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
    """The headless session's driver, the window on the other session (or on a daemon's: no
    headless driver then), and the probes: counts and times taken around the real tick. A window
    phase ends when :attr:`over` says so: by default when the window's driver stops playing."""

    def __init__(self, headless: Session | None, windowed: Session | RemoteSession) -> None:
        from PySide6.QtCore import QEventLoop
        from PySide6.QtWidgets import QApplication

        from gui import window as window_module
        from gui.driver import Driver

        self.app = QApplication.instance() or QApplication([])
        if headless is not None:
            self.driver = Driver(headless)
            self.driver.set_speed(math.inf)
        window = self.window = window_module.MainWindow(windowed, speed=math.inf)
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
        self.slices = 0.0  # wall seconds spent in the emulator's slices (window phases)
        self.slices_cpu = 0.0  # and CPU seconds
        self.timing = False  # in a window phase
        driver_tick = window.driver.tick

        def timed_slice() -> int:
            started, cpu = time.perf_counter(), time.process_time()
            try:
                return driver_tick()
            finally:
                if self.timing:
                    self.slices += time.perf_counter() - started
                    self.slices_cpu += time.process_time() - cpu

        window.driver.tick = timed_slice  # type: ignore[method-assign]
        window_tick = window.tick
        self.loop = QEventLoop()  # a window phase (QApplication.quit would close the window)
        self.over: Callable[[], bool] = lambda: not window.driver.playing

        def timed_tick() -> None:
            started = time.perf_counter()
            self.ticks.append(started)
            window_tick()
            self.tick_seconds.append(time.perf_counter() - started)
            if self.over():  # e.g. at the headless phase's simulated time
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

    def headless(self, seconds: float, until: float = math.inf) -> tuple[int, float, float]:
        """The headless session's driver, ticking back to back with the largest slice for
        ``seconds`` or until simulated time ``until``, then to the end of the instant it
        reached: (events, wall seconds, CPU seconds)."""
        from gui.driver import BLOCK

        driver = self.driver
        session = driver.session
        driver.stop_at = until
        driver.play()
        events = 0
        started, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - started < seconds and driver.playing:
            driver.budget = BLOCK
            events += driver.tick()
        events += session.run_until(session.now)
        driver.pause()
        driver.stop_at = math.inf
        return events, time.perf_counter() - started, time.process_time() - cpu

    def windowed(self, until: float, timeout: float) -> tuple[int, float, float, int]:
        """The window's own timer until its session reaches simulated time ``until`` (or
        ``timeout`` wall seconds pass): (events, wall seconds, CPU seconds, redraws)."""
        from PySide6.QtCore import QTimer

        window = self.window
        events0, frames0 = window.events_done, window.frames
        self.ticks.append(math.nan)  # a break between phases
        window.driver.stop_at = until
        window.play()
        window.timer.start()
        self.timing = True
        started, cpu = time.perf_counter(), time.process_time()
        limit = QTimer()  # (not a single shot: one left over would end a later phase)
        limit.setSingleShot(True)
        limit.timeout.connect(self.loop.quit)
        limit.start(int(timeout * 1000))
        self.loop.exec()
        limit.stop()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        self.timing = False
        window.timer.stop()
        window.pause()
        window.driver.stop_at = math.inf
        return window.events_done - events0, wall, cpu, window.frames - frames0

    def blocks(self) -> list[float]:
        """Wall seconds between consecutive ticks of one phase (the timer runs back to back)."""
        ticks = self.ticks
        return [b - a for a, b in itertools.pairwise(ticks) if a == a and b == b]


def measure(headless: Session, session: Session, seconds: float, rounds: int) -> dict[str, Any]:
    """The phases, ``headless`` and ``session`` (the window's) built alike."""
    import gc

    from emulator.heap import settle_heap

    phases = Phases(headless, session)
    settle_heap()  # as gui.app does before showing the window
    pauses: dict[str, list[float]] = {"headless": [], "window": []}
    kind = ["headless"]
    mark = [0.0]

    def timed_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            mark[0] = time.perf_counter()
        else:
            pauses[kind[0]].append(time.perf_counter() - mark[0])

    headless_rates, window_rates, ratios, cpu_ratios = [], [], [], []
    window_wall = headless_wall = window_cpu = headless_cpu = 0.0
    redraws = headless_events = window_events = 0
    queued0 = _queued(session)
    now0 = session.now
    gc.callbacks.append(timed_gc)
    step = 0.0  # simulated seconds the last headless phase covered
    for round_ in range(rounds):
        # in turns, the window phase first (to where the last headless phase's span takes it):
        # the host's speed drifts, and the later phase of a pair would always bear the drift
        window_first = round_ % 2 == 1
        if window_first:
            kind[0] = "window"
            shown, shown_wall, shown_cpu, frames = phases.windowed(
                session.now + step, timeout=20 * seconds
            )
        kind[0] = "headless"
        start = headless.now
        if window_first:
            events, wall, cpu = phases.headless(math.inf, until=session.now)
        else:
            events, wall, cpu = phases.headless(seconds)
        step = headless.now - start
        if not window_first:
            kind[0] = "window"
            shown, shown_wall, shown_cpu, frames = phases.windowed(
                headless.now, timeout=20 * seconds
            )
        if session.now != headless.now:
            raise RuntimeError(f"the window phase stopped at {session.now}, not {headless.now}")
        headless_rates.append(events / wall)
        headless_wall += wall
        headless_cpu += cpu
        headless_events += events
        window_rates.append(shown / shown_wall)
        ratios.append(shown_wall / wall)
        cpu_ratios.append(shown_cpu / cpu)
        window_wall += shown_wall
        window_cpu += shown_cpu
        window_events += shown
        redraws += frames
    gc.callbacks.remove(timed_gc)
    share = phases.slices / window_wall
    result = {
        "rounds": rounds,
        "phase_s": seconds,
        "headless_events_per_s": [round(rate) for rate in headless_rates],
        "window_events_per_s": [round(rate) for rate in window_rates],
        "slowdown_per_round": [round(ratio, 2) for ratio in ratios],
        "slowdown": round(statistics.median(ratios), 2),
        "slowdown_overall": round(window_wall / headless_wall, 2),
        "cpu": {
            "slowdown_per_round": [round(ratio, 2) for ratio in cpu_ratios],
            "slowdown": round(statistics.median(cpu_ratios), 2),
            "slowdown_overall": round(window_cpu / headless_cpu, 2),
            "emulation_share": round(phases.slices_cpu / window_cpu, 3),
            # CPU per event in the window's slices over CPU per event headless: what the GUI
            # costs the emulator beyond its share of the thread (the caches it refills)
            "event_cost_ratio": round(
                (phases.slices_cpu / max(1, window_events))
                / (headless_cpu / max(1, headless_events)),
                2,
            ),
            "gui_ms_per_redraw": round(
                1000 * (window_cpu - phases.slices_cpu) / max(1, redraws), 2
            ),
            "cpu_per_wall": {
                "headless": round(headless_cpu / headless_wall, 2),
                "window": round(window_cpu / window_wall, 2),
            },
        },
        "gc_ms_per_s": {
            "headless": round(1000 * sum(pauses["headless"]) / headless_wall, 1),
            "window": round(1000 * sum(pauses["window"]) / window_wall, 1),
        },
        "window": {
            "redraws_per_s": round(redraws / window_wall, 1),
            "redraws_by_view_per_s": {
                title: round(count / window_wall, 1) for title, count in phases.draws.items()
            },
            "block_ms": summary(phases.blocks()),
            "emulation_share": round(share, 3),
            "gui_ms_per_redraw": round(1000 * (window_wall - phases.slices) / max(1, redraws), 2),
            "gc_pause_ms": summary(pauses["window"]),
            "gantt_rectangles": phases.window.gantt.rectangles,
        },
        "simulated_s": round(session.now - now0),
        "queue_length": [queued0, _queued(session)],
    }
    phases.window.close()
    return result


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
    first = first_snapshot(session)
    phases = measure(build(args.nodes, args.queued), session, args.seconds, args.rounds)
    print(f"phases: {phases}", flush=True)
    snap = {"first_full_ms": first, **snapshot_times(session)}
    print(f"snapshot: {snap}", flush=True)
    import pyqtgraph
    import PySide6

    result = {
        "nodes": args.nodes,
        "cores": session.platform.cores,
        "queued": args.queued,
        "scheduler": "easy",
        "setup_s": round(setup, 1),
        **phases,
        "snapshot_ms": snap,
        "pyside6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
        "platform": "QT_QPA_PLATFORM=" + os.environ.get("QT_QPA_PLATFORM", ""),
    }
    return save(result, args.out)


def save(result: dict[str, Any], out: Path) -> int:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
