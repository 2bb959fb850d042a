"""squeue, sinfo and sacct with 100,000 jobs in the controller; writes bench/results/squeue.json.

    .venv/bin/python -m bench.squeue_scale            # 100,000 jobs (3 to 4 minutes)
    .venv/bin/python -m bench.squeue_scale --quick    # 10,000 jobs

The jobs are submitted in-process with ``sbatch`` through :meth:`Controller.execute` (no daemon)
on the ``lab`` platform (16 cores) under EASY: 1 to 8 tasks, limits of 10 to 59 minutes, 50 users,
97 job names, every third job in partition ``short``. One scheduling pass then starts the few that
fit, so all but a handful pend (reasons Resources and Priority). Each command is timed as CPU
seconds of ``Controller.execute`` (argument parsing, the controller's views and the text), best
of five rounds that each run every command once. ``sacct`` is timed over the queue (read-only: the
records not stored final are described from memory, as squeue does) and over as many finished
jobs: a second controller runs one-second jobs, submitted 16 a second so
that its queue stays short. The target (issue 3) is squeue on 100,000 jobs in under a second.
"""

from __future__ import annotations

import argparse
import json
import platform as host
import time
from pathlib import Path

from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller
from resources import platform_path

RESULTS = Path(__file__).resolve().parent / "results"
CUSTOM = "%.18i %.9P %.8j %.8u %.2t %.10M %.9l %.6D %.10Q %.19S %R"
QUEUE_COMMANDS = {
    "squeue": ["squeue"],
    "squeue -l": ["squeue", "-l"],
    "squeue --start": ["squeue", "--start"],
    "squeue -o custom": ["squeue", "-o", CUSTOM],
    "squeue -u u7 (filtered)": ["squeue", "-u", "u7"],
    "sinfo": ["sinfo"],
    "sinfo -N -l": ["sinfo", "-N", "-l"],
    "sacct (queue)": ["sacct"],
}
FINISHED_COMMANDS = {
    "sacct (finished)": ["sacct"],
    "sacct -X -P -o custom (finished)": [
        *("sacct", "-X", "-P", "-o", "JobID,User,State,Elapsed,NodeList,Start,End")
    ],
}


def submit(ctl: Controller, count: int) -> float:
    """Submit ``count`` jobs with sbatch at once; returns the CPU seconds per submission."""
    started = time.process_time()
    for i in range(count):
        argv = ["sbatch", "-n", str(1 + i % 8), "-t", str(10 + i % 50), "-J", f"job{i % 97}"]
        if i % 3 == 0:
            argv += ["-p", "short"]
        sbatch(ctl, [*argv, "--emulate-runtime", "5", "--wrap", "work"], f"u{i % 50}")
    return (time.process_time() - started) / count


def run_through(ctl: Controller, count: int) -> None:
    """Submit ``count`` one-core, one-second jobs, 16 a second (the platform's cores), so that
    the queue stays short; then let them all finish."""
    for i in range(count):
        ctl.advance_to(i // 16)
        argv = ["sbatch", "-n", "1", "-t", "1", "-J", f"job{i % 97}", "--emulate-runtime", "0:01"]
        sbatch(ctl, [*argv, "--wrap", "work"], f"u{i % 50}")
    ctl.wait()


def sbatch(ctl: Controller, argv: list[str], user: str) -> None:
    result = ctl.execute(argv, user=user)
    if result.exit_code:
        raise RuntimeError(result.stderr)


def timed(
    ctl: Controller, commands: dict[str, list[str]], runs: int
) -> dict[str, dict[str, float | int]]:
    """Best CPU seconds of each command over ``runs`` rounds, each round running every command
    once, so that a burst of load on the shared machine does not fall on one command only."""
    lines = {}
    for label, argv in commands.items():
        result = ctl.execute(argv)
        if result.exit_code:
            raise RuntimeError(f"{argv}: {result.stderr}")
        lines[label] = result.stdout.count("\n")
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(runs):
        for label, argv in commands.items():
            started = time.process_time()
            ctl.execute(argv)
            best[label] = min(best[label], time.process_time() - started)
    for label, seconds in best.items():
        print(f"{label:<34} {seconds:8.3f} s  ({lines[label]} lines)")
    return {label: {"seconds": round(best[label], 4), "lines": lines[label]} for label in commands}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="10,000 jobs instead of 100,000")
    parser.add_argument("--runs", type=int, default=5, help="best of N rounds (5)")
    args = parser.parse_args()
    count = 10_000 if args.quick else 100_000
    lab = load_platform(platform_path("lab"))

    queue = Controller(lab, "easy")
    per_submit = submit(queue, count)
    started = time.process_time()
    queue.advance(1)  # one pass: a few start, the rest pend
    first_pass = time.process_time() - started
    pending = sum(1 for job in queue.engine.jobs.values() if job.state.name == "PENDING")
    report: dict[str, object] = {
        "jobs": count,
        "pending": pending,
        "platform": "lab (4 nodes x 4 cores), easy",
        "python": host.python_version(),
        "sbatch_us_per_job": round(per_submit * 1e6, 1),
        "first_pass_seconds": round(first_pass, 3),
        "runs": args.runs,
        "commands": {},
    }
    commands = timed(queue, QUEUE_COMMANDS, args.runs)
    done = Controller(lab, "easy")
    run_through(done, count)
    commands |= timed(done, FINISHED_COMMANDS, args.runs)
    report["commands"] = commands
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "squeue.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
