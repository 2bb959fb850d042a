"""Holds and dependencies: why a pending job may not be queued yet, and when to look again.

A job that is not eligible (held, before its begin time, waiting on a dependency, larger than any
partition, over its array's running cap) waits *aside*, out of every queue, with the first reason
in Slurm's order; :class:`Admission` owns those jobs and the facts that keep them there, and puts
a job in a queue (:class:`~emulator.engine.queues.Queues`) as soon as nothing holds it back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from emulator.engine.eligibility import dependency_problem
from emulator.engine.queues import Queues
from emulator.kernel import EventKind, Kernel
from emulator.model.job import Job, Reason


class Admission:
    """The jobs kept aside, their holds, who depends on whom, and array tasks in flight."""

    def __init__(self, jobs: Mapping[int, Job], kernel: Kernel, queues: Queues) -> None:
        self._jobs = jobs
        self._kernel = kernel
        self._queues = queues
        self._aside: dict[int, Job] = {}  # accepted but not eligible: see blocking
        # (public to read: the engine's arrival and start paths test them without a call)
        self.holds: dict[int, Reason] = {}
        self.dependents: dict[int, list[int]] = {}  # job id -> ids of jobs depending on it
        self._array_active: dict[int, int] = {}  # array id -> tasks queued or running
        self._counted: set[int] = set()  # job ids counted in _array_active

    def arrive(self, job: Job) -> None:
        """A job arrived: note its hold, begin time and dependencies, then admit it."""
        request = job.request
        if request.held:
            self.holds[job.id] = Reason.HELD_USER
        if request.begin > self._kernel.now:
            self._kernel.at(request.begin, EventKind.TIMER, job)
        if request.dependencies is not None:
            for term in request.dependencies.terms:
                self.dependents.setdefault(term.job_id, []).append(job.id)
        self.admit(job)

    def admit(self, job: Job, readmitted: bool = False) -> None:
        """Queue the job if nothing holds it back, else keep it aside with the reason."""
        reason = self._blocking(job)
        if reason is None:
            self._enqueue(job, readmitted)
        else:
            job.reason = reason
            self._aside[job.id] = job

    def _enqueue(self, job: Job, readmitted: bool) -> None:
        array = job.request.array
        if array is not None and array.max_running:
            self._array_active[array.array_id] = self._array_active.get(array.array_id, 0) + 1
            self._counted.add(job.id)
        self._queues.enqueue(job, readmitted)

    def _blocking(self, job: Job) -> Reason | None:
        """The first reason, in Slurm's order, why the job may not be queued now."""
        hold = self.holds.get(job.id)
        if hold is not None:
            return hold
        request = job.request
        now = self._kernel.now
        if request.begin > now:
            return Reason.BEGIN_TIME
        if request.dependencies is not None:
            reason, wake = dependency_problem(job, self._jobs, now)
            if reason is not None:
                if not math.isnan(wake):
                    self._kernel.at(wake, EventKind.TIMER, job)
                return reason
        reason = self._queues.partition_reason(job)
        if reason is not None:
            return reason
        array = request.array
        if (
            array is not None
            and array.max_running
            and self._array_active.get(array.array_id, 0) >= array.max_running
        ):
            return Reason.ARRAY_TASK_LIMIT
        return None

    def reconsider(self, job: Job) -> None:
        """Look again at a job kept aside: something it waited for may have happened."""
        if self._aside.get(job.id) is not job:
            return
        reason = self._blocking(job)
        if reason is None:
            del self._aside[job.id]
            self._enqueue(job, readmitted=True)
        else:
            job.reason = reason

    def started(self, job: Job) -> None:
        """A job started: ``after:<id>`` dependencies count from the start."""
        for waiting_id in self.dependents.get(job.id, ()):
            waiting = self._jobs.get(waiting_id)
            if waiting is not None:
                self.reconsider(waiting)

    def left(self, job: Job) -> None:
        """A job left the queues or the nodes for good, or for a while: wake who waits on it."""
        if job.id in self._counted:
            self._counted.discard(job.id)
            array = job.request.array
            assert array is not None
            self._array_active[array.array_id] -= 1
            for other in list(self._aside.values()):
                sibling = other.request.array
                if sibling is not None and sibling.array_id == array.array_id:
                    self.reconsider(other)
        for waiting_id in self.dependents.get(job.id, ()):
            waiting = self._jobs.get(waiting_id)
            if waiting is not None:
                self.reconsider(waiting)
        if self._aside:
            for other in list(self._aside.values()):  # singletons waiting on this name
                if other.reason is Reason.DEPENDENCY and other.request.name == job.request.name:
                    self.reconsider(other)

    def take_out(self, job: Job) -> None:
        """Remove a pending job from wherever it waits (queue, aside, or not yet arrived)."""
        queues = self._queues
        if self._aside.pop(job.id, None) is None and queues.queued_in(job):
            queues.unqueue(job, started=False)
        job.planned_start = math.nan
        job.planned_nodes = ()

    def hold(self, job: Job, reason: Reason) -> None:
        """Keep a pending job aside until :meth:`release`."""
        self.holds[job.id] = reason
        if job.id not in self._aside:
            self.take_out(job)
            self.left(job)
            self._aside[job.id] = job
        job.reason = reason

    def release(self, job: Job) -> bool:
        """Undo a hold; False if the job was not held."""
        if self.holds.pop(job.id, None) is None:
            return False
        self.reconsider(job)
        return True
