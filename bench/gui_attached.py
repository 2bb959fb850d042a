"""The window attached to its emulator's daemon (``batchlab gui``, and ``batchlab gui
--socket``) on the big platform of :mod:`bench.gui_frames`: how much the GUI slows the
emulator, which has a process (and so a core) of its own; writes
bench/results/gui_attached.json.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_attached   # minutes: first_instant_s

Two identical daemons (:class:`emulator.child.ChildDaemon`, as ``batchlab gui`` starts its
own: the real controller over the platform and workload of :mod:`bench.gui_frames`, written
to a TOML file and an SWF trace, the daemon's ``--workload``) start paused. Each round the benchmark
asks both to ``clock advance`` by the same simulated duration, one after the other: the
*headless* one, nobody watching, and the *watched* one, while the window (offscreen, every
dock on screen) is attached to it and redraws from its answers. Both thus process exactly the
same events. The duration is sized so that a headless advance takes about ``--seconds``. Wall
time (``time.perf_counter``):

* ``slowdown``: the watched advance's wall time over the headless one's, per round (median;
  ``slowdown_overall``: of the totals); ``daemon_cpu_slowdown``: the same in the daemons' CPU
  time (``/proc/PID/stat``), which other processes disturb less;
* ``first_instant_s``: the daemons' first instant, run before the rounds (see
  :func:`first_instant`);
* ``window.redraws_per_s``: the redraws that showed state the window had not shown yet (a
  nodes update or a full snapshot of a newer version: ``MainWindow.frames``), per wall second
  of the watched advances (``redraws_per_s_per_round``: each round's);
  ``window.daemon_states_per_s``: the versions the watched daemon made meanwhile (one per
  instant it ran), the most the window could have shown; ``window.gui_cpu_ms_per_redraw`` and
  ``window.daemon_cpu_ms_per_redraw``: the GUI's and the watched daemon's CPU time per such
  redraw, which a loaded host disturbs less than the rate; ``window.tick_ms``: how long the
  timer's callback held the thread (the redraw, and taking the nodes the daemon sent; Qt's
  painting after it aside); ``window.block_ms``: from one tick's start to the next (the timer
  fires every 34 ms here, the emulator not being in this process); ``window.held_ms``: the
  gaps between the firings of a timer set to fire every 5 ms, so the longest an input event
  waited for the window's thread, whatever held it (a tick, Qt's painting, the collector, the
  thread that fetches snapshots holding the GIL);
  ``window.snapshots_per_s``: the full snapshots the window fetched (each one the daemon made
  and encoded, and the window decoded; the other frames take the nodes alone);
  ``window.cpu_per_wall``: how busy the GUI process was.

The rounds alternate which daemon advances first: the host's speed drifts.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.gui_frames import SPEEDS, Phases, arguments, save, summary, workload
from emulator.child import ChildDaemon, Feed
from emulator.daemon.client import call
from workloads.swf import SwfHeader, SwfRecord, write_swf

PROBE_MS = 5  # the period of the timer that notes when the window's event loop is free


def platform_toml(nodes: int, sites: int = 3) -> str:
    """:func:`bench.gui_frames.platform` as a platform file."""
    lines = ['name = "bench"', ""]
    for k in range(sites):
        count = nodes // sites + (1 if k < nodes % sites else 0)
        lines += [
            "[[clusters]]",
            f'name = "site{k}"',
            "link_capacity = 10.0",
            "[[clusters.nodes]]",
            f'names = "s{k}n[00000-{count - 1:05d}]"',
            "cores = 4",
            f"speed = {SPEEDS[k]}",
            "[[clusters.partitions]]",
            'name = "batch"',
            "default = true",
            "",
        ]
    return "\n".join(lines)


def trace(path: Path, nodes: int, queued: int) -> None:
    """:func:`bench.gui_frames.workload` as an SWF trace. SWF has no field for the site a job
    is pinned to: in the daemons, the jobs go where the scheduler puts them."""
    cores = 4 * nodes
    records = (
        SwfRecord(
            job_id=job.job_id,
            submit=job.submit,
            wait=-1,
            run_time=job.runtime,
            allocated=job.request.tasks,
            cpu_time=-1,
            memory=-1,
            requested=job.request.tasks,
            requested_time=job.request.time_limit,
            requested_memory=-1,
            status=1,
            user=job.job_id % 37,
            group=-1,
            executable=-1,
            queue=-1,
            partition=-1,
            preceding=-1,
            think_time=-1,
        )
        for job in workload(queued, 3, cores)
    )
    write_swf(path, SwfHeader(), records)


class Daemon(ChildDaemon):
    """A child daemon (:class:`emulator.child.ChildDaemon`, as ``batchlab gui`` starts one),
    paused, with the benchmark's workload."""

    def __init__(self, directory: Path, nodes: int, queued: int) -> None:
        platform_file = directory / "bench.toml"
        if not platform_file.exists():
            platform_file.write_text(platform_toml(nodes), encoding="utf-8")
        jobs = directory / f"bench-{queued}.swf"
        if not jobs.exists():
            trace(jobs, nodes, queued)
        super().__init__(platform_file, "easy", Feed(workload=jobs), speed=math.inf)

    def advance(self, seconds: float) -> float:
        """Advance the clock by ``seconds``; the simulated time reached."""
        answer = call(self.socket, "clock", timeout=None, action="advance", value=seconds)
        return float(answer["clock"]["now"])

    def version(self) -> int:
        """The version of the daemon's state (each instant it runs makes a new one)."""
        answer = call(self.socket, "snapshot", timeout=None, nodes=True, since=None)
        return int(answer["nodes"]["version"])

    def cpu(self) -> float:
        """CPU seconds the daemon used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Held:
    """How long the window's event loop was held: a timer every :data:`PROBE_MS` notes when
    it fired, and a gap between two notes (:attr:`gaps`, seconds) is how long an input event
    could have waited, whatever held the thread (a tick, Qt's painting, the collector, a
    thread that fetches snapshots holding the GIL)."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(PROBE_MS)
        self._fired: list[float] = []
        self.timer.timeout.connect(lambda: self._fired.append(time.perf_counter()))
        self.gaps: list[float] = []

    def start(self) -> None:
        self._fired.clear()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.gaps += [later - earlier for earlier, later in itertools.pairwise(self._fired)]


