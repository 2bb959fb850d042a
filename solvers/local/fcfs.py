"""First come, first served: the queue head starts as soon as it fits, and nothing overtakes it."""

from __future__ import annotations

import math
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
        profile, planned, earliest, behind = plan.profile, plan.planned, plan.earliest, plan.behind
        answers = []
        for job in jobs:
            limit = walltime(job)
            mine = planned.get(job.id)
            if mine is not None and mine[0] is job:
                start = mine[1]
            else:
                shape = (job.cores, limit)
                start = behind.get(shape, -1.0)
                if start < 0:
                    start = behind[shape] = profile.earliest(job.cores, limit, earliest)
            answers.append(Estimate(start, start + limit))
        return answers


class QueuePlan:
    """The FCFS schedule of a cluster's queue: each waiting job's start, on the profile of the
    running jobs and the jobs ahead of it, made at ``version`` and ``now``; and the start of
    a job behind them all, by its cores and time limit (asked for many jobs alike)."""

    __slots__ = (
        "behind",
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
        self.behind: dict[tuple[int, float], float] = {}
        queue = view.queue
        self.queued = len(queue)
        self._place(queue, view)

    def _place(self, jobs: Sequence[Job], view: ClusterView) -> None:
        profile, planned, walltime = self.profile, self.planned, view.walltime
        earliest = self.earliest
        for waiting in jobs:
            if earliest == math.inf:  # one never fits (nodes out of service): nor does any behind
                break
            limit = walltime(waiting)
            earliest = profile.earliest(waiting.cores, limit, earliest)
            if earliest == math.inf:
                break
            profile.reserve(earliest, limit, waiting.cores)
            planned[waiting.id] = (waiting, earliest)
            if earliest < self.first:
                self.first = earliest
        self.earliest = earliest

    def advance(self, now: float) -> bool:
        """Carry the plan to a later ``now``. Until the version moves nothing starts, ends or
        leaves, so the profile still holds from ``now`` on, and so does a start behind the
        queue found at or after ``now``; unless a planned start has passed (a head the profile
        said fits but whose nodes did not): then False, and the plan is made afresh."""
        if now == self.now:
            return True
        if self.first < now:
            return False
        self.now = now
        self.earliest = max(self.earliest, now)
        self.behind = {shape: start for shape, start in self.behind.items() if start >= now}
        return True

    def _keep_behind(self, new: Sequence[Job], view: ClusterView) -> None:
        """Keep the answers for a job behind the queue that start after every new job's
        reservation ends: the new jobs took cores only before that, and the job could not
        start earlier with more cores free, so it cannot now with fewer (nor start before the
        last of them, which it did not)."""
        planned, walltime = self.planned, view.walltime
        ends = [planned[job.id][1] + walltime(job) for job in new if job.id in planned]
        if len(ends) < len(new):  # a new job never fits: nothing behind it does
            self.behind.clear()
            return
        last = max(ends)
        self.behind = {shape: start for shape, start in self.behind.items() if start >= last}

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
        self._keep_behind(new, view)
        self.version, self.read, self.queued = version, len(arrived), len(queue)
        return True
