"""First come, first served: the queue head starts as soon as it fits, and nothing overtakes it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """Behind every job ahead of it: in FCFS no job starts before one queued ahead of it. A
        job already waiting is answered where it stands; a new one behind the whole queue."""
        profile = running_profile(view)
        walltime = view.walltime
        earliest = view.now
        planned: dict[int, tuple[Job, float]] = {}
        for waiting in view.queue:
            earliest = profile.earliest(waiting.cores, walltime(waiting), earliest)
            profile.reserve(earliest, walltime(waiting), waiting.cores)
            planned[waiting.id] = (waiting, earliest)
        answers = []
        for job in jobs:
            mine = planned.get(job.id)
            if mine is not None and mine[0] is job:
                start = mine[1]
            else:
                start = profile.earliest(job.cores, walltime(job), earliest)
            answers.append(Estimate(start, start + walltime(job)))
        return answers
