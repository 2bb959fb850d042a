"""A running job's time limit changed (``scontrol update JobId=N TimeLimit=T`` on a running job).

Slurm lets an operator raise a running job's limit and anyone lower their own; the job is then
killed when the new limit is reached (at once if it has already run past it) or ends when its
work is done, whichever comes first. Here the job's end event moves: its actual duration is the
same, only the limit it is held to changes. Jobs whose end the network paces or whose limit is
measured in BPUs (moldable) are refused, as their ends follow other rules.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import replace
from typing import TYPE_CHECKING

from emulator.engine.errors import JobStateError
from emulator.kernel import EventKind
from emulator.model.job import Job, JobState

if TYPE_CHECKING:
    from emulator.engine.engine import Engine


def change_running_limit(engine: Engine, job_id: int, time_limit: float) -> Job:
    """Hold running job ``job_id`` to ``time_limit`` seconds from its start."""
    job = engine.known_job(job_id)
    if job.state is not JobState.RUNNING:
        raise JobStateError("Job is no longer running")
    if job.request.moldable is not None or job.id in engine.network.flows:
        raise JobStateError("Changing this running job's limit is not emulated")
    event = engine._end_events.pop(job.id, None)
    if event is not None:
        engine.kernel.cancel(event)
    slowest = min(engine.platform.nodes[n].speed for n in job.nodes)
    duration = engine._runtime[job.id] / slowest  # rigid: runtime / slowest
    walltime = time_limit / slowest
    job.request = replace(job.request, time_limit=time_limit)
    job.time_limit = time_limit
    old_end, job.expected_end = job.expected_end, job.start + walltime
    for state in engine.clusters:
        ends = state.running_ends
        mine = [entry for entry in ends if entry[:2] == (old_end, job.id)]
        for entry in mine:
            ends.remove(entry)
            insort(ends, (job.expected_end, job.id, entry[2]))
            state.version += 1
            state.dirty = True
    timed_out = duration > walltime
    end = max(engine.kernel.now, job.start + (walltime if timed_out else duration))
    engine._end_events[job.id] = engine.kernel.at(
        end, EventKind.JOB_END, (job, timed_out, job.start)
    )
    engine.queues.request_pass()
    return job
