"""First come, first served: the queue head starts as soon as it fits, and nothing overtakes it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from emulator.api import ClusterView, Decision, Estimate, Explain, LocalPolicy, Start
from emulator.api.policy import running_profile
from emulator.api.profile import Profile
from emulator.model.job import Job, Reason

RESOURCES = Reason.RESOURCES  # bound once: enum attribute reads are slow on Python 3.11


@dataclass(slots=True)
class _Plan:
    """The cluster's queue planned behind its running jobs, at one :attr:`ClusterView.version`."""

    version: int
    profile: Profile  # free cores over time once every queued job has its planned start
    planned: dict[int, tuple[Job, float]]  # job id -> (the job, its planned start)
    size: int  # queued jobs
    bound: float  # the last one's planned start: no job queued behind starts earlier
    first: float = math.inf  # the first one's planned start, the earliest of them


@dataclass
class Fcfs(LocalPolicy):
    """First come, first served: start the queue head while it fits; never skip it."""

    name = "fcfs"
    # the last plan: estimates asked again before the cluster changed reuse it, and a job just
    # queued at the back only extends it (a cluster chosen at each arrival asks at every one)
    _kept: _Plan | None = field(default=None, init=False, repr=False)

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        while (job := view.head) is not None:
            if not view.fits(job):
                if job.reason is not RESOURCES:
                    yield Explain(job, RESOURCES, "FCFS: head of the queue, waits for cores")
                return
            yield Start(job)

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Behind every job ahead of it: in FCFS no job starts before one queued ahead of it. A
        job already waiting is answered where it stands; a new one behind the whole queue."""
        plan = self._plan(view)
        walltime = view.walltime
        earliest = max(plan.bound, view.now)
        answers = []
        for job in jobs:
            mine = plan.planned.get(job.id)
            if mine is not None and mine[0] is job:
                start = mine[1]
            else:
                start = plan.profile.earliest(job.cores, walltime(job), earliest)
            answers.append(Estimate(start, start + walltime(job)))
        return answers

    def _plan(self, view: ClusterView) -> _Plan:
        """The plan at the view's version: the one kept, extended by a job queued at the back
        since (the version moved by one, the queue grew by one, its last job is new), or a
        new one. Between versions nothing ends, starts or leaves, so the kept profile still
        holds from now on, unless a planned start has passed (a head the profile said fits
        but whose nodes did not): then it is planned again from now."""
        kept, queue = self._kept, view.queue
        if kept is not None and kept.first >= view.now:
            if kept.version == view.version:
                return kept
            if (
                kept.version + 1 == view.version
                and len(queue) == kept.size + 1
                and queue[-1].id not in kept.planned
            ):
                self._place(kept, queue[-1], view)
                kept.version, kept.size = view.version, kept.size + 1
                return kept
        plan = _Plan(view.version, running_profile(view), {}, len(queue), view.now)
        for waiting in queue:
            self._place(plan, waiting, view)
        self._kept = plan
        return plan

    @staticmethod
    def _place(plan: _Plan, job: Job, view: ClusterView) -> None:
        """Plan ``job`` behind the planned queue (once one never fits, none behind it does)."""
        if plan.bound == math.inf:
            return
        walltime = view.walltime(job)
        start = plan.profile.earliest(job.cores, walltime, max(plan.bound, view.now))
        plan.bound = start
        if start == math.inf:  # it never fits (nodes out of service): nor does any behind
            return
        plan.profile.reserve(start, walltime, job.cores)
        plan.planned[job.id] = (job, start)
        plan.first = min(plan.first, start)
