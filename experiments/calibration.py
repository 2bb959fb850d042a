"""A cell that measures nothing, for the sweep engine's own tests and benchmarks."""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Mapping

from emulator.sweep.experiments import Metrics


def sleep(params: Mapping[str, object], seed: int) -> Metrics:
    """Calibration only: sleeps `seconds`, spins `work` hash rounds, returns a seeded draw.

    The engine's tests and bench/sweep_scaling.py need cells of a known cost and known output:
    ``draw`` depends only on the seed and ``x``, ``echo`` repeats the parameter ``x``, so a run
    can be checked for every cell present exactly once with its own values. ``seconds`` costs
    wall time but no CPU (it shows the engine's own parallelism), ``work`` costs CPU (it shows
    what cores give); ``fail = true`` raises, to test how failures are recorded.
    """
    seconds = params.get("seconds", 0.0)
    if not isinstance(seconds, int | float) or seconds < 0:
        raise ValueError(f"seconds must be a non-negative number, got {seconds!r}")
    if params.get("fail", False):
        raise RuntimeError(f"cell asked to fail (seed {seed})")
    work = params.get("work", 0)
    if isinstance(work, bool) or not isinstance(work, int) or work < 0:
        raise ValueError(f"work must be a non-negative integer, got {work!r}")
    if seconds:
        time.sleep(float(seconds))
    digest = seed.to_bytes(8, "little", signed=True)
    for _ in range(work):
        digest = hashlib.sha256(digest).digest()
    x = params.get("x", 0)
    return {
        "draw": random.Random(f"{seed}/{x}").random(),
        "echo": x if isinstance(x, int | float | str | bool) else str(x),
        "digest": digest.hex()[:16],
    }
