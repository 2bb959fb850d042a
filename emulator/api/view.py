"""Read-only views the engine hands to policies.

A view answers from the engine's live state without copying it, so a pass costs what the policy
reads, not what the platform holds. The engine applies each decision as the policy yields it, so a
policy written as a generator sees its own earlier decisions (fewer free cores, a shorter queue).
Do not keep collections across passes.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from emulator.model.job import Job
from emulator.model.platform import Cluster, Platform


@dataclass(frozen=True, slots=True)
class Estimate:
    """Answer to the planning query: expected start and end (``inf`` if it can never run)."""

    start: float
    end: float


class SiteChange(enum.Enum):
    """What happened to a job on a cluster, as :attr:`GridView.changes` reports it."""

    QUEUED = "queued"  # entered the cluster's queue (routed, sent there directly, requeued)
    DEPARTED = "departed"  # left the cluster's queue without starting (cancelled, held, moved)
    STARTED = "started"  # started on the cluster's nodes
    ENDED = "ended"  # left the cluster's nodes (finished, cancelled, requeued)


class ClusterView(Protocol):
    """One cluster as its local policy sees it."""

    @property
    def now(self) -> float: ...

    @property
    def cluster(self) -> Cluster: ...

    @property
    def queue(self) -> Sequence[Job]:
        """Eligible waiting jobs in priority order (held, dependent and not-yet-begun are not here).

        A snapshot: iterate it while yielding decisions without fear.
        """
        ...

    @property
    def head(self) -> Job | None:
        """The first job of ``queue``, without copying the queue."""
        ...

    @property
    def running(self) -> Collection[Job]: ...

    @property
    def running_ends(self) -> Sequence[tuple[float, int, int]]:
        """``(expected_end, job_id, cores)`` of the running jobs, sorted by expected end; the
        cores are those on this cluster (a co-allocated job counts only its share here)."""
        ...

    @property
    def free_cores(self) -> int: ...

    @property
    def node_free(self) -> Sequence[int]:
        """Free cores of each node of the cluster, by local index."""
        ...

    @property
    def arrived(self) -> Sequence[Job]:
        """Jobs that entered this queue since the policy's previous pass."""
        ...

    @property
    def ended(self) -> Sequence[Job]:
        """Jobs that left this cluster's nodes since the policy's previous pass."""
        ...

    @property
    def departed(self) -> Sequence[Job]:
        """Jobs that left this queue without starting (cancelled, held, routed elsewhere)."""
        ...

    @property
    def started_elsewhere(self) -> Sequence[Job]:
        """Jobs the grid policy started on this cluster's nodes since the previous pass."""
        ...

    @property
    def version(self) -> int:
        """Grows whenever the cluster changes in a way a plan depends on (a job queued, gone,
        started or ended, nodes out of or back in service). A policy that caches a plan keeps it
        while the version it was made at is still the current one, between passes included
        (a grid policy asks for many estimates between two local passes)."""
        ...

    @property
    def nodes_changed(self) -> bool:
        """Nodes went out of service (drained, down) or came back since the previous pass: free
        cores and capacity changed with no job ending. Policies that plan incrementally start
        over."""
        ...

    def walltime(self, job: Job) -> float:
        """The job's time limit on this cluster (its limit divided by the slowest node speed)."""
        ...

    def fits(self, job: Job) -> bool:
        """Could the engine place ``job`` on the free nodes right now?"""
        ...


class GridView(Protocol):
    """The whole platform as a grid policy sees it."""

    @property
    def now(self) -> float: ...

    @property
    def platform(self) -> Platform: ...

    @property
    def queue(self) -> Sequence[Job]:
        """Eligible jobs waiting at the grid level, not yet routed to a cluster (a snapshot)."""
        ...

    @property
    def arrived(self) -> Sequence[Job]:
        """Jobs that entered the grid queue since the grid policy's previous pass."""
        ...

    @property
    def ended(self) -> Sequence[Job]:
        """Jobs that ended anywhere since the grid policy's previous pass."""
        ...

    @property
    def changes(self) -> Sequence[tuple[SiteChange, Job, int]]:
        """``(change, job, cluster)`` for every job that entered, left, started or ended on a
        cluster since the grid policy's previous pass, in the order it happened: what a policy
        keeping per-cluster counters needs, whoever moved the job."""
        ...

    @property
    def clusters(self) -> Sequence[ClusterView]: ...

    def allowed(self, job: Job) -> Sequence[int]:
        """The clusters the job may be routed to: those its -M names (all if none) whose
        partition can ever hold it."""
        ...

    def estimate(self, job: Job, cluster: int) -> Estimate:
        """When would ``job`` start and end if it were submitted to ``cluster`` now? (A job
        already waiting there is answered where it stands in the queue.) Routes made earlier in
        the same pass count: the job sent there is in the queue."""
        ...

    def estimates(self, jobs: Iterable[Job], cluster: int) -> list[Estimate]:
        """:meth:`estimate` for each job, each as if it alone were submitted: one call, so the
        local policy builds its plan once."""
        ...

    def link_load(self, cluster: int) -> float:
        """Bandwidth in use now on the cluster's link to the switch (platform unit)."""
        ...
