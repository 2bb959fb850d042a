"""Replay throughput of the `bpu` grid policy; writes bench/results/bpu.json.

    .venv/bin/python -m bench.bpu_throughput                 # 100,000 jobs, 3 variants
    .venv/bin/python -m bench.bpu_throughput --jobs 10000 --runs 1

The issue's target: >= 20,000 jobs/s on a 100,000-job generated workload over 3 sites with 3 speed
classes each (resources/platforms/bpu-3sites.toml). Throughput is jobs per CPU-second of the
replay alone (the workload of ``workloads.hyperexp.moldable_jobs`` is generated beforehand), best
of ``--runs``. The offered load is the mean BPU demand (x_j times service time over the
inter-arrival time) over the platform's BPUs; the schedule's mean wait and response and the share
of co-allocated jobs are reported beside the speed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.replays import timed
from emulator.model.bpu import bpu_ratings
from emulator.model.platform_file import load_platform
from resources import platform_path
from workloads.hyperexp import MoldableWorkload, moldable_jobs

SPECS = ("bpu", "bpu:coalloc=no", "bpu:local_first=no")
RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000, help="generated jobs per replay")
    parser.add_argument("--runs", type=int, default=3, help="replays per figure (best is kept)")
    parser.add_argument("--load", type=float, default=0.8, help="offered load")
    args = parser.parse_args()
    platform = load_platform(platform_path("bpu-3sites"))
    bpus = sum(bpu_ratings(platform))
    low, high, service = 1, 16, 600.0
    arrival = (low + high) / 2 * service / (args.load * bpus)
    workload = MoldableWorkload(
        tuple(c.name for c in platform.clusters),
        arrival_mean=arrival,
        arrival_cv=2.0,
        service_mean=service,
        service_cv=2.0,
        bpu_low=low,
        bpu_high=high,
    )
    jobs = list(moldable_jobs(workload, args.jobs, seed=1))
    report: dict[str, Any] = {
        "jobs": args.jobs,
        "runs": args.runs,
        "load": args.load,
        "platform": platform.name,
        "workload": {
            "arrival_mean": round(arrival, 3),
            "arrival_cv": 2.0,
            "service_mean": service,
            "service_cv": 2.0,
            "bpu": f"{low}-{high}",
            "seed": 1,
        },
        "results": {},
    }
    for spec in SPECS:
        seconds, result = timed(args.runs, jobs, platform, spec, with_nodes=True)
        summary = result.summary
        nodes = result.recorder.nodes or []
        report["results"][spec] = {
            "seconds": round(seconds, 3),
            "jobs_per_s": round(summary.jobs / seconds),
            "mean_wait": round(summary.mean_wait, 1),
            "mean_response": round(summary.mean_response, 1),
            "utilization": round(summary.utilization, 4),
            "co_allocated": sum(1 for _, clusters in nodes if "+" in clusters),
        }
        print(spec, report["results"][spec], flush=True)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "bpu.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
