"""The same work on two source trees, in paired rounds: how much faster one is than the other.

    git worktree add /tmp/before HEAD~1
    .venv/bin/python -m bench.paired /tmp/before . kth:easy --rounds 10
    .venv/bin/python -m bench.paired /tmp/before . big --rounds 8

This host's speed swings by tens of percent within seconds, far more than most changes are
worth, so timing one tree and then the other compares moments, not code. Here one worker process
per tree (each importing only its tree's packages) does the same work in turns, the order
alternating, and the figure is the median over the rounds of ``before / after`` CPU time.

Work:

- ``kth:POLICY``: replay the KTH-SP2 trace (100 processors) under POLICY, whole, each round;
- ``big``: the session of :mod:`bench.gui_frames` (5,000 nodes, 10,000 jobs queued, EASY),
  advanced by ``--events`` events each round (both trees reach the same simulated time: checked).

Writes bench/results/paired.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from bench.replay_throughput import KTH

RESULTS = Path(__file__).resolve().parent / "results"

# Runs in the worker, its tree first on sys.path (the path finder is asked before the editable
# install's, which maps the packages to the checkout batchlab was installed from).
WORKER = r"""
import math, sys, time
sys.path.insert(0, sys.argv[1])
work, kth, events = sys.argv[2], sys.argv[3], int(sys.argv[4])
if work == "big":
    from bench.gui_frames import build
    session = build(5000, 10000)
    def once():
        session.run_until(math.inf, max_events=events)
        return session.now
else:
    from pathlib import Path
    from emulator.model.platform import Platform
    from emulator.replay import replay
    from workloads.swf import Dropped, SwfTrace, submissions
    jobs = list(submissions(SwfTrace(Path(kth)), 100, Dropped()))
    platform = Platform.single_cluster(100)
    policy = work.split(":", 1)[1]
    def once():
        return replay(jobs, platform, policy).summary.makespan
import emulator
print(emulator.__file__, flush=True)
for _ in sys.stdin:
    started = time.process_time()
    check = once()
    print(time.process_time() - started, check, flush=True)
"""


class Worker:
    def __init__(self, tree: Path, work: str, events: int) -> None:
        command = [sys.executable, "-c", WORKER, str(tree.resolve()), work, str(KTH), str(events)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/"
        )
        assert self.process.stdout is not None
        self.imports = self.process.stdout.readline().strip()

    def round(self) -> tuple[float, str]:
        """CPU seconds of one round, and what both trees must agree on (a time, a makespan)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        seconds, check = self.process.stdout.readline().split()
        return float(seconds), check

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the tree to compare against")
    parser.add_argument("after", type=Path, help="the tree measured")
    parser.add_argument("work", help="kth:POLICY or big")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--events", type=int, default=4000, help="events per round of big")
    args = parser.parse_args()
    before, after = (
        Worker(args.before, args.work, args.events),
        Worker(args.after, args.work, args.events),
    )
    print(f"before: {before.imports}\nafter:  {after.imports}")
    ratios = []
    for number in range(args.rounds):
        pair = (before, after) if number % 2 == 0 else (after, before)
        times = {id(worker): worker.round() for worker in pair}
        (old, old_check), (new, new_check) = times[id(before)], times[id(after)]
        if old_check != new_check:
            print(f"the trees disagree: {old_check} against {new_check}", file=sys.stderr)
            return 1
        ratios.append(old / new)
        print(f"round {number}: before {old:.3f} s, after {new:.3f} s: {old / new:.2f}x")
    for worker in (before, after):
        worker.stop()
    result = {
        "work": args.work,
        "before": str(args.before),
        "after": str(args.after),
        "speedup_per_round": [round(r, 3) for r in ratios],
        "speedup_median": round(statistics.median(ratios), 3),
    }
    print(f"after is {result['speedup_median']}x as fast (median of {args.rounds} rounds)")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "paired.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
