"""EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2).

The queue head gets the only reservation. Its *shadow time* is the earliest expected end of
running jobs (``start + time limit``) at which enough cores are free for it; *extra* cores are
those free at the shadow time beyond what the head needs, counting every running job whose
expected end is at or before the shadow time. A later job may start now if it fits and either
ends by the shadow time or uses no more than the extra cores (which it then consumes).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from emulator.api import ClusterView, Decision, Explain, LocalPolicy, Reserve, Start
from emulator.model.job import Reason


def shadow_and_extra(
    free: int, head_cores: int, ends: list[tuple[float, int]]
) -> tuple[float, int]:
    """Shadow time and extra cores for a head needing ``head_cores`` with ``free`` cores free now.

    ``ends`` holds ``(expected_end, cores)`` of running jobs. Returns ``(inf, 0)`` when even all
    running jobs' cores would not suffice.
    """
    available = free
    shadow = math.inf
    for end, cores in sorted(ends):
        if end > shadow:
            break
        available += cores
        if shadow == math.inf and available >= head_cores:
            shadow = end
    if shadow == math.inf:
        return math.inf, 0
    return shadow, available - head_cores


@dataclass
class Easy(LocalPolicy):
    """EASY backfilling: one reservation for the queue head; later jobs backfill around it."""

    name = "easy"

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        first = view.head
        if first is None or (view.free_cores == 0 and not math.isnan(first.planned_start)):
            return  # nothing can start, and the head's reservation cannot have moved
        queue = view.queue
        index = 0
        for job in queue:
            if not view.fits(job):
                break
            yield Start(job)
            index += 1
        if index == len(queue):
            return
        head = queue[index]
        shadow, extra = shadow_and_extra(
            view.free_cores, head.cores, [(j.expected_end, j.cores) for j in view.running]
        )
        if head.planned_start != shadow:
            yield Reserve(head, shadow)
        if head.reason is not Reason.RESOURCES:
            yield Explain(head, Reason.RESOURCES, "EASY: head of the queue, holds the reservation")
        now = view.now
        free = view.free_cores
        for job in queue[index + 1 :]:
            if free == 0:
                return
            if job.cores > free:
                continue
            if now + view.walltime(job) <= shadow:
                if view.fits(job):
                    yield Start(
                        job, explanation="EASY: backfilled, ends before the head's reservation"
                    )
                    free = view.free_cores
            elif job.cores <= extra and view.fits(job):
                extra -= job.cores
                yield Start(job, explanation="EASY: backfilled on cores the head does not need")
                free = view.free_cores
