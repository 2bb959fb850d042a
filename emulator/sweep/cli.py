"""``batchlab sweep`` and ``batchlab report``: the argparse side of emulator.sweep."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from emulator.sweep.experiments import available
from emulator.sweep.model import SweepSpec
from emulator.sweep.spec import SweepSpecError, load_spec

BAR = 30


def add_commands(commands: Any) -> None:
    """Add ``sweep`` and ``report`` to the ``batchlab`` subcommands."""
    sweep = commands.add_parser(
        "sweep",
        help="run an experiment campaign (a sweep spec) on Dask",
        description="Run the cells of a sweep spec (a TOML file, or the name of one in "
        "resources/experiments/) on a local Dask cluster or a running Dask scheduler, into "
        "DIR/results.parquet and DIR/provenance.json. See docs/experiments.md.",
    )
    sweep.add_argument("spec", nargs="?", help="sweep spec: a .toml file or a shipped name")
    sweep.add_argument("--out", "-o", type=Path, help="the sweep directory")
    where = sweep.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", "-w", type=_positive, help="local worker processes (default: the cores)"
    )
    where.add_argument(
        "--scheduler-address", metavar="tcp://HOST:PORT", help="a running Dask scheduler"
    )
    sweep.add_argument("--quick", action="store_true", help="run only the spec's quick subset")
    sweep.add_argument("--resume", action="store_true", help="run the cells not yet done in DIR")
    sweep.add_argument("--list", action="store_true", help="list the registered experiments")
    sweep.set_defaults(handler=_sweep)

    report = commands.add_parser(
        "report",
        help="write DIR/report.md and its figures from a sweep directory",
        description="Aggregate a sweep directory's results over seeds (mean, 95 %% confidence "
        "interval) into DIR/report.md, draw the spec's plots as PNG files beside it, and print "
        "the paper's figures beside ours with their ratio.",
    )
    report.add_argument("directory", type=Path, help="a directory written by batchlab sweep")
    report.set_defaults(handler=_report)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _sweep(args: argparse.Namespace) -> int:
    from emulator.sweep.runner import SweepError, run_sweep  # Dask and pyarrow: only when used
    from emulator.sweep.store import RESULTS, StoreError

    if args.list:
        for name, doc in available().items():
            print(f"{name:20} {doc}")
        return 0
    if not args.spec or not args.out:
        return _fail("sweep needs a SPEC and --out DIR (or --list)")
    try:
        spec = _load(args.spec)
        progress = _Progress() if sys.stderr.isatty() else None
        outcome = run_sweep(
            spec,
            args.out,
            quick=args.quick,
            resume=args.resume,
            workers=args.workers,
            address=args.scheduler_address,
            progress=progress,
        )
    except (SweepSpecError, SweepError, StoreError) as error:
        return _fail(str(error))
    if progress:
        progress.finish()
    done = outcome.already + outcome.ran - outcome.failed
    print(
        f"{spec.name}: {done} of {outcome.total} cells done ({outcome.ran} run now, "
        f"{outcome.already} before, {outcome.failed} failed) -> {args.out / RESULTS}"
    )
    if outcome.interrupted:
        print(
            f"interrupted: finished cells are kept; --resume runs the {outcome.total - done} "
            "others",
            file=sys.stderr,
        )
        return 130
    if outcome.failed:
        print(
            f"{outcome.failed} cells failed: their errors are in the 'error' column; "
            "--resume runs them again",
            file=sys.stderr,
        )
        return 1
    return 0


def _report(args: argparse.Namespace) -> int:
    from emulator.sweep.report import ReportError, write_report
    from emulator.sweep.store import StoreError

    try:
        path = write_report(args.directory)
    except (SweepSpecError, StoreError, ReportError) as error:
        return _fail(str(error))
    print(f"wrote {path}")
    return 0


def _load(text: str) -> SweepSpec:
    """A spec file, else a shipped spec by name (``resources.resolve``, as every front end)."""
    from resources import resolve

    try:
        path = resolve("sweep spec", text)
    except FileNotFoundError as error:
        raise SweepSpecError(str(error)) from None
    return load_spec(path)


def _fail(message: str) -> int:
    print(f"batchlab: error: {message}", file=sys.stderr)
    return 1


class _Progress:
    """``[####------] 123/1000 cells  2 failed  ETA 1:23`` on stderr, rewritten in place; the ETA
    extrapolates the pace of the cells run so far in this invocation."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.first: int | None = None

    def __call__(self, done: int, total: int, failed: int) -> None:
        if self.first is None:
            self.first = done - 1
        pace = (time.monotonic() - self.started) / max(done - self.first, 1)
        eta = round(pace * (total - done))
        filled = done * BAR // max(total, 1)
        bar = "#" * filled + "-" * (BAR - filled)
        failures = f"  {failed} failed" if failed else ""
        line = f"\r[{bar}] {done}/{total} cells{failures}  ETA {eta // 60}:{eta % 60:02d} "
        print(line, end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        print(file=sys.stderr)