def first_instant(started: list[Daemon]) -> float:
    """Run every daemon's first instant, at once (a core each), untimed by the rounds: the
    queue's jobs all arrive then, and each, pinned to no site, goes to the site where it would
    start first, which replans that site's queue; the daemon answers no one meanwhile. The
    rounds measure the queue as it then stays (as the in-process benchmark, which runs it in
    :func:`bench.gui_frames.build`). Returns its wall seconds."""
    started_at = time.perf_counter()
    threads = [threading.Thread(target=daemon.advance, args=(0.0,)) for daemon in started]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started_at


def measure(headless: Daemon, watched: Daemon, seconds: float, rounds: int) -> dict[str, Any]:
    from emulator.heap import settle_heap
    from emulator.remote import RemoteSession

    first = first_instant([headless, watched])

    session = RemoteSession(watched.socket)
    phases = Phases(session)
    window = phases.window
    outcome: list[float] = []  # the watched daemon's answer to a round's advance
    phases.over = lambda: bool(outcome)
    settle_heap()
    ratios, cpu_ratios = [], []
    headless_wall = watched_wall = headless_cpu = watched_cpu = gui_cpu = 0.0
    redraws = fetched = states = 0
    per_round: list[float] = []  # redraws per second, each round

    def unwatched(step: float) -> tuple[float, float, float]:
        cpu0, started = headless.cpu(), time.perf_counter()
        reached = headless.advance(step)
        return time.perf_counter() - started, headless.cpu() - cpu0, reached

    held = Held()

    def shown(step: float) -> tuple[float, float, float]:
        nonlocal gui_cpu, redraws, fetched, states
        outcome.clear()
        version0 = watched.version()
        advancing = threading.Thread(target=lambda: outcome.append(watched.advance(step)))
        frames0, snapshots0 = window.frames, session.fetches
        phases.ticks.append(math.nan)
        window.timer.start()
        held.start()
        cpu0, gui0, started = watched.cpu(), time.process_time(), time.perf_counter()
        advancing.start()
        phases.loop.exec()
        advancing.join()
        wall, cpu = time.perf_counter() - started, watched.cpu() - cpu0
        gui_cpu += time.process_time() - gui0
        held.stop()
        window.timer.stop()
        redraws += window.frames - frames0
        fetched += session.fetches - snapshots0
        states += watched.version() - version0
        per_round.append(round((window.frames - frames0) / wall, 1))
        return wall, cpu, outcome[0]

    step = 3600.0  # simulated seconds per round, sized from the first rounds
    for round_ in range(rounds):
        # in turns, the watched advance first: the host's speed drifts, and the later phase
        # of a pair would otherwise always bear the drift
        if round_ % 2:
            watched_phase = shown(step)
            headless_phase = unwatched(step)
        else:
            headless_phase = unwatched(step)
            watched_phase = shown(step)
        (wall, cpu, reached), (shown_wall, shown_cpu, shown_at) = headless_phase, watched_phase
        if shown_at != reached:
            raise RuntimeError(f"the watched daemon reached {shown_at}, not {reached}")
        headless_wall += wall
        headless_cpu += cpu
        watched_wall += shown_wall
        watched_cpu += shown_cpu
        ratios.append(shown_wall / wall)
        cpu_ratios.append(shown_cpu / cpu)
        step *= min(4.0, max(0.25, seconds / wall))
    result = {
        "first_instant_s": round(first, 1),
        "rounds": rounds,
        "phase_s": seconds,
        "slowdown_per_round": [round(ratio, 2) for ratio in ratios],
        "slowdown": round(statistics.median(ratios), 2),
        "slowdown_overall": round(watched_wall / headless_wall, 2),
        "daemon_cpu_slowdown": round(statistics.median(cpu_ratios), 2),
        "daemon_cpu_per_wall": {
            "headless": round(headless_cpu / headless_wall, 2),
            "watched": round(watched_cpu / watched_wall, 2),
        },
        "window": {
            "redraws_per_s": round(redraws / watched_wall, 1),
            "redraws_per_s_per_round": per_round,
            "daemon_states_per_s": round(states / watched_wall, 1),
            "gui_cpu_ms_per_redraw": round(1000 * gui_cpu / max(1, redraws), 2),
            "daemon_cpu_ms_per_redraw": round(1000 * watched_cpu / max(1, redraws), 2),
            "snapshots_per_s": round(fetched / watched_wall, 1),
            "block_ms": summary(phases.blocks()),
            "tick_ms": summary(phases.tick_seconds),
            "held_ms": summary(held.gaps),
            "cpu_per_wall": round(gui_cpu / watched_wall, 2),
        },
        "simulated_s": round(session.now),
    }
    window.close()
    session.close()
    return result


@contextmanager
def daemons(count: int, nodes: int, queued: int) -> Iterator[list[Daemon]]:
    """``count`` identical daemons, ready; stopped at the end."""
    with tempfile.TemporaryDirectory(prefix="batchlab-bench-") as directory:
        started = [Daemon(Path(directory), nodes, queued) for _ in range(count)]
        try:
            for daemon in started:
                daemon.wait_ready()
            yield started
        finally:
            for daemon in started:
                daemon.stop()


def report(args: argparse.Namespace, result: dict[str, Any]) -> int:
    """Print ``result`` with the platform's size and save it to ``args.out``."""
    result = {"nodes": args.nodes, "queued": args.queued, "scheduler": "easy", **result}
    print(json.dumps(result))
    return save(result, args.out)


def main() -> int:
    args = arguments(__doc__, "gui_attached.json")
    with daemons(2, args.nodes, args.queued) as (headless, watched):
        result = measure(headless, watched, args.seconds, args.rounds)
    return report(args, result)


if __name__ == "__main__":
    raise SystemExit(main())
