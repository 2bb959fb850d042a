"""A multi-cluster workload built from several SWF traces, one per cluster (the reallocation
paper's scenarios, §3.3: one month of each site's log, or six months of three logs mixed).

Each trace contributes the jobs submitted within ``window`` seconds from ``skip`` seconds after
its first submission; every trace's window is shifted to start at 0 (aligned starts), the jobs
of all traces are merged in submit order (ties: trace order, then the trace's own order) and
renumbered 1, 2, ... The SWF reading and the replay semantics (size, limit, dropped jobs) are
:func:`workloads.swf.submissions`'s; users are prefixed with the trace's position (``t0u12``),
since user numbers of different logs are unrelated.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from emulator.model.job import Submission
from workloads.swf import Dropped, SwfTrace, submissions


@dataclass(frozen=True, slots=True)
class TraceWindow:
    """One trace's part of the workload: ``window`` seconds from ``skip`` after its first
    submission (``inf``: to the end)."""

    path: Path
    skip: float = 0.0
    window: float = math.inf


def window_jobs(
    part: TraceWindow, position: int, max_cores: int, dropped: Dropped
) -> Iterator[Submission]:
    """The trace's jobs in its window, submit times from the window's start."""
    if part.skip < 0 or not part.window > 0:
        raise ValueError(f"{part.path}: skip must be >= 0 and window > 0 seconds")
    first = math.nan
    for job in submissions(SwfTrace(part.path), max_cores, dropped):
        if math.isnan(first):
            first = job.submit
        at = job.submit - first - part.skip
        if at < 0:
            continue
        if at >= part.window:
            break
        request = replace(job.request, user=f"t{position}{job.request.user}")
        yield Submission(job.job_id, at, request, job.runtime)


def _keyed(
    jobs: Iterator[Submission], position: int
) -> Iterator[tuple[float, int, int, Submission]]:
    """The merge key of each job: submit time, trace position, order in the trace."""
    for order, job in enumerate(jobs):
        yield job.submit, position, order, job


def multi_trace(
    parts: Sequence[TraceWindow], max_cores: int, dropped: Dropped | None = None
) -> list[Submission]:
    """The merged, renumbered workload (jobs larger than ``max_cores`` counted in ``dropped``)."""
    dropped = dropped if dropped is not None else Dropped()
    streams = [_keyed(window_jobs(part, k, max_cores, dropped), k) for k, part in enumerate(parts)]
    return [
        replace(job, job_id=number)
        for number, (_, _, _, job) in enumerate(heapq.merge(*streams), 1)
    ]
