"""Speed of the ``realloc`` grid policy on a long multi-trace run; writes
bench/results/realloc_speed.json.

    .venv/bin/python -m bench.realloc_speed                        # 180 days, CBF, algo 2 minmin
    .venv/bin/python -m bench.realloc_speed --days 30 --specs 'realloc+cbf;mct+cbf'
    .venv/bin/python -m bench.realloc_speed --scenario month-2 \
        --specs 'realloc:algo=2,heuristic=maxmin+fcfs'      # a cell of the campaign

The workload is the reallocation campaign's ``pwa`` construction (experiments/realloc.py) over
``--days``: UniLu Gaia, KTH-SP2 and the first SDSC-SP2 jobs, one trace per cluster of the
``pwa-g5k`` platform, aligned starts (issue 20 asks for about 130,000 jobs over six months in
under 2 minutes; our traces give fewer: the figure is reported with the job count). With
``--scenario`` the workload and platform are instead those of one cell of the campaign
(``experiments.realloc``: ``month-1`` .. ``month-3``, ``pwa``; ``--speeds``). Each spec is
replayed once; the figure is CPU seconds of the replay alone (the workload is built beforehand),
with its wall seconds and the load average beside it (the machine is shared: wall time under load
says more about the other users than about the code).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import resources
from emulator.model.platform_file import load_platform
from emulator.replay import replay
from experiments.realloc import GAIA, KTH, PLATFORMS, SDSC, scenario, traces_dir
from workloads.multi_trace import TraceWindow, multi_trace

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_SPECS = "mct+cbf;realloc:algo=1,heuristic=minmin+cbf;realloc:algo=2,heuristic=minmin+cbf"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--days", type=float, default=180.0, help="window of every trace")
    parser.add_argument("--specs", default=DEFAULT_SPECS, help="schedulers, separated by ';'")
    parser.add_argument("--scenario", help="a campaign scenario instead (month-1 .. pwa)")
    parser.add_argument(
        "--speeds", default="heterogeneous", choices=("heterogeneous", "homogeneous")
    )
    args = parser.parse_args()
    report: dict[str, object]
    if args.scenario:
        family = "pwa" if args.scenario == "pwa" else "g5k"
        name = PLATFORMS[(family, args.speeds)]
        platform = load_platform(resources.platform_path(name))
        try:
            jobs = scenario(args.scenario, platform)
        except ValueError as error:
            parser.error(str(error))
        report = {"scenario": args.scenario, "jobs": len(jobs), "platform": name}
    else:
        platform = load_platform(resources.platform_path("pwa-g5k"))
        window = args.days * 86400.0
        jobs = multi_trace(
            [TraceWindow(traces_dir() / name, 0.0, window) for name in (GAIA, KTH, SDSC)],
            max(cluster.cores for cluster in platform.clusters),
        )
        report = {"days": args.days, "jobs": len(jobs), "platform": "pwa-g5k"}
    runs = []
    for spec in filter(None, args.specs.split(";")):
        load = os.getloadavg()[0]
        started, wall = time.process_time(), time.perf_counter()
        result = replay(jobs, platform, spec)
        seconds, wall = time.process_time() - started, time.perf_counter() - wall
        moves = sum(len(left) for left in result.recorder.moved.values())
        runs.append(
            {
                "spec": spec,
                "cpu_s": round(seconds, 2),
                "wall_s": round(wall, 2),
                "load_average": round(load, 2),
                "reallocations": moves,
            }
        )
        print(
            f"{spec}: {seconds:.1f} s CPU, {wall:.1f} s wall at load {load:.1f}, "
            f"{len(jobs)} jobs, {moves} reallocations",
            flush=True,
        )
    report["runs"] = runs
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "realloc_speed.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
