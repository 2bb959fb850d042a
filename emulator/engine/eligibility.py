"""When a waiting job may be queued: dependencies and partition limits (Slurm semantics).

Slurm keeps a job that can never run under its partition's limits pending with a reason
(``PartitionTimeLimit``, ``PartitionConfig``: the default ``EnforcePartLimits=NO``) rather than
refusing it, and a job whose dependency can no longer be satisfied pending with
``DependencyNeverSatisfied``; the emulator does the same.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from emulator.model.job import Dependency, DependencyKind, Job, JobState, Reason, Request
from emulator.model.platform import Cluster

_FAILED = frozenset(
    {JobState.FAILED, JobState.TIMEOUT, JobState.CANCELLED, JobState.NODE_FAIL, JobState.DEADLINE}
)


def partition_problem(request: Request, cluster: Cluster) -> Reason | None:
    """Why the request can never run in its partition of ``cluster`` (None: it can)."""
    partition = cluster.partition(request.partition) if request.partition else None
    if request.partition and partition is None:
        return Reason.PARTITION_CONFIG
    partition = partition or cluster.default_partition
    if request.time_limit > partition.max_time:
        return Reason.PARTITION_TIME_LIMIT
    cores, nodes, largest = cluster.partition_sizes[partition.name]
    if request.cores > cores or request.min_nodes > nodes or request.cpus_per_task > largest:
        return Reason.PARTITION_CONFIG
    return None


def term_status(
    term: Dependency, job: Job, jobs: Mapping[int, Job], now: float
) -> tuple[bool, bool, float]:
    """``(satisfied, never, wake)`` of one term; ``wake``: when to look again (nan: on change)."""
    if term.kind is DependencyKind.SINGLETON:
        alone = not any(
            other.id < job.id
            and not other.state.finished
            and other.request.name == job.request.name
            and other.request.user == job.request.user
            for other in jobs.values()
        )
        return alone, False, math.nan
    other = jobs.get(term.job_id)
    if other is None:  # unknown or forgotten: Slurm drops such a dependency
        return True, False, math.nan
    kind, state = term.kind, other.state
    if kind is DependencyKind.AFTER:
        if state is JobState.PENDING:
            return False, False, math.nan
        begun = other.start if not math.isnan(other.start) else other.end
        ready = begun + term.delay
        return now >= ready, False, ready if now < ready else math.nan
    if not state.finished:
        return False, False, math.nan
    if kind is DependencyKind.AFTER_ANY:
        return True, False, math.nan
    ok = state is JobState.COMPLETED and other.exit_code == 0
    if kind in (DependencyKind.AFTER_OK, DependencyKind.AFTER_CORR):
        return ok, not ok, math.nan
    failed = state in _FAILED or other.exit_code != 0
    return failed, not failed, math.nan  # AFTER_NOT_OK


def dependency_problem(
    job: Job, jobs: Mapping[int, Job], now: float
) -> tuple[Reason | None, float]:
    """``(reason, wake)``: None when the job's dependencies hold; else Dependency (with the time
    to look again, or nan) or DependencyNeverSatisfied."""
    dependencies = job.request.dependencies
    if dependencies is None or not dependencies.terms:
        return None, math.nan
    results = [term_status(term, job, jobs, now) for term in dependencies.terms]
    wakes = [wake for _, _, wake in results if not math.isnan(wake)]
    wake = min(wakes) if wakes else math.nan
    if dependencies.any_of:
        if any(ok for ok, _, _ in results):
            return None, math.nan
        if all(never for _, never, _ in results):
            return Reason.DEPENDENCY_NEVER, math.nan
        return Reason.DEPENDENCY, wake
    if any(never for _, never, _ in results):
        return Reason.DEPENDENCY_NEVER, math.nan
    if all(ok for ok, _, _ in results):
        return None, math.nan
    return Reason.DEPENDENCY, wake
