"""First come, first served: the queue head starts as soon as it fits, and nothing overtakes it."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from emulator.api import ClusterView, Decision, Estimate, Explain, LocalPolicy, Start
from emulator.api.policy import running_profile
from emulator.api.profile import Profile
from emulator.model.job import Job, Reason

RESOURCES = Reason.RESOURCES  # bound once: enum attribute reads are slow on Python 3.11


@dataclass
class Fcfs(LocalPolicy):
    """First come, first served: start the queue head while it fits; never skip it."""

    name = "fcfs"
    _plan: QueuePlan | None = field(default=None, init=False, repr=False)

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        if self._plan is not None:  # the pass empties the arrivals list the plan follows; a
            self._plan.read = 0  # start in it moves the version, and the plan is made afresh
        while (job := view.head) is not None:
            if not view.fits(job):
                if job.reason is not RESOURCES:
                    yield Explain(job, RESOURCES, "FCFS: head of the queue, waits for cores")
                return
            yield Start(job)

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Behind every job ahead of it: in FCFS no job starts before one queued ahead of it. A
        job already waiting is answered where it stands; a new one behind the whole queue.

        The plan is kept between calls while the cluster's version stands, also as time moves
        on (a cluster chosen at each arrival is asked at every one), and extended when all that
        changed is jobs queued at the end (a grid policy's routes in one pass), as a plan made
        afresh would place them; anything else and it is made afresh."""
        plan = self._plan
        if plan is None or not plan.advance(view.now) or not plan.follow(view):
            plan = self._plan = QueuePlan(view)
        walltime = view.walltime
        planned, behind = plan.planned, plan.behind
        answers = []
        for job in jobs:
            limit = walltime(job)
            mine = planned.get(job.id)
            start = mine[1] if mine is not None and mine[0] is job else behind(job.cores)
            answers.append(Estimate(start, start + limit))
        return answers


class QueuePlan:
    """The FCFS schedule of a cluster's queue: each waiting job's start, on the profile of the
    running jobs and the jobs ahead of it, made at ``version`` and ``now``; and the start of
    a job behind them all (:meth:`behind`)."""

    __slots__ = (
        "earliest",
        "first",
        "now",
        "planned",
        "profile",
        "queued",
        "read",
        "version",
    )

    def __init__(self, view: ClusterView) -> None:
        self.now = view.now
        self.version = view.version
        self.read = len(view.arrived)  # how much of the arrivals list the plan has seen
        self.profile: Profile = running_profile(view)
        self.earliest = view.now  # the start of the last job planned: no later job starts before
        self.first = math.inf  # the first planned start, the earliest of them
        self.planned: dict[int, tuple[Job, float]] = {}
        queue = view.queue
        self.queued = len(queue)
        self._place(queue, view)

    def _place(self, jobs: Sequence[Job], view: ClusterView) -> None:
        """Plan ``jobs`` in order behind the jobs planned so far (:meth:`behind`)."""
        profile, planned, walltime, behind = self.profile, self.planned, view.walltime, self.behind
        for waiting in jobs:
            start = behind(waiting.cores)
            self.earliest = start
            if start == math.inf:  # one never fits (nodes out of service): nor does any behind
                break
            profile.reserve(start, walltime(waiting), waiting.cores)
            planned[waiting.id] = (waiting, start)
            if start < self.first:
                self.first = start

    def advance(self, now: float) -> bool:
        """Carry the plan to a later ``now``. Until the version moves nothing starts, ends or
        leaves, so the profile still holds from ``now`` on; unless a planned start has passed
        (a head the profile said fits but whose nodes did not): then False, and the plan is
        made afresh."""
        if now == self.now:
            return True
        if self.first < now:
            return False
        self.now = now
        self.earliest = max(self.earliest, now)
        return True

    def behind(self, cores: int) -> float:
        """When a job of ``cores`` queued behind every planned job would start (``inf``:
        never). Each job ahead of it starts at or before the last planned start, so from there
        on reservations and running jobs only end: the free cores never fall again, and the
        first step from there with ``cores`` free holds them for any time limit. One binary
        search, the same answer as :meth:`Profile.earliest` from the last planned start."""
        earliest = self.earliest
        if earliest == math.inf:
            return math.inf
        times, free = self.profile.times, self.profile.free
        step = bisect_left(free, cores, bisect_right(times, earliest) - 1)
        if step == len(free):
            return math.inf
        start = times[step]
        return start if start > earliest else earliest

    def follow(self, view: ClusterView) -> bool:
        """Bring the plan to the view's version if only arrivals at the queue's end changed
        it (each queued job adds one to the version, anything else does too); False if not."""
        version = view.version
        if version == self.version:
            return True
        arrived = view.arrived
        new = arrived[self.read :]
        if version - self.version != len(new):
            return False
        queue = view.queue
        if len(queue) != self.queued + len(new):
            return False
        if any(queued is not job for queued, job in zip(queue[self.queued :], new, strict=True)):
            return False
        self._place(new, view)
        self.version, self.read, self.queued = version, len(arrived), len(queue)
        return True
