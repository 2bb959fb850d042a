"""Python's garbage collector tuned for a process that must not pause: a window, a daemon.

Process-wide, so only an application's entry point calls these (``gui.app``, the daemon's
``run_foreground``), never a library or a test.
"""

from __future__ import annotations

import gc

GC_THRESHOLD = 5000  # allocations between two collections (Python's: 700)


def settle_heap(*, survivors: bool = True) -> None:
    """Collect, then freeze what is alive (the workload, the platform, a window's Qt wrappers:
    never scanned again), and collect every :data:`GC_THRESHOLD` allocations. With
    ``survivors`` (a window's), also freeze what survives each collection from then on, so
    that no collection scans more than the objects made since the last.
    :func:`release_heap` undoes it.

    Python's own schedule lets the older generations grow with the session: at 5,000 nodes and
    10,000 queued jobs the collections took 37-70 ms per second of a running window, with single
    pauses up to 0.4 s (a full collection scans the whole session). Nothing is lost by freezing:
    the cyclic collector found no garbage at all in a minute of that window running flat out
    (emulator and views alike: their garbage is freed by reference counting, which frozen
    objects keep). A daemon, which may run for weeks, freezes only what it started with (its
    platform, a workload it was given): cyclic garbage made later is still found. On the window
    benchmark's platform that made its events 5 % and its snapshots 16 % cheaper (freezing the
    survivors too gained nothing more there)."""
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
