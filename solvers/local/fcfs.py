"""First come, first served: the queue head starts as soon as it fits, and nothing overtakes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from emulator.api import ClusterView, Decision, Estimate, Explain, LocalPolicy, Start
from emulator.api.policy import running_profile
from emulator.model.job import Job, Reason

RESOURCES = Reason.RESOURCES  # bound once: enum attribute reads are slow on Python 3.11


@dataclass
class Fcfs(LocalPolicy):
    """First come, first served: start the queue head while it fits; never skip it."""

    name = "fcfs"

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        while (job := view.head) is not None:
            if not view.fits(job):
                if job.reason is not RESOURCES:
                    yield Explain(job, RESOURCES, "FCFS: head of the queue, waits for cores")
                return
            yield Start(job)

    def estimate(self, job: Job, view: ClusterView) -> Estimate:
        """Behind every waiting job: in FCFS no job starts before one queued ahead of it."""
        profile = running_profile(view)
        earliest = view.now
        for waiting in view.queue:
            if waiting is job:
                continue
            walltime = view.walltime(waiting)
            earliest = profile.earliest(waiting.cores, walltime, earliest)
            profile.reserve(earliest, walltime, waiting.cores)
        walltime = view.walltime(job)
        start = profile.earliest(job.cores, walltime, earliest)
        return Estimate(start, start + walltime)
