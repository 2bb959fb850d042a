"""A daemon flat out against ``batchlab replay`` of the same workload on the same platform;
writes bench/results/daemon_flat_out.json.

    nice -n 10 .venv/bin/python -m bench.daemon_flat_out            # 10,000 nodes, 100,000 jobs
    nice -n 10 .venv/bin/python -m bench.daemon_flat_out --quick    # 1,000 nodes, 10,000 jobs
    nice -n 10 .venv/bin/python -m bench.daemon_flat_out --submitted  # all jobs sbatch'ed at once
    nice -n 10 .venv/bin/python -m bench.daemon_flat_out --quick --submitted --reads --jobs 100000

The platform and the trace are :mod:`bench.gui_attached`'s (three sites of 4-core nodes, EASY;
a queue held about ``jobs / 21`` long, the rest arriving at the rate the platform serves them),
written to a TOML file and an SWF trace. ``batchlab replay`` runs in a child process; the
daemon is a child ``batchlab daemon start --foreground --workload TRACE`` with its journal, as
``batchlab gui`` starts one, and is timed from ``clock speed max`` with ``clock until idle`` to
the answer. Both are wall times (``time.perf_counter``) of the whole run, start-up aside for
the daemon (it starts paused) and included for the replay (reading the trace is its work too),
and CPU seconds; the replay runs as niced as the daemon (:data:`emulator.child.NICE`).
With ``--submitted``, on one site (``sbatch`` without ``-M`` submits to the first cluster),
every job is submitted at time 0, to the daemon as a command file of ``sbatch`` lines
(``--commands``: the controller's own path, its start-up aside from the timing) and to the
replay as the same jobs in an SWF trace. The goal (issue 21) is a daemon at
least half as fast as the replay: ``ratio`` >= 0.5. Before the clock starts, ``squeue`` and
``sacct`` are timed through the socket (``reads_before_start_seconds``, wall and the daemon's
CPU, best of 3): with ``--submitted`` that is over the whole queue, and ``--reads`` times only
these (bench/results/daemon_reads_N.json). The daemon's CPU seconds are given beside the wall
times: the machine is shared, and the daemon runs niced (:data:`emulator.child.NICE`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform as host
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.gui_attached import platform_toml, trace
from emulator.child import NICE, ChildDaemon, Feed
from emulator.daemon.client import call
from workloads.swf import SwfHeader, SwfRecord, write_swf

RESULTS = Path(__file__).resolve().parent / "results"


def replay_seconds(platform_file: Path, jobs: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``batchlab replay`` in a child process."""
    began = time.perf_counter()
    command = [sys.executable, "-m", "emulator.cli", "replay", "-q", "-s", "easy"]
    child = subprocess.Popen(  # as niced as the daemon (emulator.child lowers its priority)
        [*command, "-p", str(platform_file), "-o", str(out), str(jobs)],
        preexec_fn=lambda: os.nice(NICE),
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, child.args)
    return time.perf_counter() - began, usage.ru_utime + usage.ru_stime


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def read_seconds(daemon: ChildDaemon, runs: int = 3) -> dict[str, float]:
    """Wall seconds of ``squeue`` and ``sacct`` through the socket, and the daemon's CPU
    seconds for them (best of ``runs``)."""
    best = {}
    for command in ("squeue", "sacct"):
        walls, cpus = [], []
        for _ in range(runs):
            began, cpu = time.perf_counter(), cpu_seconds(daemon.process.pid)
            call(daemon.socket, "exec", timeout=None, argv=[command], env={}, cwd="/")
            walls.append(time.perf_counter() - began)
            cpus.append(cpu_seconds(daemon.process.pid) - cpu)
        best[command] = round(min(walls), 3)
        best[f"{command}_daemon_cpu"] = round(min(cpus), 3)
    return best


def ready(daemon: ChildDaemon) -> None:
    """:meth:`ChildDaemon.wait_ready`, patient: on a loaded machine a daemon still reading its
    feed may take longer than the ping's own timeout to answer."""
    while True:
        try:
            daemon.wait_ready(timeout=1800.0)
            return
        except TimeoutError:
            continue


def reads_only(platform_file: Path, feed: Feed) -> dict[str, float]:
    """:func:`read_seconds` on a paused daemon fed ``feed``."""
    daemon = ChildDaemon(platform_file, "easy", feed, speed=math.inf)
    try:
        ready(daemon)
        return read_seconds(daemon)
    finally:
        daemon.stop()


