"""Conservative backfilling (Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2; models.md §4.1).

Every waiting job holds a reservation: on arrival it takes the earliest hole in the availability
profile (running jobs' expected ends plus the reservations of the jobs ahead of it) that is long
enough for its time limit. A job may therefore start ahead of earlier jobs, but never delays one.
When a job ends before its limit, or a waiting job leaves, the plan is rebuilt in queue order from
the running jobs alone ("compression"); since ends only move earlier, no job gets a later start
than it was promised. Choice left open by the paper: the rebuild keeps queue (arrival) order.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from emulator.api import ClusterView, Decision, Explain, LocalPolicy, Profile, Reserve, Start
from emulator.api.policy import Estimate, running_profile
from emulator.model.job import Job, Reason


@dataclass
class Conservative(LocalPolicy):
    """Conservative backfilling: every waiting job holds a reservation it can only move forward."""

    name = "cbf"
    _profile: Profile | None = field(default=None, init=False, repr=False)
    _planned: dict[int, float] = field(default_factory=dict, init=False, repr=False)
    _due: list[tuple[float, int, Job]] = field(default_factory=list, init=False, repr=False)
    _order: int = field(default=0, init=False, repr=False)

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        changed = bool(view.departed) or any(job.end < job.expected_end for job in view.ended)
        if self._profile is None or changed:
            self._profile = running_profile(view)
            self._planned.clear()
            self._due.clear()
            planning: Iterable[Job] = view.queue
        else:
            self._profile.advance(view.now)
            planning = view.arrived
        profile, planned, due, now = self._profile, self._planned, self._due, view.now
        for job in planning:
            start = profile.place(job.cores, view.walltime(job), now)
            planned[job.id] = start
            self._order += 1
            heapq.heappush(due, (start, self._order, job))
            if job.planned_start != start:
                yield Reserve(job, start)
        yield from self._start_due(view)

    def _start_due(self, view: ClusterView) -> Iterator[Decision]:
        due, planned, now = self._due, self._planned, view.now
        while due and due[0][0] <= now:
            start, _, job = heapq.heappop(due)
            if planned.get(job.id) != start:
                continue  # superseded by a rebuild
            if not view.fits(job):  # node fragmentation the core-count profile cannot see
                self._order += 1
                heapq.heappush(due, (start, self._order, job))
                yield Explain(job, Reason.RESOURCES, "CBF: reservation due, nodes fragmented")
                return
            del planned[job.id]
            yield Start(job)

    def estimate(self, job: Job, view: ClusterView) -> Estimate:
        """Earliest hole in the current plan (exact for CBF: later arrivals cannot delay it)."""
        profile = running_profile(view)
        for waiting in view.queue:
            if waiting is not job:
                walltime = view.walltime(waiting)
                start = self._planned.get(waiting.id)
                if start is None:
                    profile.place(waiting.cores, walltime, view.now)
                elif start != math.inf:
                    profile.reserve(start, walltime, waiting.cores)
        walltime = view.walltime(job)
        start = profile.earliest(job.cores, walltime, view.now)
        return Estimate(start, start + walltime)
