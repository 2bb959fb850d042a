"""The collector settings of a window and of a daemon (:mod:`emulator.heap`). Process-wide, so
each probe runs in a process of its own."""

from __future__ import annotations

import subprocess
import sys

WINDOW = """
import gc
from emulator.heap import release_heap, settle_heap

settle_heap()
frozen = gc.get_freeze_count()
kept = [[n] for n in range(20000)]  # survivors of the collections they trigger
gc.collect(0)
assert gc.get_freeze_count() >= frozen + len(kept), (frozen, gc.get_freeze_count())
assert gc.get_count()[1] == 0  # nothing piles up in the older generations
cycle = [[]]
cycle[0].append(cycle)
del cycle
assert gc.collect(0) >= 2  # cyclic garbage younger than the last collection is still found
release_heap()
assert gc.get_freeze_count() == 0
gc.collect()
assert gc.get_freeze_count() == 0  # no longer freezing after a collection
"""

DAEMON = """
import gc
from emulator.heap import GC_THRESHOLD, settle_heap

platform = [[n] for n in range(1000)]  # what the daemon started with
settle_heap(survivors=False)
frozen = gc.get_freeze_count()
assert frozen >= len(platform) and gc.get_threshold()[0] == GC_THRESHOLD
later = [[n] for n in range(20000)]
gc.collect(0)
assert gc.get_freeze_count() == frozen  # what came later is not frozen
later[0].append(later)  # a cycle that outlived collections, then became garbage
del later
assert gc.collect() >= 2  # still found
"""


def test_a_window_freezes_what_survives_each_collection_until_released() -> None:
    subprocess.run([sys.executable, "-c", WINDOW], check=True, timeout=60)


def test_a_daemon_freezes_only_what_it_started_with() -> None:
    subprocess.run([sys.executable, "-c", DAEMON], check=True, timeout=60)
