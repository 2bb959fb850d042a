"""``batchlab daemon|clock|shims`` and the Slurm commands, for :mod:`emulator.cli`."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from emulator.api.registry import DEFAULT_SCHEDULER
from emulator.daemon.commands import CLIENT_COMMANDS
from emulator.daemon.paths import default_socket, default_state_dir

SOCKET_HELP = "the daemon's socket (default: $BATCHLAB_SOCKET, else a per-user path)"


def client_command(argv: Sequence[str]) -> int | None:
    """Run ``[--socket PATH] COMMAND ARGS...`` for a Slurm command; None for anything else."""
    args = list(argv)
    socket_path = None
    if args and args[0].startswith("--socket="):
        socket_path, args = args[0].partition("=")[2], args[1:]
    elif len(args) >= 2 and args[0] == "--socket":
        socket_path, args = args[1], args[2:]
    if not args or args[0] not in CLIENT_COMMANDS:
        return None
    from emulator.daemon.client import run_client

    return run_client(args[0], args[1:], socket_path=socket_path)


def _speed(text: str) -> float:
    if text.lower() in ("max", "inf", "fast"):
        return math.inf
    try:
        value = float(text.removesuffix("x"))
    except ValueError:
        value = math.nan
    if not (value > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0 or max, got {text}")
    return value


def add_start_options(start: argparse.ArgumentParser) -> None:
    """The options of ``batchlab daemon start``."""
    start.add_argument("--platform", "-p", type=Path, help="platform TOML file or shipped name")
    start.add_argument(
        "--scheduler",
        "-s",
        help=f"scheduler spec (default: the platform's, else {DEFAULT_SCHEDULER})",
    )
    start.add_argument(
        "--state-dir", type=Path, help="journal, accounting.sqlite, ... (default: XDG state)"
    )
    start.add_argument("--socket", type=Path, help=SOCKET_HELP)
    start.add_argument("--foreground", "-f", action="store_true", help="do not detach")
    start.add_argument(
        "--shared", action="store_true", help="let every local user connect (socket mode 0666)"
    )
    start.add_argument("--speed", type=_speed, help="simulated seconds per second, or max")
    start.add_argument("--paused", action="store_true", default=None, help="start paused")
    start.add_argument("--fresh", action="store_true", help="set the old journal aside")
    start.add_argument(
        "--demo", action="store_true", help="start with the demo's platform and jobs"
    )
    start.add_argument(
        "--workload", help="feed an SWF, SWF.gz or BSP CSV workload (a file or shipped name)"
    )
    start.add_argument(
        "--commands", help="start by running this command file (a file or shipped name)"
    )


def start_main(argv: Sequence[str]) -> int:
    """``batchlab daemon start ARGS`` alone (what a window's own daemon runs,
    :mod:`emulator.child`)."""
    parser = argparse.ArgumentParser(prog="batchlab daemon start")
    add_start_options(parser)
    return _daemon_start(parser.parse_args(list(argv)))


def add_commands(commands: Any) -> None:
    """Register ``daemon``, ``clock``, ``shims`` and the Slurm commands on a subparsers object."""
    daemon = commands.add_parser(
        "daemon",
        help="start, stop or inspect the batchlab daemon",
        description="Run one emulated batch system behind a Unix socket that the Slurm "
        "commands (batchlab sbatch, squeue, ..., or the shims) talk to.",
    )
    actions = daemon.add_subparsers(dest="action", required=True, metavar="ACTION")
    start = actions.add_parser("start", help="start the daemon (detached unless --foreground)")
    add_start_options(start)
    start.set_defaults(handler_function=_daemon_start)
    for name, function, text in (
        ("stop", _daemon_stop, "stop the daemon"),
        ("status", _daemon_status, "show whether and how the daemon runs"),
    ):
        sub = actions.add_parser(name, help=text)
        sub.add_argument("--socket", type=Path, help=SOCKET_HELP)
        sub.set_defaults(handler_function=function)
    daemon.set_defaults(handler=_dispatch)

    clock = commands.add_parser(
        "clock",
        help="show or steer the simulated clock",
        description="show | pause | resume | step | speed X (simulated s per s, or max) | "
        "advance DURATION | until TIME | until idle. DURATION and TIME are seconds (90, 1.5), "
        "with a unit (10m, 2h, 1d), or Slurm's [D-]H:M:S; TIME counts from simulated 0, "
        "+DURATION from now.",
    )
    clock.add_argument("words", nargs="*", metavar="ACTION", help="e.g. speed 60, until idle")
    clock.add_argument("--socket", type=Path, help=SOCKET_HELP)
    clock.set_defaults(handler=_clock)

    shims = commands.add_parser(
        "shims",
        help="write sbatch, squeue, ... executables that talk to the daemon",
        description="Put DIR first on PATH and tools that call Slurm by name use batchlab.",
    )
    shims.add_argument("directory", type=Path, metavar="DIR")
    shims.add_argument("--socket", type=Path, help="bake this socket in as the default")
    shims.set_defaults(handler=_shims)

    for command in CLIENT_COMMANDS:
        parser = commands.add_parser(
            command, help=f"Slurm's {command}, answered by the daemon", add_help=False
        )
        parser.add_argument("args", nargs=argparse.REMAINDER)
        parser.set_defaults(handler=lambda args, name=command: _client(name, args))


def _dispatch(args: argparse.Namespace) -> int:
    result: int = args.handler_function(args)
    return result


def _socket(args: argparse.Namespace) -> Path:
    return Path(args.socket) if args.socket is not None else default_socket()


def _daemon_start(args: argparse.Namespace) -> int:
    from emulator.daemon.control import run_foreground, start_detached
    from emulator.daemon.emulation import Feed
    from emulator.daemon.state import Settings

    state_dir = args.state_dir if args.state_dir is not None else default_state_dir()
    settings = Settings(
        state_dir=state_dir.absolute(),
        socket_path=_socket(args).absolute(),
        platform=None if args.platform is None else args.platform,
        scheduler=args.scheduler,
        feed=Feed.given(args.demo, args.workload, args.commands),
        shared=args.shared,
        speed=args.speed,
        paused=args.paused,
        fresh=args.fresh,
    )
    if settings.platform is not None and settings.platform.is_file():
        settings.platform = settings.platform.absolute()
    if args.foreground:
        return run_foreground(settings)
    return start_detached(settings)


def _daemon_stop(args: argparse.Namespace) -> int:
    from emulator.daemon.control import stop

    return stop(_socket(args))


def _daemon_status(args: argparse.Namespace) -> int:
    from emulator.daemon.control import show_status

    return show_status(_socket(args))


def _clock(args: argparse.Namespace) -> int:
    from emulator.daemon.client import DaemonError, DaemonUnavailable, call
    from emulator.daemon.control import ClockSyntaxError, clock_request, format_clock

    try:
        request = clock_request(list(args.words))
    except ClockSyntaxError as problem:
        print(f"batchlab: error: {problem}", file=sys.stderr)
        return 2
    waits = request["action"] in ("advance", "until", "idle", "step")
    try:
        response = call(_socket(args), "clock", timeout=None if waits else 10.0, **request)
    except DaemonUnavailable as problem:
        print(f"batchlab: error: {problem}", file=sys.stderr)
        return 1
    except DaemonError as problem:
        print(f"batchlab: error: {problem.message}", file=sys.stderr)
        return 1
    print(format_clock(response["clock"]))
    return 0


def _shims(args: argparse.Namespace) -> int:
    from emulator.daemon.server import StartError
    from emulator.daemon.shims import write_shims

    try:
        written = write_shims(args.directory, args.socket)
    except StartError as problem:  # an OSError goes on to the main handler, which names the file
        print(f"batchlab: error: {problem}", file=sys.stderr)
        return 1
    print(f"wrote {', '.join(path.name for path in written)} to {args.directory}")
    print(f'use them with: export PATH="{args.directory.absolute()}:$PATH"')
    return 0


def _client(command: str, args: argparse.Namespace) -> int:
    from emulator.daemon.client import run_client

    return run_client(command, list(args.args))
