"""Eligibility and job control: why a waiting job may not be queued yet, and the Slurm
operations that change a job after submission (scancel, scontrol hold/release/requeue/update).

A mixin of :class:`~emulator.engine.engine.Engine`, kept apart so each module stays about one
thing; it works on the engine's state, declared below for the type checker.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from emulator.engine.eligibility import dependency_problem, partition_problem
from emulator.engine.nodes import ClusterState
from emulator.kernel import EventKind, Kernel
from emulator.model.job import Job, JobState, Reason, Request


class JobStateError(ValueError):
    """A job-control request the job's state does not allow; the message is Slurm's."""


class JobControl:
    """Holds, dependencies, array caps and partition limits; scancel and scontrol's verbs."""

    jobs: dict[int, Job]
    kernel: Kernel
    clusters: list[ClusterState]
    _deferred: dict[int, Job]
    _holds: dict[int, Reason]
    _dependents: dict[int, list[int]]
    _array_active: dict[int, int]
    _counted: set[int]
    _runtime: dict[int, float]

    if TYPE_CHECKING:

        def _enqueue(self, job: Job, readmitted: bool = False) -> None: ...
        def _allowed_clusters(self, job: Job) -> list[int]: ...
        def _unqueue(self, job: Job, started: bool) -> None: ...
        def _release(self, job: Job) -> None: ...
        def _finish(self, job: Job, state: JobState, explanation: str = "") -> None: ...
        def _request_pass(self) -> None: ...
        def _queued_in(self, job: Job) -> bool: ...
        def _grid_may_run(self, job: Job) -> bool: ...
        def _fits_a_partition(self, job: Job) -> bool: ...

    def _admit(self, job: Job, readmitted: bool = False) -> None:
        """Queue the job if nothing holds it back, else keep it aside with the reason."""
        reason = self._blocking(job)
        if reason is None:
            self._enqueue(job, readmitted)
        else:
            job.reason = reason
            self._deferred[job.id] = job

    def _blocking(self, job: Job) -> Reason | None:
        """The first reason, in Slurm's order, why the job may not be queued now."""
        hold = self._holds.get(job.id)
        if hold is not None:
            return hold
        request = job.request
        if request.begin > self.kernel.now:
            return Reason.BEGIN_TIME
        if request.dependencies is not None:
            reason, wake = dependency_problem(job, self.jobs, self.kernel.now)
            if reason is not None:
                if not math.isnan(wake):
                    self.kernel.at(wake, EventKind.TIMER, job)
                return reason
        if not self._fits_a_partition(job) and not self._grid_may_run(job):
            states = self.clusters
            names = request.clusters
            problems = [
                partition_problem(request, state.cluster)
                for state in states
                if not names or state.cluster.name in names
            ]
            return next((p for p in problems if p is not None), Reason.PARTITION_CONFIG)
        array = request.array
        if (
            array is not None
            and array.max_running
            and self._array_active.get(array.array_id, 0) >= array.max_running
        ):
            return Reason.ARRAY_TASK_LIMIT
        return None

    def _reconsider(self, job: Job) -> None:
        """Look again at a job kept aside: something it waited for may have happened."""
        if self._deferred.get(job.id) is not job:
            return
        reason = self._blocking(job)
        if reason is None:
            del self._deferred[job.id]
            self._enqueue(job, readmitted=True)
        else:
            job.reason = reason

    def _left(self, job: Job) -> None:
        """A job left the queues or the nodes for good, or for a while: wake who waits on it."""
        if job.id in self._counted:
            self._counted.discard(job.id)
            array = job.request.array
            assert array is not None
            self._array_active[array.array_id] -= 1
            for other in list(self._deferred.values()):
                sibling = other.request.array
                if sibling is not None and sibling.array_id == array.array_id:
                    self._reconsider(other)
        for waiting_id in self._dependents.get(job.id, ()):
            waiting = self.jobs.get(waiting_id)
            if waiting is not None:
                self._reconsider(waiting)
        if self._deferred:
            for other in list(self._deferred.values()):  # singletons waiting on this name
                if other.reason is Reason.DEPENDENCY and other.request.name == job.request.name:
                    self._reconsider(other)

    # --- job control (scancel, scontrol hold/release/requeue/update) ---------------------------
    def _job(self, job_id: int) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise JobStateError(f"Invalid job id specified: {job_id}")
        return job

    def _take_out(self, job: Job) -> None:
        """Remove a pending job from wherever it waits (queue, aside, or not yet arrived)."""
        if self._deferred.pop(job.id, None) is None and self._queued_in(job):
            self._unqueue(job, started=False)
        job.planned_start = math.nan
        job.planned_nodes = ()

    def cancel(self, job_id: int) -> Job:
        """``scancel``: end a pending or running job now, CANCELLED."""
        job = self._job(job_id)
        if job.state.finished:
            raise JobStateError("Job/step already completing or completed")
        if job.state is JobState.RUNNING:
            self._release(job)
        else:
            self._take_out(job)
        self._finish(job, JobState.CANCELLED)
        self._left(job)
        self._request_pass()
        return job

    def hold(self, job_id: int, reason: Reason = Reason.HELD_USER) -> Job:
        """``scontrol hold``: keep a pending job from starting until released."""
        job = self._job(job_id)
        if job.state is not JobState.PENDING:
            raise JobStateError("Job is no longer pending execution")
        self._holds[job.id] = reason
        if job.id not in self._deferred:
            self._take_out(job)
            self._left(job)
            self._deferred[job.id] = job
        job.reason = reason
        self._request_pass()
        return job

    def release(self, job_id: int) -> Job:
        """``scontrol release``: undo a hold."""
        job = self._job(job_id)
        if self._holds.pop(job_id, None) is None:
            raise JobStateError("Job is not held")
        self._reconsider(job)
        return job

    def requeue(self, job_id: int) -> Job:
        """``scontrol requeue``: stop a running (or finished) job and queue it again, same id."""
        job = self._job(job_id)
        if job.state is JobState.PENDING:
            raise JobStateError("Job is pending execution")
        if job.id not in self._runtime:
            raise JobStateError("Job is no longer known in detail: it cannot be requeued")
        if job.state is JobState.RUNNING:
            self._release(job)
            self._left(job)
        job.state = JobState.PENDING
        job.start = job.end = math.nan
        job.expected_end = math.inf
        job.nodes = job.node_cores = ()
        job.exit_code = 0
        job.slowdown_max = job.slowdown_mean = 1.0
        self._admit(job, readmitted=True)
        self._request_pass()
        return job

    def update(self, job_id: int, request: Request) -> Job:
        """``scontrol update``: change a pending job's request (it keeps its place by submit)."""
        job = self._job(job_id)
        if job.state is not JobState.PENDING:
            raise JobStateError("Job is no longer pending execution")
        self._take_out(job)
        self._left(job)
        job.request = request
        job.cores, job.time_limit = request.cores, request.time_limit
        self._admit(job, readmitted=True)
        self._request_pass()
        return job
