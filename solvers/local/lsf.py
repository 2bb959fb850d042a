"""Largest Size First (Tchernykh et al., two-level grid brokers, §2.2 and §3: the local policy of
each node; the paper's LSF/BLD, a list scheduler rather than a strip packing).

A list scheduler: waiting jobs ordered by size, largest first (ties by queue order), each started
as soon as it fits; no reservations, so a job that does not fit is passed over, not waited for.
Its estimate is the same list schedule carried forward from now over the running jobs' expected
ends (the broker paper's MCT asks exactly this of a node: the completion time in its own schedule).
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from emulator.api import ClusterView, Decision, Estimate, LocalPolicy, Start
from emulator.model.job import Job


def list_schedule_start(
    now: float,
    free: int,
    ends: Iterable[tuple[float, int]],
    waiting: Sequence[tuple[int, float]],
    target: int,
) -> float:
    """When ``waiting[target]`` starts under list scheduling (``inf`` if never).

    ``waiting`` holds ``(cores, walltime)`` in scan order; ``ends`` the running jobs'
    ``(expected_end, cores)``. At ``now`` and at every end after it, the waiting jobs are scanned in
    order and each that fits the free cores starts; the jobs run their walltime.
    """
    heap = [(end if end > now else now, cores) for end, cores in ends]
    heapq.heapify(heap)
    pending = list(range(len(waiting)))
    time = now
    while True:
        left = []
        for k in pending:
            cores, walltime = waiting[k]
            if cores <= free:
                if k == target:
                    return time
                free -= cores
                heapq.heappush(heap, (time + walltime, cores))
            else:
                left.append(k)
        pending = left
        if not heap:
            return math.inf
        time, cores = heapq.heappop(heap)
        free += cores
        while heap and heap[0][0] <= time:
            free += heapq.heappop(heap)[1]


@dataclass
class LargestSizeFirst(LocalPolicy):
    """Largest size first: start the biggest waiting jobs that fit, skipping those that do not."""

    name = "lsf"
    # the plan kept between estimates while the cluster's version stands: the queue in scan
    # order (cores, walltime, job id), and the free cores over time from the running jobs alone
    _version: int = field(default=-1, init=False, repr=False)
    _scan: list[tuple[int, float, int]] = field(default_factory=list, init=False, repr=False)
    _step_times: list[float] = field(default_factory=list, init=False, repr=False)
    _step_free: list[int] = field(default_factory=list, init=False, repr=False)

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        if view.free_cores == 0:
            return
        ordered = sorted(enumerate(view.queue), key=lambda item: (-item[1].cores, item[0]))
        for _, job in ordered:
            if job.cores <= view.free_cores and view.fits(job):
                yield Start(job)
                if view.free_cores == 0:
                    return

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Each job's completion in LSF's own list schedule: a new job enters the scan order
        after every queued job of its size, a queued job keeps its place."""
        if view.version != self._version:
            self._replan(view)
        now, walltime = view.now, view.walltime
        answers = []
        for job in jobs:
            if not self._scan:  # nothing waits: the job starts when enough cores are back
                found = bisect_left(self._step_free, job.cores)
                start = (
                    math.inf if found == len(self._step_free) else max(self._step_times[found], now)
                )
            else:
                start = self._simulate(job, view)
            answers.append(Estimate(start, start + walltime(job)))
        return answers

    def _replan(self, view: ClusterView) -> None:
        self._version = view.version
        walltime = view.walltime
        queue = view.queue
        self._scan = sorted(
            ((job.cores, walltime(job), job.id) for job in queue),
            key=lambda item: -item[0],  # a stable sort: ties keep the queue order
        )
        times, free = [view.now], [view.free_cores]
        for end, _, cores in view.running_ends:
            if end <= times[-1]:
                free[-1] += cores
            else:
                times.append(end)
                free.append(free[-1] + cores)
        self._step_times, self._step_free = times, free

    def _simulate(self, job: Job, view: ClusterView) -> float:
        scan = self._scan
        waiting = [(cores, walltime) for cores, walltime, _ in scan]
        target = next((k for k, item in enumerate(scan) if item[2] == job.id), -1)
        if target < 0:  # a newcomer: after every queued job at least its size
            target = bisect_right([-cores for cores, _, _ in scan], -job.cores)
            waiting.insert(target, (job.cores, view.walltime(job)))
        ends = [(end, cores) for end, _, cores in view.running_ends]
        return list_schedule_start(view.now, view.free_cores, ends, waiting, target)
