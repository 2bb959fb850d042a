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
from bisect import bisect_left, bisect_right, insort
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


Key = tuple[int, float, int]  # (-cores, submit, id): LSF's scan order, ties in queue order


@dataclass
class ScanOrder:
    """The cluster's queue kept in LSF's scan order across passes, so a pass costs the jobs it
    starts rather than a sort of the whole queue.

    It follows the view's ``arrived`` list from where it last read it (the engine clears it
    after each pass). A departure (a job cancelled, held, moved) makes it start over from the
    queue: the job may be one it read already, and the pass start drops such jobs from
    ``arrived`` (:meth:`emulator.engine.nodes.ClusterState.begin_pass`), so positions read
    before no longer hold. A job queued again after a departure is keyed afresh (an update may
    have changed its size).
    """

    keys: list[Key] = field(default_factory=list)
    jobs: dict[int, tuple[Key, Job]] = field(default_factory=dict)
    loaded: bool = False
    read_arrived: int = 0

    def sync(self, view: ClusterView) -> None:
        arrived = view.arrived
        if not self.loaded or view.departed:
            self.loaded = True
            keyed = [((-job.cores, job.submit, job.id), job) for job in view.queue]
            self.jobs = {key[2]: (key, job) for key, job in keyed}
            self.keys = sorted(key for key, _ in keyed)
        else:
            for job in arrived[self.read_arrived :]:
                self._add(job)
        self.read_arrived = len(arrived)

    def pass_over(self) -> None:
        """The policy's pass is over: the engine empties the lists, reading starts afresh."""
        self.read_arrived = 0

    def _add(self, job: Job) -> None:
        key = (-job.cores, job.submit, job.id)
        insort(self.keys, key)
        self.jobs[job.id] = (key, job)

    def remove(self, job_id: int) -> None:
        key, _ = self.jobs.pop(job_id)
        del self.keys[bisect_left(self.keys, key)]


@dataclass
class LargestSizeFirst(LocalPolicy):
    """Largest size first: start the biggest waiting jobs that fit, skipping those that do not."""

    name = "lsf"
    _order: ScanOrder = field(default_factory=ScanOrder, init=False, repr=False)
    # the plan kept between estimates while the cluster's version stands: the queue in scan
    # order as (cores, walltime), their ids and -cores (ascending, to bisect), and the free
    # cores over time from the running jobs alone
    _version: int = field(default=-1, init=False, repr=False)
    _waiting: list[tuple[int, float]] = field(default_factory=list, init=False, repr=False)
    _ids: list[int] = field(default_factory=list, init=False, repr=False)
    _negated: list[int] = field(default_factory=list, init=False, repr=False)
    _step_times: list[float] = field(default_factory=list, init=False, repr=False)
    _step_free: list[int] = field(default_factory=list, init=False, repr=False)

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        order = self._order
        order.sync(view)
        keys, jobs = order.keys, order.jobs
        free = view.free_cores
        i = bisect_left(keys, (-free,))  # the first job no larger than the free cores
        while free and i < len(keys):
            job = jobs[keys[i][2]][1]
            if view.fits(job):
                order.remove(job.id)
                yield Start(job)
                free = view.free_cores
                i = max(i, bisect_left(keys, (-free,)))
            else:
                i += 1
        order.pass_over()

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Each job's completion in LSF's own list schedule: a new job enters the scan order
        after every queued job of its size, a queued job keeps its place."""
        if view.version != self._version:
            self._replan(view)
        now, walltime = view.now, view.walltime
        answers = []
        for job in jobs:
            if not self._waiting:  # nothing waits: the job starts when enough cores are back
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
        self._order.sync(view)
        jobs = self._order.jobs
        keys = self._order.keys
        self._waiting = [(-negated, walltime(jobs[i][1])) for negated, _, i in keys]
        self._ids = [i for _, _, i in keys]
        self._negated = [negated for negated, _, _ in keys]
        times, free = [view.now], [view.free_cores]
        for end, _, cores in view.running_ends:
            if end <= times[-1]:
                free[-1] += cores
            else:
                times.append(end)
                free.append(free[-1] + cores)
        self._step_times, self._step_free = times, free

    def _simulate(self, job: Job, view: ClusterView) -> float:
        waiting = self._waiting
        if job.id in self._order.jobs:  # queued here: where it stands
            target = self._ids.index(job.id)
        else:  # a newcomer: after every queued job at least its size
            target = bisect_right(self._negated, -job.cores)
            waiting = [*waiting[:target], (job.cores, view.walltime(job)), *waiting[target:]]
        ends = [(end, cores) for end, _, cores in view.running_ends]
        return list_schedule_start(view.now, view.free_cores, ends, waiting, target)
