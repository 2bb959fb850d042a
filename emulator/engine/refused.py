"""A job slurmctld recorded and then refused at submission.

When slurmctld's select plugin finds that no node configuration could ever run a job it has
just recorded (more CPUs than ``-N`` nodes hold, memory, features or GPUs no node has), its
``job_allocate`` keeps the record FAILED, reason ``BadConstraints``, exit code 1, started and
ended at its submission, and sbatch says "Requested node configuration is not available". Real
Slurm 22.05.8 showed such records in ``squeue -t all`` and sacct, ``ExitCode 1:0`` (the
differential captures ``nodes-exclusive``, job 7, and ``operator``; the samples' jobs 22, 26).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.engine.errors import SubmitError
from emulator.model.job import Job, JobState, Reason, Request

if TYPE_CHECKING:
    from emulator.engine.engine import Engine


def record_refused(engine: Engine, request: Request, job_id: int) -> Job:
    """Keep ``request`` as job ``job_id``, FAILED at once; it never reaches a queue."""
    if job_id in engine.jobs:
        raise SubmitError(f"job id {job_id} is already in use")
    engine._next_id = max(engine._next_id, job_id + 1)
    now = engine.kernel.now
    job = Job(job_id, now, request)
    job.start = job.end = now
    job.state = JobState.FAILED
    job.reason = Reason.BAD_CONSTRAINTS
    job.exit_code = 1
    job.explanation = "refused at submission: no node configuration can run it"
    engine.jobs[job_id] = job
    engine._runtime[job_id] = 0.0
    for notify in engine._subscribers.ended:
        notify(job)
    return job
