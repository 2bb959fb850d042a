"""The ``batchlab`` command line."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, entry_points, version
from pathlib import Path
from typing import TYPE_CHECKING

from emulator.api.registry import (
    DEFAULT_SCHEDULER,
    SchedulerSpec,
    SpecError,
    available,
    parse_spec,
)
from emulator.daemon.cli import add_commands, client_command
from emulator.model.platform import Platform
from emulator.model.platform_file import PlatformError, load_platform
from emulator.sweep.cli import add_commands as add_sweep_commands
from resources import shipped_names
from workloads.cli import add_commands as add_workload_commands

if TYPE_CHECKING:
    from emulator.replay import ReplayResult
    from resources import Kind

# Subcommands other packages bring (batchlab gui, from the gui package, which the emulator never
# imports): each entry point is a function that adds its parsers to batchlab's subcommands
COMMANDS = "batchlab.commands"


RUN_SYNTAX = """\
Run a command file in-process and deterministically, printing each command and its output.

A command file is one command per line, as typed in a shell:

  # platform: teaching-3sites     among the opening comments: the platform the file needs
  # scheduler: easy               ... and its scheduler (--platform, --scheduler override)
  # allow-failures: yes           it shows commands failing on purpose (see exit status)
  # a comment                     not printed
  @ 01:35:56                      run the simulated clock to 01:35:56 after the origin
  @ 2026-11-22T02:00:00           run the clock to a date and time (UTC)
  sleep 90                        advance the clock (seconds, or 5m, 2h, 1d, 1w, or 1:30)
  wait                            run until nothing is left to happen (no argument)
  as alice                        act as alice from now on (as alice squeue: one command)
  cd /home/alice                  the working directory of what follows
  export SBATCH_PARTITION=short   an environment variable for what follows (unset removes)
  cat > job.sh <<EOF              write a file (a here-document: the lines up to EOF)
  sbatch -J post <<EOF            a here-document is a command's stdin (<<'EOF', <<-EOF too)
  sbatch squeue sinfo scancel scontrol sacct   the Slurm commands

Each command is echoed as "$ command" ("alice$" for another user), then its output and
"[exit N]" when its status is not 0. Jobs submitted at an instant are scheduled when the
clock next moves. The exit status is 1 if any command failed (unless --allow-failures or
the header allows it), and 1 with file:line on a line that cannot be run.

Shipped command files run by name from anywhere: """


class CliError(Exception):
    """A user error: printed as ``batchlab: error: ...`` with exit status 1."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (``| head``): no more output, and none at exit either, where
        # Python would flush stdout into the closed pipe (the Python docs' "Note on SIGPIPE")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None) -> int:
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
    except BrokenPipeError:
        raise
    except OSError as error:  # a file named on the command line that cannot be read or made
        where = f"{error.filename}: " if error.filename else ""
        print(f"batchlab: error: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="batchlab",
        description="A Slurm-style batch-system emulator for multi-cluster systems.",
    )
    parser.add_argument("--version", action="version", version=f"batchlab {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay",
        help="replay a workload trace under a scheduler",
        description="Replay an SWF trace (plain or .gz) and write jobs.csv, summary.json and "
        "schedule.swf (the trace with the replayed waits) to --out. A .csv file is a BSP "
        "workload (job_id,submit,tasks,base_time,sigma,task_bw,time_limit): its jobs.csv also "
        "lists each job's nodes and clusters, and no schedule.swf is written. Every job is "
        "replayed or counted as dropped, by reason (in the table and summary.json). Lines of "
        "more than 18 fields (Alea's extended SWF) are replayed from their first 18 (and the "
        "cluster, with --place trace); schedule.swf carries the other fields back unchanged.",
    )
    replay.add_argument(
        "trace", help="SWF file (.swf or .swf.gz), BSP CSV (.csv), or a shipped workload's name"
    )
    replay.add_argument(
        "--scheduler",
        "-s",
        help=f"scheduler spec (default: the platform's, else {DEFAULT_SCHEDULER}; "
        "`batchlab schedulers` lists them)",
    )
    where = replay.add_mutually_exclusive_group()
    where.add_argument("--platform", "-p", help="platform TOML file or shipped name (kth-sp2)")
    where.add_argument("--cores", type=_positive, help="one cluster of N single-core nodes")
    replay.add_argument(
        "--place",
        choices=("scheduler", "trace"),
        default="scheduler",
        help="who picks each job's cluster: the scheduler (default), or the trace: an extended "
        "record's cl_NAME property, else its partition field N, the platform's N-th cluster",
    )
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
        description=RUN_SYNTAX + ", ".join(shipped_names("command file")) + ".",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("file", help="command file, or a shipped one's name (teaching-scenario)")
    run.add_argument(
        "--platform",
        "-p",
        help="platform TOML file or shipped name (default: the file's '# platform:' line, else "
        "lab)",
    )
    run.add_argument(
        "--scheduler",
        "-s",
        help="scheduler spec (default: the file's '# scheduler:' line, else the platform's, else "
        f"{DEFAULT_SCHEDULER})",
    )
    run.add_argument(
        "--origin",
        default="2026-11-22T00:00:00",
        help="UTC date-time of simulated time 0 (2026-11-22T00:00:00)",
    )
    run.add_argument(
        "--allow-failures",
        action="store_true",
        help="exit 0 even when commands fail (default: exit 1, naming the failed lines)",
    )
    run.set_defaults(handler=_run)
    for entry in sorted(entry_points(group=COMMANDS), key=lambda entry: entry.name):
        entry.load()(commands)  # batchlab gui and demo (gui/cli.py), ...
    return parser


