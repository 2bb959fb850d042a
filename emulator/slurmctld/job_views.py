"""How the controller shows a job: the Slurm view of an engine job, its reason and priority.

The engine knows jobs by its own ids and global node numbers; squeue, scontrol and sacct show
Slurm ids, cluster-local nodes and what slurmctld decided before the first scheduling pass. This
translation is its own concern, so it lives here as a part of :class:`Controller
<emulator.slurmctld.controller.Controller>`'s ``views`` rather than in the facade itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from emulator.engine.eligibility import partition_problem, term_status
from emulator.model.job import Dependencies, Dependency, Job, JobState, Reason, Request
from emulator.model.platform import Cluster, Platform
from emulator.slurm.formats import JobInfo
from emulator.slurmctld.accounting import JobRow
from emulator.slurmctld.records import JobRecord

if TYPE_CHECKING:
    from emulator.engine import Engine

__all__ = ["JobViews"]

# Enum members read for every job of a long queue, bound once: on Python 3.11 ``JobState.PENDING``
# goes through EnumType.__getattr__'s slot, several times the cost of a global read (as in
# emulator/engine/engine.py).
PENDING, RUNNING = JobState.PENDING, JobState.RUNNING
NO_REASON, PRIORITY, RESOURCES = Reason.NONE, Reason.PRIORITY, Reason.RESOURCES
HELD_USER, HELD_ADMIN = Reason.HELD_USER, Reason.HELD_ADMIN


class JobViews:
    """The Slurm view of the controller's jobs (``Controller.views``): read-only over the
    engine, so squeue, scontrol, sacct and the session's rows all show a job the same way."""

    __slots__ = ("alloc_node", "engine", "platform", "targets_of")

    def __init__(
        self,
        engine: Engine,
        platform: Platform,
        alloc_node: str,
        targets_of: Callable[[Dependency], list[int]],
    ) -> None:
        self.engine = engine
        self.platform = platform
        self.alloc_node = alloc_node
        self.targets_of = targets_of  # engine ids a term names (Controller.dependency_targets)

    def cluster_of(self, record: JobRecord) -> int:
        job = self.engine.jobs[record.engine_id]
        return job.cluster if job.cluster >= 0 else record.cluster

    def view(self, record: JobRecord) -> tuple[Job, JobInfo]:
        """The job as Slurm shows it (Slurm id, cluster-local nodes) and its :class:`JobInfo`.

        Where that is the engine's job as it is (the common case on the first cluster), the
        engine's own :class:`Job` comes back, not a copy: callers must not change it. squeue
        builds 100,000 of these per call, so the common case does as little as it can.
        """
        job = self.engine.jobs[record.engine_id]
        nodes, node_cores = job.nodes, job.node_cores
        if nodes:  # the cluster's part, numbered from 0
            cluster = self.platform.clusters[job.cluster if job.cluster >= 0 else record.cluster]
            first = cluster.nodes[0].id
            count = len(cluster.nodes)
            if first or max(nodes) >= count:
                pairs = [
                    (n - first, c)
                    for n, c in zip(nodes, node_cores, strict=False)
                    if 0 <= n - first < count
                ]
                nodes = tuple(n for n, _ in pairs)
                node_cores = tuple(c for _, c in pairs)
        reason = self.shown_reason(record, job)
        request = job.request
        shown_dependency = self._open_terms(record, job)
        if request.dependencies != shown_dependency:  # engine ids -> the ids the user gave
            request = replace(request, dependencies=shown_dependency)
        view = job
        if (
            record.slurm_id != job.id
            or job.cluster != 0
            or nodes is not job.nodes
            or reason is not job.reason
            or request is not job.request
        ):
            view = Job(
                record.slurm_id,
                job.submit,
                request,
                state=job.state,
                reason=reason,
                cluster=0,
                start=job.start,
                end=job.end,
                expected_end=job.expected_end,
                nodes=nodes,
                node_cores=node_cores,
                planned_start=job.planned_start,
                explanation=job.explanation,
                exit_code=job.exit_code,
            )
        return view, self._info(record, job, reason)

    def _open_terms(self, record: JobRecord, job: Job) -> Dependencies | None:
        """The dependency as Slurm shows it on a waiting job: the ids the user gave, without
        the terms of a ``,`` list already fulfilled (``afterok:1:2`` once 1 completed shows
        ``afterok:2``)."""
        given = record.dependency
        if (
            given is None
            or given.any_of
            or len(given.terms) < 2
            or job.reason not in (Reason.DEPENDENCY, Reason.DEPENDENCY_NEVER)
        ):
            return given
        kept = tuple(term for term in given.terms if not self._fulfilled(term, job))
        return Dependencies(kept, False) if kept else given

    def _fulfilled(self, term: Dependency, job: Job) -> bool:
        jobs, now = self.engine.jobs, self.engine.kernel.now
        targets = (
            [term]
            if not term.job_id
            else [replace(term, job_id=eid, task_id=None) for eid in self.targets_of(term)]
        )
        return all(term_status(target, job, jobs, now)[0] for target in targets)

    def unscheduled(self, record: JobRecord, job: Job) -> bool:
        """Whether the pending ``job`` waits for the pass that follows its submission or release
        (its reason changes when time moves, with no event of its own)."""
        now = self.engine.kernel.now
        return job.state is PENDING and (
            job.cluster < 0 or record.released_at == now or record.updated_at == now
        )

    def shown_reason(self, record: JobRecord, job: Job) -> Reason:
        """The reason squeue shows: the engine's, except for a job no pass has looked at yet,
        which shows ``None`` or what slurmctld decided at submission (a hold, a limit)."""
        reason = job.reason
        if reason is RESOURCES and record.updated_at == self.engine.kernel.now:
            return NO_REASON  # an update clears the reason, whatever it was (22.05)
        if (reason is PRIORITY or reason is NO_REASON) and self.unscheduled(record, job):
            reason = NO_REASON
            if math.isnan(record.released_at):
                cluster = self.platform.clusters[record.cluster if job.cluster < 0 else job.cluster]
                reason = self._submit_reason(job.request, cluster)
        return reason

    @staticmethod
    def shown_priority(record: JobRecord, reason: Reason) -> int:
        """The priority squeue shows: 0 while held."""
        return 0 if reason is HELD_USER or reason is HELD_ADMIN else record.priority

    def _info(self, record: JobRecord, job: Job, reason: Reason) -> JobInfo:
        """The record's :class:`JobInfo`, kept on the record while what it shows is unchanged."""
        if job.state is PENDING:
            scheduler = "Main" if math.isnan(job.planned_start) else "Backfill"
        else:
            scheduler = "Backfill" if "backfill" in job.explanation.lower() else "Main"
        priority = self.shown_priority(record, reason)
        eligible: float | None = None  # derived from the job, except after a release:
        if not math.isnan(record.released_at):  # the release time once a pass has seen it,
            unseen = record.released_at == self.engine.kernel.now and job.state is PENDING
            eligible = math.inf if unseen else record.released_at  # Unknown until then
        info = record.info
        if (
            info is None
            or info.priority != priority
            or info.eligible != eligible
            or info.scheduler != scheduler
            or info.exit_signal != record.exit_signal
            or info.cancelled_by != record.cancelled_by
        ):
            info = record.info = JobInfo(
                priority=priority,
                uid=record.uid,
                gid=record.gid,
                group=record.group,
                alloc_node=self.alloc_node,
                sid=record.sid,
                work_dir=record.work_dir,
                command=record.command,
                stdout=record.stdout,
                stderr=record.stderr,
                exit_signal=record.exit_signal,
                cancelled_by=record.cancelled_by,
                scheduler=scheduler,
                eligible=eligible,
                extras=record.extras,
            )
        return info

    @staticmethod
    def _submit_reason(request: Request, cluster: Cluster) -> Reason:
        """What slurmctld decides at submission, before any pass: a hold, a partition limit."""
        if request.held:
            return Reason.HELD_USER
        problem = partition_problem(request, cluster)
        return Reason.NONE if problem is None else problem

    def describe_record(self, record: JobRecord) -> JobRow | None:
        if record.engine_id not in self.engine.jobs:
            return None
        view, _ = self.view(record)
        return JobRow(
            self.platform.clusters[self.cluster_of(record)].name,
            record.engine_id,
            view,
            record.uid,
            record.exit_signal,
            record.cancelled_by,
            record.work_dir,
        )
