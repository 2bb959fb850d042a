"""``batchlab workload generate``: the argparse side of :mod:`workloads.hyperexp`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from emulator.model.job import Submission
from emulator.model.platform_file import PlatformError, load_platform
from resources import resolve
from workloads.bsp_csv import write_bsp_csv
from workloads.swf import SwfHeader, SwfRecord, write_swf


def add_commands(commands: Any) -> None:
    """Add ``workload generate`` to the ``batchlab`` subcommands."""
    workload = commands.add_parser("workload", help="make workloads")
    actions = workload.add_subparsers(dest="action", required=True, metavar="ACTION")
    generate = actions.add_parser(
        "generate",
        help="moldable jobs with hyper-exponential arrivals and service times (BPU paper)",
        description="Write moldable jobs (BPU paper): hyper-exponential inter-arrival and "
        "service times of the given mean and CV (>= 1; a two-phase fit), BPU requests uniform "
        "over --bpu, home sites uniform over the platform's clusters. A .csv output carries "
        "the BPU request and home site (bpu, bpu_serial, home_site columns); an .swf output "
        "only the size ceil(x_j) and the run time.",
    )
    generate.add_argument("--jobs", "-n", type=int, required=True, help="how many jobs")
    generate.add_argument(
        "--platform", "-p", required=True, help="platform TOML file or shipped name (its sites)"
    )
    generate.add_argument("--arrival-mean", type=float, default=60.0, help="seconds (60)")
    generate.add_argument("--arrival-cv", type=float, default=1.0, help="(1: Poisson)")
    generate.add_argument("--service-mean", type=float, default=600.0, help="seconds (600)")
    generate.add_argument("--service-cv", type=float, default=1.0, help="(1)")
    generate.add_argument("--bpu", default="1-16", help="BPUs asked, LOW-HIGH (1-16)")
    generate.add_argument("--serial", type=float, default=0.0, help="Amdahl fraction (0)")
    generate.add_argument("--limit-factor", type=float, default=1.5, help="limit/run (1.5)")
    generate.add_argument("--seed", type=int, default=1, help="random seed (1)")
    generate.add_argument("--out", "-o", type=Path, required=True, help="FILE.csv or FILE.swf")
    generate.set_defaults(handler=_generate)


def _generate(args: argparse.Namespace) -> int:
    try:
        return _write(args)
    except (ValueError, PlatformError) as error:  # (an OSError: main says file and reason)
        print(f"batchlab: error: {error}", file=sys.stderr)
        return 1


def _write(args: argparse.Namespace) -> int:
    from workloads.hyperexp import MoldableWorkload, moldable_jobs  # numpy: only when used

    suffix = args.out.suffix.lower()
    if suffix not in (".csv", ".swf"):
        raise ValueError(f"--out {args.out}: the file must end in .csv or .swf")
    if args.jobs < 0:
        raise ValueError(f"--jobs must be >= 0, got {args.jobs}")
    low, dash, high = args.bpu.partition("-")
    if not low.isdecimal() or (dash and not high.isdecimal()):
        raise ValueError(f"--bpu must be LOW-HIGH in whole BPUs, got {args.bpu!r}")
    platform = load_platform(resolve("platform", args.platform))
    spec = MoldableWorkload(
        tuple(cluster.name for cluster in platform.clusters),
        arrival_mean=args.arrival_mean,
        arrival_cv=args.arrival_cv,
        service_mean=args.service_mean,
        service_cv=args.service_cv,
        bpu_low=int(low),
        bpu_high=int(high) if dash else int(low),
        serial_fraction=args.serial,
        limit_factor=args.limit_factor,
    )
    jobs = moldable_jobs(spec, args.jobs, args.seed)
    if suffix == ".csv":
        write_bsp_csv(args.out, jobs)
    else:
        header = SwfHeader(
            (
                "; Version: 2.2",
                f"; Note: batchlab workload generate, seed {args.seed}, platform {platform.name}",
                f"; MaxProcs: {platform.cores}",
            )
        )
        write_swf(args.out, header, _records(jobs))
    return 0


def _records(jobs: Iterator[Submission]) -> Iterator[SwfRecord]:
    for job in jobs:
        request = job.request
        yield SwfRecord(
            job.job_id,
            job.submit,
            -1,
            job.runtime,
            request.tasks,
            -1,
            -1,
            request.tasks,
            request.time_limit,
            -1,
            1,
            int(request.user.lstrip("u") or 0),
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
        )
