"""What the replay benchmarks share: the best CPU time of repeated replays of one workload."""

from __future__ import annotations

import time

from emulator.model.job import Submission
from emulator.model.platform import Platform
from emulator.replay import ReplayResult, replay


def timed(
    runs: int, jobs: list[Submission], platform: Platform, spec: str, *, with_nodes: bool = False
) -> tuple[float, ReplayResult]:
    """Best CPU time of ``runs`` replays, and the last result (they are all identical): the
    best, because other load on a shared machine only ever adds time."""
    seconds = float("inf")
    for _ in range(runs):
        started = time.process_time()
        result = replay(jobs, platform, spec, with_nodes=with_nodes)
        seconds = min(seconds, time.process_time() - started)
    return seconds, result
