"""``batchlab gui`` and ``batchlab demo``: the commands the window brings to the ``batchlab``
command line, through the entry point group ``batchlab.commands`` (pyproject.toml) that
:mod:`emulator.cli` reads, so that the emulator never imports the GUI. No Qt is imported here:
``batchlab`` starts fast unless a window opens (:mod:`gui.app`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from emulator.api.registry import DEFAULT_SCHEDULER, parse_spec
from emulator.child import ChildError, ChildSession, Feed
from emulator.cli import CliError, main, resolve_platform
from emulator.model.platform_file import load_platform
from gui.scenario import Scenario

__all__ = ["add_commands"]

_NO_GUI = "the GUI needs PySide6 and pyqtgraph"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``gui`` and ``demo`` to ``batchlab``'s subcommands."""
    _add_gui(commands)
    _add_demo(commands)


def _add_gui(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gui = commands.add_parser(
        "gui",
        help="watch and drive an emulated platform in a window (PySide6 + pyqtgraph)",
        description="Open the batchlab window on a platform: nodes, Gantt chart, links, queues, "
        "metrics, the scheduler's event log and a Slurm command console. The emulator runs in "
        "a daemon of the window's own, a child process with a core to itself, stopped when "
        "the window closes (--compare runs two, on one clock); the window sizes itself to the "
        "screen and pauses when the workload is done. Speed presets, a 'run to' field and the "
        "console's `@ HH:MM` move the clock; F1 shows the legend and shortcuts, F5 presentation "
        "mode, Ctrl+Q quits. --screenshot runs as fast as "
        "possible to simulated time --after (seconds), saves the window as a PNG and exits (no "
        "display needed with QT_QPA_PLATFORM=offscreen). --socket PATH attaches to a running "
        "daemon instead (`batchlab daemon start`): the window shows its jobs, the console runs "
        "commands on it as you, and the daemon's clock rules: Play, Pause, Step and the speed "
        "slider send it clock requests (the daemon's operator only), and the window follows "
        "it whoever steers it.",
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
    source.add_argument(
        "--workload", "-w", help="SWF (.swf, .swf.gz) or BSP CSV: a file or shipped name"
    )
    source.add_argument(
        "--commands", "-c", help="command file, run at the start: a file or shipped name"
    )
    gui.add_argument("--scheduler", "-s", help="scheduler spec (easy)")
    gui.add_argument(
        "--compare",
        nargs=2,
        metavar=("SPEC_A", "SPEC_B"),
        help="two schedulers side by side on the same platform and workload: a daemon each, "
        "both driven by the window's one clock (Play, Step, speed, run to)",
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


def _scenario(args: argparse.Namespace) -> Scenario:
    """What the window's daemons run, from ``batchlab gui``'s options."""
    if args.demo:
        if args.platform or args.workload or args.commands:
            raise CliError("--demo brings its own platform and workload")
        from emulator.session import DEMO_PLATFORM
        from resources import platform_path

        return Scenario(platform_path(DEMO_PLATFORM), Feed(demo=True), args.speed)
    platform_file = resolve_platform(args.platform or "lab")
    load_platform(platform_file)  # a bad platform file: said here, not by the daemon
    feed = Feed.given(False, args.workload, args.commands)
    return Scenario(platform_file, feed, args.speed)


def _gui(args: argparse.Namespace) -> int:
    """``batchlab gui``: each emulator in a daemon of its own that the window attaches to (see
    :mod:`emulator.child`); ``--compare`` runs two, on one clock."""
    if args.socket is not None:
        return _gui_attached(args)
    if args.compare and args.scheduler:
        raise CliError("--compare names both schedulers: drop --scheduler")
    specs = [
        str(parse_spec(spec)) for spec in args.compare or [args.scheduler or DEFAULT_SCHEDULER]
    ]
    scenario = _scenario(args)
    _refuse_without_display()
    try:
        from gui.app import compare, run
    except ImportError as error:
        raise CliError(f"{_NO_GUI}: {error}") from None
    sessions: list[ChildSession] = []
    try:  # the windows stop their daemons when they close; this, if a window fails first
        for spec in specs:
            sessions.append(scenario.open(spec))
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


def _refuse_without_display() -> None:
    """Qt aborts the whole process (status 134) when it cannot reach a display: ask first, as
    ``batchlab demo`` does (Qt is tried in a child process), and say why in one line. A Qt
    platform that draws without a window (offscreen: screenshots, tests) needs no display."""
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal"):
        return
    try:
        from gui.app import display_problem
    except ImportError as error:
        raise CliError(f"{_NO_GUI}: {error}") from None
    problem = display_problem()
    if problem is not None:
        raise CliError(
            f"no window can open here: {problem} (batchlab demo --headless replays without one)"
        )


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
    _refuse_without_display()
    from emulator.remote import DaemonError, DaemonUnavailable, RemoteSession

    try:
        session = RemoteSession(args.socket)
    except (DaemonUnavailable, DaemonError) as error:
        raise CliError(f"cannot attach to {args.socket}: {error}") from None
    try:
        from gui.app import run
    except ImportError as error:
        raise CliError(f"{_NO_GUI}: {error}") from None
    try:
        return run(session, playing=False, presentation=args.presentation)
    finally:
        session.close()


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
            return main(["gui", "--demo"])
        print(
            f"batchlab demo: no display ({problem}): running the headless demo instead", flush=True
        )
    import resources

    trace = args.trace or Path(resources.__file__).parent / "workloads/kth-sp2-first-2000.swf.gz"
    return main(["replay", str(trace), "-s", "easy", "-o", str(args.out)])
