"""The ``batchlab`` command line."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

from emulator.api.registry import SchedulerSpec, SpecError, available, parse_spec
from emulator.daemon.cli import add_commands, client_command
from emulator.model.platform import Platform
from emulator.model.platform_file import PlatformError, load_platform
from emulator.sweep.cli import add_commands as add_sweep_commands
from workloads.cli import add_commands as add_workload_commands

if TYPE_CHECKING:
    from emulator.replay import ReplayResult

# Subcommands other packages bring (batchlab gui, from the gui package, which the emulator never
# imports): each entry point is a function that adds its parsers to batchlab's subcommands
COMMANDS = "batchlab.commands"


class CliError(Exception):
    """A user error: printed as ``batchlab: error: ...`` with exit status 1."""


def main(argv: Sequence[str] | None = None) -> int:
    client = client_command(sys.argv[1:] if argv is None else argv)  # sbatch, squeue, ...
    if client is not None:
        return client
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
        "schedule.swf (the trace with the replayed waits) to --out. A .csv file is a BSP "
        "workload (job_id,submit,tasks,base_time,sigma,task_bw,time_limit): its jobs.csv also "
        "lists each job's nodes and clusters, and no schedule.swf is written.",
    )
    replay.add_argument("trace", type=Path, help="SWF file (.swf or .swf.gz) or BSP CSV (.csv)")
    replay.add_argument("--scheduler", "-s", default="fcfs", help="scheduler spec, e.g. easy, cbf")
    where = replay.add_mutually_exclusive_group()
    where.add_argument("--platform", "-p", type=Path, help="platform TOML file")
    where.add_argument("--cores", type=_positive, help="one cluster of N single-core nodes")
    replay.add_argument("--out", "-o", type=Path, required=True, help="output directory")
    replay.add_argument("--quiet", "-q", action="store_true", help="print no summary table")
    replay.set_defaults(handler=_replay)

    schedulers = commands.add_parser("schedulers", help="list the registered scheduling policies")
    schedulers.set_defaults(handler=_schedulers)
    add_commands(commands)  # daemon, clock, shims and the Slurm commands (emulator/daemon/cli.py)
    add_sweep_commands(commands)  # sweep and report (emulator/sweep/cli.py)
    add_workload_commands(commands)  # workload generate (workloads/cli.py)

    run = commands.add_parser(
        "run",
        help="run a command file: a scripted Slurm session (sbatch, squeue, ...)",
        description="Run a command file in-process and deterministically, printing each command "
        "and its output. Syntax: see emulator/commandfile.py and resources/commands/.",
    )
    run.add_argument("file", type=Path, help="command file")
    run.add_argument(
        "--platform", "-p", default="lab", help="platform TOML file or shipped name (lab)"
    )
    run.add_argument("--scheduler", "-s", default="easy", help="scheduler spec (easy)")
    run.add_argument(
        "--origin",
        default="2026-11-22T00:00:00",
        help="UTC date-time of simulated time 0 (2026-11-22T00:00:00)",
    )
    run.set_defaults(handler=_run)
    for entry in sorted(entry_points(group=COMMANDS), key=lambda entry: entry.name):
        entry.load()(commands)  # batchlab gui and demo (gui/cli.py), ...
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
    from emulator.replay import replay
    from workloads.swf import Dropped, SwfError, SwfTrace, replayed, submissions, write_swf

    spec = parse_spec(args.scheduler)
    if not args.trace.is_file():
        raise CliError(f"no such trace file: {args.trace}")
    if args.trace.suffix.lower() == ".csv":
        return _replay_bsp_csv(args, spec)
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
    _write_outputs(
        args,
        spec,
        platform,
        result,
        progress is not None,
        {
            "dropped_no_runtime": dropped.no_runtime,
            "dropped_no_size": dropped.no_size,
            "dropped_too_large": dropped.too_large,
        },
    )
    write_swf(
        args.out / "schedule.swf", trace.header, replayed(trace, result.recorder.starts_by_id())
    )
    if not args.quiet:
        print(f"wrote {args.out}/jobs.csv, summary.json, schedule.swf")
    return 0


def _write_outputs(
    args: argparse.Namespace,
    spec: SchedulerSpec,
    platform: Platform,
    result: ReplayResult,
    progressed: bool,
    extra: dict[str, object],
) -> None:
    """jobs.csv, summary.json and the summary table, the same for every kind of workload."""
    from emulator.replay import write_results

    if progressed:
        print(file=sys.stderr)
    about = {
        "trace": args.trace.name,
        "scheduler": str(spec),
        "platform": platform.name,
        "cores": platform.cores,
        **extra,
    }
    write_results(args.out, result, about)
    if not args.quiet:
        _print_summary(f"{args.trace.name} under {spec} on {platform.cores} cores", result.summary)


def _replay_bsp_csv(args: argparse.Namespace, spec: SchedulerSpec) -> int:
    """A BSP CSV workload: jobs.csv with nodes and clusters, summary.json with link usage."""
    from emulator.engine import SubmitError
    from emulator.replay import replay
    from workloads.bsp_csv import BspCsvError, read_bsp_csv

    if args.platform is not None:
        platform = load_platform(args.platform)
    elif args.cores:
        platform = Platform.single_cluster(args.cores)
    else:
        raise CliError(f"{args.trace} is a CSV workload: give --platform FILE or --cores N")
    progress = _progress_bar(None) if sys.stderr.isatty() else None
    try:
        result = replay(
            read_bsp_csv(args.trace), platform, spec, with_nodes=True, progress=progress
        )
    except BspCsvError as error:  # its message already names the file and line
        raise CliError(str(error)) from None
    except SubmitError as error:
        raise CliError(f"{args.trace}: {error}") from None
    _write_outputs(args, spec, platform, result, progress is not None, {})
    if not args.quiet:
        print(f"wrote {args.out}/jobs.csv, summary.json")
    return 0


def _run(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from emulator.commandfile import CommandFile, CommandFileError
    from emulator.slurmctld import Controller

    spec = parse_spec(args.scheduler)
    platform = load_platform(resolve_platform(args.platform))
    try:
        origin = datetime.fromisoformat(args.origin).replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise CliError(f"invalid --origin {args.origin!r}: use YYYY-MM-DDTHH:MM:SS") from None
    if not args.file.is_file():
        raise CliError(f"no such command file: {args.file}")
    session = CommandFile(Controller(platform, str(spec), origin=origin), name=str(args.file))
    try:
        session.run(args.file.read_text(encoding="utf-8"))
    except CommandFileError as error:
        sys.stdout.write("".join(session.output))
        raise CliError(str(error)) from None
    sys.stdout.write("".join(session.output))
    return 0


def resolve_platform(text: str) -> Path:
    """A platform file: the path ``text``, or the shipped platform of that name."""
    path = Path(text)
    if path.is_file():
        return path
    from resources import platform_path

    try:
        return platform_path(path.stem if path.suffix == ".toml" else text)
    except FileNotFoundError as error:
        raise CliError(str(error)) from None


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
    # the module the subcommands' providers import (gui.cli raises its CliError), not __main__
    from emulator import cli

    raise SystemExit(cli.main())
