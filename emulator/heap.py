"""Python's garbage collector tuned for a process that must not pause: a window, a daemon.

Process-wide, so only an application's entry point calls these (``gui.app``, the daemon's
``run_foreground``), never a library or a test; :func:`collector_paused` only around a daemon's
command.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GC_THRESHOLD = 5000  # allocations between two collections (Python's: 700)


def settle_heap(*, survivors: bool = True) -> None:
    """Collect, then freeze what is alive (the workload, the platform, a window's Qt wrappers:
    never scanned again), and collect every :data:`GC_THRESHOLD` allocations. With
    ``survivors`` (a window's), also freeze what survives each collection from then on, so
    that no collection scans more than the objects made since the last.
    :func:`release_heap` undoes it.

    Python's own schedule lets the older generations grow with the session, and a full
    collection then scans the whole session: long pauses in a window that must not stutter.
    Nothing is lost by freezing: the emulator's and the views' garbage is freed by reference
    counting, which frozen objects keep (the cyclic collector finds next to none). A daemon,
    which may run for weeks, freezes only what it started with (its platform, a workload it was
    given), so that cyclic garbage made later is still found. (docs/performance.md has the
    figures.)"""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD)
    if survivors:
        gc.callbacks.append(_freeze_survivors)


def release_heap() -> None:
    """Undo :func:`settle_heap` and collect everything (the window is gone)."""
    if _freeze_survivors in gc.callbacks:
        gc.callbacks.remove(_freeze_survivors)
    gc.unfreeze()
    gc.collect()


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    if phase == "stop":
        gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection during one bounded piece of work (a daemon's command): a command
    that lists 100,000 jobs makes as many short-lived objects, which would set off collections
    that scan every job the daemon holds, for garbage that reference counting frees anyway.
    The collector resumes after it, and finds any cycle the command left then."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
