"""A daemon flat out against ``batchlab replay`` of the same workload on the same platform;
writes bench/results/daemon_flat_out.json.

    nice -n 10 .venv/bin/python -m bench.daemon_flat_out            # 10,000 nodes, 100,000 jobs
    nice -n 10 .venv/bin/python -m bench.daemon_flat_out --quick    # 1,000 nodes, 10,000 jobs

The platform and the trace are :mod:`bench.gui_attached`'s (three sites of 4-core nodes, EASY;
a queue held about ``jobs / 21`` long, the rest arriving at the rate the platform serves them),
written to a TOML file and an SWF trace. ``batchlab replay`` runs in a child process; the
daemon is a child ``batchlab daemon start --foreground --workload TRACE`` with its journal, as
``batchlab gui`` starts one, and is timed from ``clock speed max`` with ``clock until idle`` to
the answer. Both are wall times (``time.perf_counter``) of the whole run, start-up aside for
the daemon (it starts paused) and included for the replay (reading the trace is its work too).
The goal (issue 21) is a daemon at least half as fast as the replay: ``ratio`` >= 0.5.
"""

from __future__ import annotations

import argparse
import json
import math
import platform as host
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.gui_attached import platform_toml, trace
from emulator.child import ChildDaemon, Feed
from emulator.daemon.client import call

RESULTS = Path(__file__).resolve().parent / "results"


def replay_seconds(platform_file: Path, jobs: Path, out: Path) -> float:
    began = time.perf_counter()
    command = [sys.executable, "-m", "emulator.cli", "replay", "-q", "-s", "easy"]
    subprocess.run([*command, "-p", str(platform_file), "-o", str(out), str(jobs)], check=True)
    return time.perf_counter() - began


def daemon_seconds(platform_file: Path, jobs: Path) -> tuple[float, float]:
    """Wall seconds from ``speed max`` to idle, and the simulated time reached."""
    daemon = ChildDaemon(platform_file, "easy", Feed(workload=jobs), speed=math.inf)
    try:
        daemon.wait_ready()
        began = time.perf_counter()
        call(daemon.socket, "clock", action="speed", value=None)
        answer = call(daemon.socket, "clock", timeout=None, action="idle")
        return time.perf_counter() - began, float(answer["clock"]["now"])
    finally:
        daemon.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="1,000 nodes and 10,000 jobs")
    parser.add_argument("--runs", type=int, default=1, help="best of N (1)")
    args = parser.parse_args()
    nodes, queued = (1_000, 477) if args.quick else (10_000, 4_762)
    with tempfile.TemporaryDirectory() as directory:
        where = Path(directory)
        platform_file = where / "bench.toml"
        platform_file.write_text(platform_toml(nodes), encoding="utf-8")
        jobs = where / "bench.swf"
        trace(jobs, nodes, queued)
        count = sum(1 for line in jobs.read_text().splitlines() if not line.startswith(";"))
        replay = min(replay_seconds(platform_file, jobs, where / "out") for _ in range(args.runs))
        runs = [daemon_seconds(platform_file, jobs) for _ in range(args.runs)]
        daemon, simulated = min(runs)
    report = {
        "nodes": nodes,
        "jobs": count,
        "simulated_seconds": simulated,
        "replay_seconds": round(replay, 2),
        "daemon_seconds": round(daemon, 2),
        "replay_jobs_per_s": round(count / replay),
        "daemon_jobs_per_s": round(count / daemon),
        "ratio": round(replay / daemon, 3),
        "python": host.python_version(),
    }
    print(json.dumps(report, indent=2))
    RESULTS.mkdir(exist_ok=True)
    name = "daemon_flat_out_quick.json" if args.quick else "daemon_flat_out.json"
    (RESULTS / name).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
