"""Replay throughput of `coalloc` under each allocation strategy; writes bench/results/coalloc.json.

    .venv/bin/python -m bench.coalloc_throughput             # 10,000 jobs, 2 platforms (~1 min)
    .venv/bin/python -m bench.coalloc_throughput --jobs 2000 --runs 1

Throughput is jobs per CPU-second of the replay alone (the synthetic BSP workload of
``workloads.bsp_csv.bsp_jobs`` is generated beforehand), best of ``--runs``, recording each job's
nodes as ``batchlab replay FILE.csv`` does. Platforms: teaching-3sites (72 cores on 18 nodes,
finite links, so link headroom shapes ``best``) and g5k-3sites (1,344 one-core nodes, unlimited
links, so node scans dominate). The schedule's makespan, mean wait, share of co-allocated jobs and
link saturation are reported beside the speed, to show what each strategy buys.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.replays import timed
from emulator.model.platform_file import load_platform
from emulator.replay import ReplayResult
from resources import platform_path
from workloads.bsp_csv import bsp_jobs

STRATEGIES = ("best", "single", "firstfit")
# platform -> (largest job in tasks, largest per-task bandwidth in the platform's unit)
PLATFORMS = {"teaching-3sites": (24, 1.0), "g5k-3sites": (270, 1.0)}
RESULTS = Path(__file__).resolve().parent / "results"


def describe(result: ReplayResult, seconds: float) -> dict[str, Any]:
    nodes = result.recorder.nodes or []
    spread = sum(1 for _, clusters in nodes if "+" in clusters)
    summary = result.summary
    return {
        "seconds": round(seconds, 3),
        "jobs_per_s": round(summary.jobs / seconds),
        "makespan": summary.makespan,
        "mean_wait": round(summary.mean_wait, 1),
        "co_allocated": spread,
        "failed": summary.failed,
        "timeouts": summary.timeouts,
        "links_saturated_fraction": {
            name: usage.saturated_fraction for name, usage in result.links.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000, help="synthetic BSP jobs per replay")
    parser.add_argument("--runs", type=int, default=3, help="replays per figure (best is kept)")
    parser.add_argument("--load", type=float, default=0.85, help="offered load")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "jobs": args.jobs,
        "runs": args.runs,
        "load": args.load,
        "generator": "workloads.bsp_csv.bsp_jobs(seed=1)",
    }
    for name, (max_tasks, max_bw) in PLATFORMS.items():
        platform = load_platform(platform_path(name))
        jobs = list(
            bsp_jobs(
                args.jobs, platform.cores, load=args.load, max_tasks=max_tasks, max_task_bw=max_bw
            )
        )
        rows = {}
        for strategy in STRATEGIES:
            seconds, result = timed(
                args.runs, jobs, platform, f"coalloc:alloc={strategy}", with_nodes=True
            )
            rows[strategy] = row = describe(result, seconds)
            print(
                f"{name:16} {strategy:9} {row['jobs_per_s']:7} jobs/s  "
                f"makespan {row['makespan']:9.0f} s  mean wait {row['mean_wait']:8.1f} s  "
                f"co-allocated {row['co_allocated']:5}",
                flush=True,
            )
        report[name] = {"cores": platform.cores, "max_tasks": max_tasks, "strategies": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "coalloc.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS / 'coalloc.json'}")


if __name__ == "__main__":
    main()
