"""Replay throughput of the local policies and how it grows; writes bench/results/replay.json.

    .venv/bin/python -m bench.replay_throughput            # everything (~10 min on 2 cores)
    .venv/bin/python -m bench.replay_throughput --quick    # KTH-SP2 only

Throughput is jobs per CPU-second of the simulation alone (the trace is parsed beforehand), best
of three runs. The synthetic million-job replays run in a child process each, so that their peak
resident memory (ru_maxrss) is theirs alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from emulator.engine import Engine, Observer
from emulator.model.job import Job, Submission
from emulator.model.platform import Platform
from emulator.replay import replay
from workloads.swf import Dropped, SwfTrace, submissions
from workloads.synthetic import rigid_jobs

KTH = Path(__file__).resolve().parents[2] / "shared/traces/KTH-SP2-1996-2.1-cln.swf"
POLICIES = ("fcfs", "easy", "cbf", "lsf")
RESULTS = Path(__file__).resolve().parent / "results"


def best_of(runs: int, subs: list[Submission], platform: Platform, policy: str) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        replay(subs, platform, policy)
        best = min(best, time.process_time() - started)
    return best


class QueueSampler(Observer):
    """Mean queue length seen by arriving jobs (a measure of how much a pass has to scan)."""

    def __init__(self, engine: Engine) -> None:
        self.engine, self.total, self.samples = engine, 0, 0

    def job_submitted(self, job: Job) -> None:
        self.total += sum(len(state.waiting) for state in self.engine.clusters)
        self.samples += 1


def queue_scaling(policy: str, cores: int, count: int) -> list[dict[str, float]]:
    """Cost per job against mean queue length, raising the offered load."""
    rows = []
    for load in (0.5, 0.8, 0.95, 1.1):
        subs = list(rigid_jobs(count, cores, load=load, seed=3))
        engine = Engine(Platform.single_cluster(cores), policy, keep_finished=False)
        sampler = QueueSampler(engine)
        engine.observe(sampler)
        engine.feed(subs)
        started = time.process_time()
        engine.run()
        seconds = time.process_time() - started
        rows.append(
            {
                "load": load,
                "mean_queue": sampler.total / sampler.samples,
                "us_per_job": seconds / count * 1e6,
            }
        )
    return rows


def synthetic_child(policy: str, count: int, cores: int) -> None:
    """Run in a child: replay ``count`` synthetic jobs, print JSON with time and peak memory."""
    started = time.process_time()
    result = replay(rigid_jobs(count, cores), Platform.single_cluster(cores), policy)
    seconds = time.process_time() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "policy": policy,
                "jobs": count,
                "cores": cores,
                "seconds": seconds,
                "jobs_per_s": count / seconds,
                "peak_rss_mib": peak_kib / 1024,
                "mean_wait": result.summary.mean_wait,
            }
        )
    )


def synthetic(policy: str, count: int, cores: int) -> dict[str, float]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.replay_throughput",
            "--child",
            policy,
            str(count),
            str(cores),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    data: dict[str, float] = json.loads(out.stdout)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="KTH-SP2 only")
    parser.add_argument("--jobs", type=int, default=1_000_000, help="synthetic trace size")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        synthetic_child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    report: dict[str, object] = {}
    subs = list(submissions(SwfTrace(KTH), 100, Dropped()))
    platform = Platform.single_cluster(100)
    kth = {}
    for policy in POLICIES:
        seconds = best_of(3, subs, platform, policy)
        kth[policy] = {"jobs": len(subs), "seconds": seconds, "jobs_per_s": len(subs) / seconds}
        print(f"KTH-SP2 {policy:5} {len(subs) / seconds:9.0f} jobs/s", flush=True)
    report["kth_sp2"] = kth
    if not args.quick:
        growth = {}
        for policy in POLICIES:
            growth[policy] = [
                {
                    "jobs": n,
                    **{
                        k: v
                        for k, v in synthetic(policy, n, 10_000).items()
                        if k in ("seconds", "jobs_per_s", "peak_rss_mib")
                    },
                }
                for n in (args.jobs // 10, args.jobs)
            ]
            for row in growth[policy]:
                print(
                    f"synthetic {policy:5} {row['jobs']:>8} jobs: {row['jobs_per_s']:8.0f} jobs/s, "
                    f"peak {row['peak_rss_mib']:.0f} MiB",
                    flush=True,
                )
        report["synthetic_10000_cores"] = growth
        report["queue_scaling_1000_cores_20000_jobs"] = {
            policy: queue_scaling(policy, 1000, 20_000) for policy in POLICIES
        }
        for policy, rows in report["queue_scaling_1000_cores_20000_jobs"].items():  # type: ignore[union-attr]
            print(
                policy, " ".join(f"q={r['mean_queue']:.0f}:{r['us_per_job']:.0f}us" for r in rows)
            )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "replay.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS / 'replay.json'}")


if __name__ == "__main__":
    main()
