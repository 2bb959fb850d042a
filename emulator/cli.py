"""The ``batchlab`` command line."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
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
    _add_gui(commands)
    _add_demo(commands)
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
    platform = load_platform(_platform_file(args.platform))
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


def _platform_file(text: str) -> Path:
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


# --- batchlab gui (the window lives in the gui package; Qt is imported only when it runs) ----


def _add_gui(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gui = commands.add_parser(
        "gui",
        help="watch and drive an emulated platform in a window (PySide6 + pyqtgraph)",
        description="Open the batchlab window on a platform: nodes, Gantt chart, links, queues, "
        "metrics, the scheduler's event log and a Slurm command console. The emulator runs in "
        "a daemon of the window's own, a child process with a core to itself, stopped when "
        "the window closes (--compare runs its two in the window's process). --screenshot runs "
        "as fast as possible to simulated time --after (seconds), saves the window as a PNG "
        "and exits (no display needed with QT_QPA_PLATFORM=offscreen). --socket PATH attaches "
        "to a running daemon instead (`batchlab daemon start`): the window shows its jobs, the "
        "console runs commands on it as you, and the daemon's clock rules: Play, Pause, Step "
        "and the speed slider send it clock requests (the daemon's operator only), and the "
        "window follows it whoever steers it.",
    )
    gui.add_argument(
        "--socket",
        type=Path,
        metavar="PATH",
        help="attach to the daemon on PATH (no other source option then; --speed and "
        "--paused do not apply: use `batchlab clock`)",
    )
    gui.add_argument("--platform", "-p", help="platform TOML file or shipped name (lab)")
    source = gui.add_mutually_exclusive_group()
    source.add_argument("--workload", "-w", type=Path, help="SWF (.swf, .swf.gz) or BSP CSV")
    source.add_argument("--commands", "-c", type=Path, help="command file, run at the start")
    gui.add_argument("--scheduler", "-s", help="scheduler spec (easy)")
    gui.add_argument(
        "--compare",
        nargs=2,
        metavar=("SPEC_A", "SPEC_B"),
        help="two schedulers side by side on the same platform and workload, on one clock",
    )
    gui.add_argument(
        "--presentation",
        action="store_true",
        help="start in presentation mode: large fonts, thick lines, high contrast (F5 toggles)",
    )
    gui.add_argument(
        "--demo",
        action="store_true",
        help="the teaching-3sites platform with a seeded mixed workload, an array and a dependency",
    )
    gui.add_argument(
        "--speed", type=float, default=60.0, help="simulated seconds per wall second (60)"
    )
    gui.add_argument("--paused", action="store_true", help="start paused")
    gui.add_argument("--screenshot", type=Path, help="write the window to this PNG and exit")
    gui.add_argument(
        "--after",
        type=float,
        default=3600.0,
        help="with --screenshot: simulated seconds to run first (3600)",
    )
    gui.set_defaults(handler=_gui)


def _gui(args: argparse.Namespace) -> int:
    """``batchlab gui``: each emulator in a daemon of its own that the window attaches to (see
    :mod:`emulator.child`); ``--compare`` runs two, on one clock."""
    from functools import partial

    from emulator.child import ChildError, ChildSession, Feed, open_child

    if args.socket is not None:
        return _gui_attached(args)
    if args.compare and args.scheduler:
        raise CliError("--compare names both schedulers: drop --scheduler")
    specs = [str(parse_spec(spec)) for spec in args.compare or [args.scheduler or "easy"]]
    if args.demo:
        if args.platform or args.workload or args.commands:
            raise CliError("--demo brings its own platform and workload")
        from emulator.session import DEMO_PLATFORM
        from resources import platform_path

        platform_file, feed = platform_path(DEMO_PLATFORM), Feed(demo=True)
    else:
        platform_file = _platform_file(args.platform or "lab")
        load_platform(platform_file)  # a bad platform file: said here, not by the daemon
        feed = Feed(workload=args.workload, commands=args.commands)
    # a fresh daemon's session per scheduler (View > Compare schedulers... opens two)
    scenario = partial(open_child, platform_file, feed=feed, speed=args.speed)
    try:
        from gui.app import compare, run
    except ImportError as error:
        raise CliError(f"the GUI needs PySide6 and pyqtgraph (batchlab[gui]): {error}") from None
    sessions: list[ChildSession] = []
    try:  # the windows stop their daemons when they close; this, if a window fails first
        for spec in specs:
            sessions.append(scenario(spec))
        show: Callable[..., int]
        if args.compare:
            show = partial(compare, *sessions, speed=args.speed)
        else:
            show = partial(run, sessions[0], scenario=scenario)
        return show(
            playing=not args.paused,
            screenshot=args.screenshot,
            after=args.after,
            presentation=args.presentation,
        )
    except ChildError as error:
        raise CliError(str(error)) from None
    finally:
        for session in sessions:
            session.close()


def _gui_attached(args: argparse.Namespace) -> int:
    """``batchlab gui --socket PATH``: the window on a running daemon."""
    given = [
        f"--{name}"
        for name in ("platform", "workload", "commands", "scheduler", "compare", "screenshot")
        if getattr(args, name)
    ] + (["--demo"] if args.demo else [])
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise CliError(
            f"--socket attaches to a running daemon: {', '.join(given)} {verb} not apply"
        )
    from emulator.daemon.client import DaemonError, DaemonUnavailable
    from emulator.remote import RemoteSession

    try:
        session = RemoteSession(args.socket)
    except (DaemonUnavailable, DaemonError) as error:
        raise CliError(f"cannot attach to {args.socket}: {error}") from None
    try:
        from gui.app import run
    except ImportError as error:
        raise CliError(f"the GUI needs PySide6 and pyqtgraph (batchlab[gui]): {error}") from None
    try:
        return run(session, playing=False, presentation=args.presentation)
    finally:
        session.close()


# --- batchlab demo: the README's first command ---------------------------------------------------


def _add_demo(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser(
        "demo",
        help="the demo: the GUI's teaching scenario if a window can open, else a trace replay",
        description="Open `batchlab gui --demo` when a window can open here (DISPLAY or "
        "WAYLAND_DISPLAY is set and Qt starts on it). Otherwise say why in one line and replay "
        "--trace under EASY backfilling (`batchlab replay TRACE -s easy -o OUT`).",
    )
    demo.add_argument(
        "--trace", type=Path, help="the trace of the headless demo (the shipped KTH-SP2 excerpt)"
    )
    demo.add_argument("--out", "-o", type=Path, default=Path("out/demo"), help="(out/demo)")
    demo.add_argument("--headless", action="store_true", help="replay even if a window can open")
    demo.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    if not args.headless:
        from gui.app import display_problem  # no Qt here: it tries Qt in a child process

        problem = display_problem()
        if problem is None:
            return _gui(_parser().parse_args(["gui", "--demo"]))
        print(
            f"batchlab demo: no display ({problem}): running the headless demo instead", flush=True
        )
    import resources

    trace = args.trace or Path(resources.__file__).parent / "workloads/kth-sp2-first-2000.swf.gz"
    return _replay(_parser().parse_args(["replay", str(trace), "-s", "easy", "-o", str(args.out)]))


if __name__ == "__main__":
    raise SystemExit(main())
