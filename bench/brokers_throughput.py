"""Replay throughput of the broker grid policies; writes bench/results/brokers_throughput.json.

    .venv/bin/python -m bench.brokers_throughput                  # 100,000 jobs, 16 sites
    .venv/bin/python -m bench.brokers_throughput --jobs 20000 --runs 1 --policies ml,mct

The workload is online and synthetic (``workloads.synthetic.rigid_jobs``, seed 1: log-uniform
sizes up to the largest site, log-uniform runtimes, Poisson arrivals at the offered load), over
16 sites of 8 to 256 one-core processors (1,488 in all), every policy over its default local
policy ``lsf``. Throughput is jobs per CPU-second of the replay alone (the workload is generated
beforehand), best of ``--runs``. Targets (issue 16): ML, MPL, MLB >= 20,000 jobs/s; MCT >= 5,000.
Mean wait and makespan are reported beside the speed, to show what each rule buys.

The default offered load is 0.5: from about 0.8 on, the rules blind to sizes (ML, MPL) pile jobs
on the small sites and their queues grow without bound (mean waits of days), so the figure then
measures LSF sorting queues of thousands at every pass rather than the broker (``--load 0.8``
shows it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.replays import timed
from solvers.brokers.platforms import sites_platform
from workloads.synthetic import rigid_jobs

SIZES = (8, 8, 16, 16, 32, 32, 32, 64, 64, 64, 128, 128, 128, 256, 256, 256)
POLICIES = ("ml", "mpl", "mlb", "mct", "ml-a", "mpl-a", "mlb-a", "mct-a")
TARGETS = {"ml": 20_000, "mpl": 20_000, "mlb": 20_000, "mct": 5_000}
RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000, help="synthetic jobs per replay")
    parser.add_argument("--runs", type=int, default=3, help="replays per figure (best is kept)")
    parser.add_argument("--load", type=float, default=0.5, help="offered load")
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated")
    args = parser.parse_args()
    jobs = list(rigid_jobs(args.jobs, sum(SIZES), load=args.load, max_size=max(SIZES), seed=1))
    report: dict[str, Any] = {
        "jobs": args.jobs,
        "runs": args.runs,
        "load": args.load,
        "sites": list(SIZES),
        "generator": "workloads.synthetic.rigid_jobs(seed=1, max_size=256)",
        "policies": {},
    }
    for name in args.policies.split(","):
        seconds, result = timed(args.runs, jobs, sites_platform(SIZES), name)
        summary = result.summary
        rate = round(summary.jobs / seconds)
        target = TARGETS.get(name.removesuffix("-a"))
        report["policies"][name] = row = {
            "spec": f"{name}+lsf",
            "seconds": round(seconds, 3),
            "jobs_per_s": rate,
            "target_jobs_per_s": target,
            "met": None if target is None else rate >= target,
            "makespan": summary.makespan,
            "mean_wait": round(summary.mean_wait, 1),
            "failed": summary.failed,
        }
        print(
            f"{name:6} {rate:7} jobs/s (target {target})  makespan {row['makespan']:10.0f} s  "
            f"mean wait {row['mean_wait']:9.1f} s",
            flush=True,
        )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "brokers_throughput.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
