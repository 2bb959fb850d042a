"""Conservative backfilling (Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2; models.md §4.1).

Every waiting job holds a reservation: on arrival it takes the earliest hole in the availability
profile (running jobs' expected ends plus the reservations of the jobs ahead of it) that is long
enough for its time limit. A job may therefore start ahead of earlier jobs, but never delays one.

When capacity comes back early (a job ends before its limit, or a waiting job leaves the queue),
the schedule is *compressed*: in queue order, each job gives up its reservation and takes the
earliest hole of the profile in which every other job keeps its own. Its old slot is still free,
so no job ever starts later than it was promised. Choice left open by the paper: compression goes
in queue (arrival) order, once per pass.

The profile is kept incrementally: a started job's reservation simply becomes its occupation.
When a grid policy starts jobs on the cluster's nodes, or nodes are drained, set down or resumed,
the plan is rebuilt from scratch: promises then hold only against the local queue, since the
grid's starts and the operator's changes were nobody's reservation.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from emulator.api import (
    ClusterView,
    Decision,
    Explain,
    LocalPolicy,
    Profile,
    Reserve,
    Start,
    Wake,
)
from emulator.api.policy import running_profile
from emulator.api.view import Estimate
from emulator.model.job import Job, Reason


@dataclass
class Conservative(LocalPolicy):
    """Conservative backfilling: every waiting job holds a reservation it can only move forward."""

    name = "cbf"
    _profile: Profile | None = field(default=None, init=False, repr=False)
    _planned: dict[int, tuple[float, float]] = field(default_factory=dict, init=False, repr=False)
    _due: list[tuple[float, int, Job]] = field(default_factory=list, init=False, repr=False)
    _order: int = field(default=0, init=False, repr=False)
    _wake: float = field(default=math.nan, init=False, repr=False)
    _mine: set[int] = field(default_factory=set, init=False, repr=False)  # jobs it started
    _version: int = field(default=-1, init=False, repr=False)  # the cluster's, at the plan

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        now = view.now
        profile = self._profile
        arrivals: Sequence[Job]
        compress = False
        mine = self._mine
        # A grid policy that starts jobs on these nodes, or nodes going out of or back into
        # service, invalidate the plan: start over.
        interfered = (
            view.nodes_changed
            or bool(view.started_elsewhere)
            or any(j.id not in mine for j in view.ended)
        )
        for job in view.ended:
            mine.discard(job.id)
        if profile is None or interfered:
            profile = self._profile = running_profile(view)
            self._planned.clear()
            self._due.clear()
            arrivals = view.queue
        else:
            profile.advance(now)
            for job in view.ended:
                if job.end < job.expected_end:  # give back what it will not use
                    profile.reserve(now, job.expected_end - now, -job.cores)
                    compress = True
            for job in view.departed:
                slot = self._planned.pop(job.id, None)
                if slot is not None and slot[0] != math.inf:
                    profile.reserve(slot[0], slot[1], -job.cores)
                    compress = True
            arrivals = view.arrived
        if compress:
            yield from self._compress(view, profile)
        for job in arrivals:
            yield from self._plan(view, job, profile)
        yield from self._start_due(view)
        if self._profile is None:  # a node range took more than MIN: plan afresh, now
            yield from self.schedule(view)
            return
        self._version = view.version  # after its own starts: the plan is the cluster's now

    def _compress(self, view: ClusterView, profile: Profile) -> Iterator[Decision]:
        """Move each waiting job, in queue order, to the earliest hole before its reservation."""
        planned, now = self._planned, view.now
        for job in view.queue:
            slot = planned.get(job.id)
            if slot is None:
                continue  # just arrived: planned after the compression
            start, walltime = slot
            if start <= now:
                continue  # due now: it cannot move earlier
            earlier = profile.earliest(job.cores, walltime, now, before=start)
            if earlier == math.inf:
                continue  # no earlier hole: it keeps its reservation
            if start != math.inf:
                profile.reserve(start, walltime, -job.cores)
            profile.reserve(earlier, walltime, job.cores)
            yield from self._book(job, earlier, walltime)

    def _plan(self, view: ClusterView, job: Job, profile: Profile) -> Iterator[Decision]:
        walltime = view.walltime(job)
        yield from self._book(job, profile.place(job.cores, walltime, view.now), walltime)

    def _book(self, job: Job, start: float, walltime: float) -> Iterator[Decision]:
        self._planned[job.id] = (start, walltime)
        self._order += 1
        heapq.heappush(self._due, (start, self._order, job))
        if job.planned_start != start:
            yield Reserve(job, start)

    def _start_due(self, view: ClusterView) -> Iterator[Decision]:
        """Start the jobs whose reservation has come, then ask to be woken for the next one."""
        due, planned, now = self._due, self._planned, view.now
        while due:
            start, _, job = due[0]
            slot = planned.get(job.id)
            if slot is None or slot[0] != start:
                heapq.heappop(due)  # superseded by a compression, or already started
                continue
            if start > now:
                if start != self._wake:
                    self._wake = start
                    yield Wake(start)  # the job it waits for may have ended early: no event then
                return
            if not view.fits(job):  # node fragmentation the core-count profile cannot see
                yield Explain(job, Reason.RESOURCES, "CBF: reservation due, nodes fragmented")
                return
            heapq.heappop(due)
            del planned[job.id]
            self._mine.add(job.id)
            planned_cores = job.cores
            yield Start(job)
            if job.cores != planned_cores:
                # a node range (-N MIN-MAX) planned with MIN took more nodes, free at start:
                # the profile no longer holds: the pass plans afresh (schedule)
                self._profile = None
                return

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Each job's reservation: a waiting job's own, a new job's earliest hole in the plan
        (exact for CBF: later arrivals cannot delay it).

        The plan is the one the last pass left while the cluster's version stands. Jobs queued
        since (a grid policy's routes in its current pass) are placed on a copy in queue order,
        as the next pass will place them; anything else since (an end, a departure, nodes) and
        the plan is made afresh, in queue order.
        """
        walltime, now = view.walltime, view.now
        profile = self._profile
        planned: dict[int, float] = {}
        if profile is not None and view.version == self._version:
            planned = {job_id: slot[0] for job_id, slot in self._planned.items()}
        elif profile is not None and not (
            view.ended or view.departed or view.started_elsewhere or view.nodes_changed
        ):
            planned = {job_id: slot[0] for job_id, slot in self._planned.items()}
            profile = profile.copy()
            for job in view.arrived:
                planned[job.id] = profile.place(job.cores, walltime(job), now)
        else:
            profile = running_profile(view)
            for job in view.queue:
                planned[job.id] = profile.place(job.cores, walltime(job), now)
        answers = []
        for job in jobs:
            start = planned.get(job.id) if job.cluster == view.cluster.index else None
            if start is None:
                start = profile.earliest(job.cores, walltime(job), now)
            answers.append(Estimate(start, start + walltime(job)))
        return answers