def _version() -> str:
    try:
        return version("batchlab")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _schedulers(_: argparse.Namespace) -> int:
    for name, doc in available().items():
        print(f"{name:12} {doc}")
    return 0


def _replay_spec(args: argparse.Namespace) -> tuple[SchedulerSpec, Platform | None]:
    """The replay's scheduler (``-s``, else the one ``--platform``'s file names, else the
    default) and that platform when it had to be read for it, so that it is read once."""
    if args.scheduler is not None or args.platform is None:
        return parse_spec(args.scheduler or DEFAULT_SCHEDULER), None
    platform = load_platform(shipped_file("platform", args.platform))
    return parse_spec(platform.scheduler or DEFAULT_SCHEDULER), platform


def _replay(args: argparse.Namespace) -> int:
    from emulator.engine import SubmitError
    from emulator.replay import replay
    from workloads.swf import (
        STANDARD_FIELDS,
        Dropped,
        Replayed,
        SwfError,
        SwfTrace,
        placed_submissions,
        submissions,
        write_swf,
    )

    spec, named = _replay_spec(args)
    path = shipped_file("workload", args.trace)
    if path.suffix.lower() == ".csv":
        return _replay_bsp_csv(args, path, spec, named)
    try:
        trace = SwfTrace(path)
    except SwfError as error:
        raise CliError(str(error)) from None
    if args.platform is not None:
        platform = named or load_platform(shipped_file("platform", args.platform))
    else:
        cores = args.cores or trace.header.max_procs
        if not cores or cores <= 0:
            raise CliError(f"{path} has no MaxProcs header: give --cores N or --platform FILE")
        platform = Platform.single_cluster(cores)
    _output_directory(args.out)
    if trace.fields > STANDARD_FIELDS:
        print(
            f"batchlab: {path.name}: {trace.fields} fields per job (extended SWF): fields "
            f"{STANDARD_FIELDS + 1}-{trace.fields} are ignored"
            + (", but for the cluster (cl_NAME in field 21)" if args.place == "trace" else "")
            + ", and copied to schedule.swf",
            file=sys.stderr,
        )
    dropped = Dropped()
    if args.place == "trace":
        sizes = [(cluster.name, cluster.cores) for cluster in platform.clusters]
        jobs = placed_submissions(trace.placed(), sizes, dropped)
    else:
        jobs = submissions(trace, max(cluster.cores for cluster in platform.clusters), dropped)
    progress = _progress_bar(trace.header.get_int("MaxRecords")) if sys.stderr.isatty() else None
    try:
        result = replay(jobs, platform, spec, progress=progress, dropped=lambda: dropped.total)
        _write_outputs(args, path, spec, platform, result, progress is not None, dropped.as_dict())
        times = Replayed(*result.recorder.times_by_id())
        tails = trace.tails() if trace.fields > STANDARD_FIELDS else None
        write_swf(args.out / "schedule.swf", trace.header, trace, times, tails)
    except SwfError as error:  # its message already names the file and line
        raise CliError(str(error)) from None
    except SubmitError as error:
        raise CliError(f"{path}: {error}") from None
    if not args.quiet:
        print(f"wrote {args.out}/jobs.csv, summary.json, schedule.swf")
    return 0