def daemon_seconds(
    platform_file: Path, feed: Feed, reads: dict[str, float] | None = None
) -> tuple[float, float, float]:
    """Wall and daemon CPU seconds from ``speed max`` to idle, and the simulated time
    reached; ``reads`` gets the times of :func:`read_seconds` before the clock starts."""
    daemon = ChildDaemon(platform_file, "easy", feed, speed=math.inf)
    try:
        ready(daemon)
        if reads is not None:
            reads.update(read_seconds(daemon))
        began, cpu = time.perf_counter(), cpu_seconds(daemon.process.pid)
        call(daemon.socket, "clock", action="speed", value=None)
        answer = call(daemon.socket, "clock", timeout=None, action="idle")
        wall = time.perf_counter() - began
        return wall, cpu_seconds(daemon.process.pid) - cpu, float(answer["clock"]["now"])
    finally:
        daemon.stop()


def submitted(directory: Path, count: int) -> tuple[Path, Path]:
    """``count`` jobs submitted at once (``--submitted``): as a command file of ``sbatch``
    lines (the daemon's ``--commands``) and as the same jobs in an SWF trace, all at time 0."""
    rng = random.Random(1)
    lines, records = ["@ 0"], []
    for job_id in range(1, count + 1):
        tasks, limit = rng.randint(1, 64), rng.choice((3600, 7200, 14400))
        runtime = round(rng.uniform(0.2, 1.0) * limit)
        hours, rest = divmod(runtime, 3600)
        lines.append(
            f"sbatch -n {tasks} -t {limit // 60} --emulate-runtime "
            f"{hours}:{rest // 60:02d}:{rest % 60:02d} --wrap x"
        )
        records.append(
            SwfRecord(
                job_id=job_id,
                submit=0,
                wait=-1,
                run_time=runtime,
                allocated=tasks,
                cpu_time=-1,
                memory=-1,
                requested=tasks,
                requested_time=limit,
                requested_memory=-1,
                status=1,
                user=1,
                group=-1,
                executable=-1,
                queue=-1,
                partition=-1,
                preceding=-1,
                think_time=-1,
            )
        )
    commands, jobs = directory / "submitted.txt", directory / "submitted.swf"
    commands.write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_swf(jobs, SwfHeader(), records)
    return commands, jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="1,000 nodes and 10,000 jobs")
    parser.add_argument(
        "--submitted", action="store_true", help="every job submitted at once with sbatch"
    )
    parser.add_argument("--jobs", type=int, help="about N jobs instead (a multiple of 21)")
    parser.add_argument(
        "--reads", action="store_true", help="with --submitted: time squeue and sacct only"
    )
    parser.add_argument("--runs", type=int, default=1, help="best of N (1)")
    args = parser.parse_args()
    nodes, queued = (1_000, 477) if args.quick else (10_000, 4_762)
    if args.jobs:
        queued = max(1, args.jobs // 21)
    with tempfile.TemporaryDirectory() as directory:
        where = Path(directory)
        platform_file = where / "bench.toml"
        sites = 1 if args.submitted else 3
        platform_file.write_text(platform_toml(nodes, sites), encoding="utf-8")
        if args.submitted:
            commands, jobs = submitted(where, 21 * queued)
            feed = Feed(commands=commands)
        else:
            jobs = where / "bench.swf"
            trace(jobs, nodes, queued)
            feed = Feed(workload=jobs)
        count = sum(1 for line in jobs.read_text().splitlines() if not line.startswith(";"))
        if args.reads and args.submitted:
            reads = {"jobs": count, **reads_only(platform_file, feed)}
            reads |= {"load_average": os.getloadavg()[0], "python": host.python_version()}
            print(json.dumps(reads, indent=2))
            RESULTS.mkdir(exist_ok=True)
            (RESULTS / f"daemon_reads_{count}.json").write_text(json.dumps(reads, indent=2) + "\n")
            return
        replay, replay_cpu = min(
            replay_seconds(platform_file, jobs, where / "out") for _ in range(args.runs)
        )
        reads: dict[str, float] = {}
        daemon, daemon_cpu, simulated = min(
            daemon_seconds(platform_file, feed, reads) for _ in range(args.runs)
        )
    report = {
        "workload": "submitted at once (sbatch)" if args.submitted else "trace (arrivals)",
        "nodes": nodes,
        "jobs": count,
        "simulated_seconds": simulated,
        "replay_seconds": round(replay, 2),
        "daemon_seconds": round(daemon, 2),
        "replay_jobs_per_s": round(count / replay),
        "daemon_jobs_per_s": round(count / daemon),
        "ratio": round(replay / daemon, 3),
        "replay_cpu_seconds": round(replay_cpu, 2),
        "daemon_cpu_seconds": round(daemon_cpu, 2),
        "cpu_ratio": round(replay_cpu / daemon_cpu, 3),
        "load_average": os.getloadavg()[0],
        "reads_before_start_seconds": reads,
        "python": host.python_version(),
    }
    print(json.dumps(report, indent=2))
    RESULTS.mkdir(exist_ok=True)
    name = "daemon_flat_out" + ("_submitted" if args.submitted else "")
    name += "_quick" if args.quick else ""
    name += f"_{count}" if args.jobs else ""
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
