"""The ``batchlab`` command line."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from emulator.api.registry import SpecError, available, parse_spec
from emulator.model.platform import Platform
from emulator.model.platform_file import PlatformError, load_platform


class CliError(Exception):
    """A user error: printed as ``batchlab: error: ...`` with exit status 1."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.handler(args)
        return result
    except (CliError, PlatformError, SpecError) as error:
        print(f"batchlab: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="batchlab",
        description="A Slurm-style batch-system emulator for multi-cluster systems.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay",
        help="replay a workload trace under a scheduler",
        description="Replay an SWF trace (plain or .gz) and write jobs.csv, summary.json and "
        "schedule.swf (the trace with the replayed waits) to --out.",
    )
    replay.add_argument("trace", type=Path, help="SWF file (.swf or .swf.gz)")
    replay.add_argument("--scheduler", "-s", default="fcfs", help="scheduler spec, e.g. easy, cbf")
    where = replay.add_mutually_exclusive_group()
    where.add_argument("--platform", "-p", type=Path, help="platform TOML file")
    where.add_argument("--cores", type=_positive, help="one cluster of N single-core nodes")
    replay.add_argument("--out", "-o", type=Path, required=True, help="output directory")
    replay.add_argument("--quiet", "-q", action="store_true", help="print no summary table")
    replay.set_defaults(handler=_replay)

    schedulers = commands.add_parser("schedulers", help="list the registered scheduling policies")
    schedulers.set_defaults(handler=_schedulers)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _schedulers(_: argparse.Namespace) -> int:
    for name, doc in available().items():
        print(f"{name:12} {doc}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from emulator.engine import SubmitError
    from emulator.replay import replay, write_summary
    from workloads.swf import Dropped, SwfError, SwfTrace, replayed, submissions, write_swf

    spec = parse_spec(args.scheduler)
    if not args.trace.is_file():
        raise CliError(f"no such trace file: {args.trace}")
    trace = SwfTrace(args.trace)
    if args.platform is not None:
        platform = load_platform(args.platform)
    else:
        cores = args.cores or trace.header.max_procs
        if not cores or cores <= 0:
            raise CliError(
                f"{args.trace} has no MaxProcs header: give --cores N or --platform FILE"
            )
        platform = Platform.single_cluster(cores)
    largest = max(cluster.cores for cluster in platform.clusters)
    dropped = Dropped()
    progress = _progress_bar(trace.header.get_int("MaxRecords")) if sys.stderr.isatty() else None
    try:
        result = replay(
            submissions(trace, largest, dropped),
            platform,
            spec,
            progress=progress,
            dropped=lambda: dropped.total,
        )
    except SwfError as error:  # its message already names the file and line
        raise CliError(str(error)) from None
    except SubmitError as error:
        raise CliError(f"{args.trace}: {error}") from None
    if progress is not None:
        print(file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    result.recorder.write_jobs_csv(args.out / "jobs.csv")
    write_summary(
        args.out / "summary.json",
        result.summary,
        {
            "trace": args.trace.name,
            "scheduler": str(spec),
            "platform": platform.name,
            "cores": platform.cores,
            "dropped_no_runtime": dropped.no_runtime,
            "dropped_no_size": dropped.no_size,
            "dropped_too_large": dropped.too_large,
        },
        result.links,
    )
    write_swf(
        args.out / "schedule.swf", trace.header, replayed(trace, result.recorder.starts_by_id())
    )
    if not args.quiet:
        _print_summary(f"{args.trace.name} under {spec} on {platform.cores} cores", result.summary)
        print(f"wrote {args.out}/jobs.csv, summary.json, schedule.swf")
    return 0


def _print_summary(title: str, summary: object) -> None:
    from emulator.metrics import Summary

    assert isinstance(summary, Summary)
    rows = [
        ("jobs", f"{summary.jobs}"),
        ("dropped", f"{summary.dropped}"),
        ("timeouts", f"{summary.timeouts}"),
        ("makespan", f"{summary.makespan:.0f} s"),
        ("utilization", f"{summary.utilization:.1%}"),
        ("mean wait", f"{summary.mean_wait:.1f} s"),
        ("max wait", f"{summary.max_wait:.0f} s"),
        ("mean bounded slowdown", f"{summary.mean_bounded_slowdown:.2f}"),
    ]
    print(title)
    for name, value in rows:
        print(f"  {name:<24}{value:>14}")


def _progress_bar(total: int | None) -> Callable[[int], None]:
    def show(done: int) -> None:
        if total:
            fraction = min(done / total, 1.0)
            filled = math.floor(fraction * 30)
            bar = "#" * filled + "-" * (30 - filled)
            print(f"\r[{bar}] {fraction:6.1%} {done} jobs", end="", file=sys.stderr, flush=True)
        else:
            print(f"\r{done} jobs", end="", file=sys.stderr, flush=True)

    return show


if __name__ == "__main__":
    raise SystemExit(main())