def _output_directory(path: Path) -> None:
    """Refuse an ``--out`` that cannot be made before replaying (a long replay would be lost),
    without making it yet (a failed replay leaves nothing behind)."""
    if path.exists():
        if not path.is_dir():
            raise CliError(f"--out {path}: exists and is not a directory")
        return
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CliError(f"--out {path}: cannot make the directory: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CliError(f"--out {path}: cannot make the directory: {ancestor} is not writable")


def _write_outputs(
    args: argparse.Namespace,
    trace: Path,
    spec: SchedulerSpec,
    platform: Platform,
    result: ReplayResult,
    progressed: bool,
    extra: Mapping[str, object],
) -> None:
    """jobs.csv, summary.json and the summary table, the same for every kind of workload."""
    from emulator.replay import write_results

    if progressed:
        print(file=sys.stderr)
    about = {
        "trace": trace.name,
        "scheduler": str(spec),
        "platform": platform.name,
        "cores": platform.cores,
        **extra,
    }
    write_results(args.out, result, about)
    if not args.quiet:
        reasons = {**extra, **result.dropped_by_reason()}
        title = f"{trace.name} under {spec} on {platform.cores} cores"
        _print_summary(title, result.summary, reasons)


def _replay_bsp_csv(
    args: argparse.Namespace, path: Path, spec: SchedulerSpec, named: Platform | None
) -> int:
    """A BSP CSV workload: jobs.csv with nodes and clusters, summary.json with link usage."""
    from emulator.engine import SubmitError
    from emulator.replay import replay
    from workloads.bsp_csv import BspCsvError, read_bsp_csv

    if args.place == "trace":
        raise CliError(f"{path}: --place trace needs an SWF trace (a CSV names no cluster)")
    if args.platform is not None:
        platform = named or load_platform(shipped_file("platform", args.platform))
    elif args.cores:
        platform = Platform.single_cluster(args.cores)
    else:
        raise CliError(f"{path} is a CSV workload: give --platform FILE or --cores N")
    _output_directory(args.out)
    progress = _progress_bar(None) if sys.stderr.isatty() else None
    try:
        result = replay(read_bsp_csv(path), platform, spec, with_nodes=True, progress=progress)
    except BspCsvError as error:  # its message already names the file and line
        raise CliError(str(error)) from None
    except SubmitError as error:
        raise CliError(f"{path}: {error}") from None
    _write_outputs(args, path, spec, platform, result, progress is not None, {})
    if not args.quiet:
        print(f"wrote {args.out}/jobs.csv, summary.json")
    return 0


def _run(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from emulator.commandfile import CommandFile, CommandFileError, read_header
    from emulator.slurmctld import Controller

    path = shipped_file("command file", args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CliError(f"{path}: not UTF-8 text ({error})") from None
    try:
        header = read_header(text)
    except CommandFileError as error:
        raise CliError(f"{path}: {error}") from None
    platform_name = args.platform or header.platform or "lab"
    try:
        platform = load_platform(shipped_file("platform", platform_name))
    except (CliError, PlatformError) as error:
        raise _from_header(args, "platform", header.platform, error) from None
    scheduler = args.scheduler or header.scheduler or platform.scheduler or DEFAULT_SCHEDULER
    try:
        spec = parse_spec(scheduler)
    except SpecError as error:
        raise _from_header(args, "scheduler", header.scheduler, error) from None
    try:
        origin = datetime.fromisoformat(args.origin).replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise CliError(f"invalid --origin {args.origin!r}: use YYYY-MM-DDTHH:MM:SS") from None
    session = CommandFile(Controller(platform, str(spec), origin=origin), name=str(args.file))
    try:
        session.run(text)
    except CommandFileError as error:
        sys.stdout.write("".join(session.output))
        raise CliError(str(error)) from None
    sys.stdout.write("".join(session.output))
    failed = [step.line for step in session.steps if step.result.exit_code]
    if failed and not (args.allow_failures or header.allow_failures):
        lines = ", ".join(map(str, failed))
        print(
            f"batchlab run: {args.file}: {len(failed)} of {len(session.steps)} commands failed "
            f"(line{'s' if len(failed) > 1 else ''} {lines}; --allow-failures exits 0)",
            file=sys.stderr,
        )
        return 1
    return 0


def _from_header(args: argparse.Namespace, key: str, said: str, error: Exception) -> CliError:
    """``error``, naming the command file's header line when the value came from it."""
    if said and not getattr(args, key):
        return CliError(f"{args.file}: its '# {key}: {said}' line: {error}")
    return CliError(str(error))


def shipped_file(kind: Kind, text: str) -> Path:
    """The file a command-line argument names: a path, or a shipped file's name
    (:func:`resources.resolve`, the one way every front end reads them)."""
    from resources import resolve

    try:
        return resolve(kind, text)
    except FileNotFoundError as error:
        raise CliError(str(error)) from None


def resolve_platform(text: str) -> Path:
    """A platform file: the path ``text``, or the shipped platform of that name."""
    return shipped_file("platform", text)


def _print_summary(title: str, summary: object, reasons: Mapping[str, object]) -> None:
    """The table; under ``dropped``, each reason that dropped a job (``reasons``: summary.json's
    ``dropped_<reason>`` counts), so that a reader sees why without opening summary.json."""
    from emulator.metrics import Summary

    assert isinstance(summary, Summary)
    why = [
        (f"  {name.removeprefix('dropped_').replace('_', ' ')}", f"{count}")
        for name, count in reasons.items()
        if name.startswith("dropped_") and count
    ]
    rows = [
        ("jobs", f"{summary.jobs}"),
        ("dropped", f"{summary.dropped}"),
        *why,
        ("timeouts", f"{summary.timeouts}"),
        ("makespan", f"{summary.makespan:.0f} s"),
        ("utilization", f"{summary.utilization:.1%}"),
        ("mean wait", f"{summary.mean_wait:.1f} s"),
        ("max wait", f"{summary.max_wait:.0f} s"),
        ("mean bounded slowdown", f"{summary.mean_bounded_slowdown:.2f}"),
    ]
    print(title)
    for name, value in rows:  # values end in column 40, a long reason's too
        print(f"  {name} {value:>{max(37 - len(name), 1)}}")


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
