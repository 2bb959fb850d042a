"""A pending job's priority changed (``scontrol update JobId=N Priority=P``, ``sbatch
--priority``, a release under priority/basic): the queue is in priority order
(:func:`emulator.engine.queues.submission_order`), so a queued job takes its new place; a job
held, waiting aside or not yet arrived takes it when it is queued."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from emulator.engine.errors import JobStateError
from emulator.model.job import Job, JobState

if TYPE_CHECKING:
    from emulator.engine.engine import Engine


def set_priority(engine: Engine, job_id: int, priority: int) -> Job:
    """Give pending job ``job_id`` Slurm priority ``priority`` (higher runs first)."""
    job = engine.known_job(job_id)
    if job.state is not JobState.PENDING:
        raise JobStateError("Job is no longer pending execution")
    if job.request.priority == priority:
        return job
    if engine.queues.queued_in(job):
        return engine.update(job_id, replace(job.request, priority=priority))  # re-queued
    job.request = replace(job.request, priority=priority)
    return job
