"""EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2).

The queue head gets the only reservation. Its *shadow time* is the earliest expected end of
running jobs (``start + time limit``) at which enough cores are free for it; *extra* cores are
those free at the shadow time beyond what the head needs, counting every running job whose
expected end is at or before the shadow time. A later job may start now if it fits and either
ends by the shadow time or uses no more than the extra cores (which it then consumes).

A pass that only follows arrivals looks at the new jobs alone: with no job ended or gone since
the previous pass, free cores, shadow time and extra cores are what that pass left, and every job
it passed over would be passed over again (time only moved on). Nodes going out of or back
into service change the free cores too: a full pass follows. This is exact, and it makes a
pass cost O(arrivals) instead of O(queue) half the time.
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

from emulator.api import ClusterView, Decision, Estimate, Explain, LocalPolicy, Reserve, Start
from emulator.model.job import Job, Reason

RESOURCES = Reason.RESOURCES  # bound once: enum attribute reads are slow on Python 3.11


def shadow_and_extra(
    free: int, head_cores: int, ends: Iterable[tuple[float, int, int]]
) -> tuple[float, int]:
    """Shadow time and extra cores for a head needing ``head_cores`` with ``free`` cores free now.

    ``ends`` holds ``(expected_end, job_id, cores)`` of running jobs, sorted by expected end.
    Returns ``(inf, 0)`` when even all running jobs' cores would not suffice.
    """
    available = free
    running = iter(ends)
    for end, _, cores in running:
        available += cores
        if available >= head_cores:
            shadow = end
            break
    else:
        return math.inf, 0
    for end, _, cores in running:  # the jobs that end at the shadow time too
        if end > shadow:
            break
        available += cores
    return shadow, available - head_cores


def easy_start(
    now: float,
    free: int,
    running: Iterable[tuple[float, int, int]],
    waiting: Sequence[tuple[int, float]],
    target: int,
) -> float:
    """When ``waiting[target]`` starts under EASY carried forward from ``now`` (``inf``: never).

    ``waiting`` holds ``(cores, walltime)`` in queue order, ``running`` the running jobs'
    ``(expected_end, job_id, cores)``. At ``now`` and at every end after it, the head starts
    while it fits, then the others backfill around its shadow time, as :meth:`Easy.schedule`
    does; the jobs run their walltime.
    """
    if isinstance(running, list) and (not running or running[0][0] > now):
        ends = running.copy()  # sorted, and nothing to clip to ``now``
    else:
        ends = sorted((end if end > now else now, job_id, cores) for end, job_id, cores in running)
    pending = list(range(len(waiting)))
    time, started = now, -1  # started jobs get negative ids in ``ends``
    while True:
        while pending and waiting[pending[0]][0] <= free:
            k = pending.pop(0)
            if k == target:
                return time
            free -= waiting[k][0]
            insort(ends, (time + waiting[k][1], started, waiting[k][0]))
            started -= 1
        if not pending:
            return math.inf
        shadow, extra = shadow_and_extra(free, waiting[pending[0]][0], ends)
        left = pending[:1]
        for k in pending[1:]:
            cores, walltime = waiting[k]
            backfills = cores <= free and (time + walltime <= shadow or cores <= extra)
            if not backfills:
                left.append(k)
                continue
            if k == target:
                return time
            if time + walltime > shadow:
                extra -= cores
            free -= cores
            insort(ends, (time + walltime, started, cores))
            started -= 1
        pending = left
        if not ends:
            return math.inf
        time = ends[0][0]
        while ends and ends[0][0] <= time:
            free += ends.pop(0)[2]


@dataclass
class Easy(LocalPolicy):
    """EASY backfilling: one reservation for the queue head; later jobs backfill around it."""

    name = "easy"
    _head: Job | None = field(default=None, init=False, repr=False)
    _shadow: float = field(default=math.inf, init=False, repr=False)
    _extra: int = field(default=0, init=False, repr=False)

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        first = view.head
        if first is None:
            return
        if first is self._head and not view.ended and not view.departed and not view.nodes_changed:
            yield from self._backfill(view, view.arrived)  # only arrivals since last pass
            return
        fits = view.fits
        while first is not None and fits(first):  # the head starts while it fits
            yield Start(first)
            first = view.head
        if first is None:
            self._head = None
            return
        head = self._head = first
        self._shadow, self._extra = shadow_and_extra(view.free_cores, head.cores, view.running_ends)
        if head.planned_start != self._shadow:
            yield Reserve(head, self._shadow)
        if head.reason is not RESOURCES:
            yield Explain(head, RESOURCES, "EASY: head of the queue, holds the reservation")
        if view.free_cores:  # (the copy of a long queue costs more than this whole pass)
            yield from self._backfill(view, islice(view.queue, 1, None))

    def _backfill(self, view: ClusterView, candidates: Iterable[Job]) -> Iterator[Decision]:
        """Start the ``candidates`` (never the head: it is not among them) that fit now and
        either end by the shadow time or use only extra cores."""
        now, shadow, walltime = view.now, self._shadow, view.walltime
        free = view.free_cores
        if free == 0:
            return
        for job in candidates:  # (free cores change only when a job starts: checked then)
            if job.cores > free:
                continue
            if now + walltime(job) <= shadow:
                if view.fits(job):
                    yield Start(
                        job, explanation="EASY: backfilled, ends before the head's reservation"
                    )
                    free = view.free_cores
                    if free == 0:
                        return
            elif job.cores <= self._extra and view.fits(job):
                self._extra -= job.cores
                yield Start(job, explanation="EASY: backfilled on cores the head does not need")
                free = view.free_cores
                if free == 0:
                    return

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Each job's start in EASY's own schedule carried forward: a queued job where it
        stands, a new one at the back of the queue."""
        walltime = view.walltime
        queue = view.queue
        waiting = [(job.cores, walltime(job)) for job in queue]
        jobs = list(jobs)
        here = view.cluster.index  # a job queued here says so; others are new here
        queued = any(job.cluster == here for job in jobs)
        place = {job.id: k for k, job in enumerate(queue)} if queued else {}
        answers = []
        for job in jobs:
            target = place.get(job.id, -1)
            if target >= 0 and queue[target] is job:
                candidates = waiting
            else:
                target, candidates = len(waiting), [*waiting, (job.cores, walltime(job))]
            start = easy_start(view.now, view.free_cores, view.running_ends, candidates, target)
            answers.append(Estimate(start, start + walltime(job)))
        return answers
