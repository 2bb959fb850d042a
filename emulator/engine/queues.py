"""Where eligible jobs wait: the grid queue and the cluster queues, routing between them, and the
one way to ask the engine for a scheduling pass.

A pass visits the *dirty* scopes only (the grid, a cluster). :meth:`Queues.request_pass` marks a
scope dirty and asks the kernel to settle the instant, which runs the pass once every event of
the instant is in. A few changes made during a pass only mark a scope (``dirty = True``) without
asking: the pass in progress, or the next one, looks at it, and a pass never calls itself again.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from emulator.api.decisions import Route, Withdraw
from emulator.api.policy import GridPolicy, PolicyError
from emulator.api.view import SiteChange
from emulator.engine.eligibility import partition_problem
from emulator.engine.grid import GridState
from emulator.engine.nodes import ClusterState
from emulator.engine.placement import GRID
from emulator.engine.scope import Scope
from emulator.kernel import Kernel
from emulator.model.job import Job, Reason

PRIORITY = Reason.PRIORITY
QUEUED, DEPARTED = SiteChange.QUEUED, SiteChange.DEPARTED  # what GridView.changes reports


def submission_order(job: Job) -> tuple[int, float, int, int]:
    """Where a job stands in Slurm's order: by priority (``Request.priority``, higher first;
    0 for FIFO jobs), then by submit time, then by job id, an array task as its
    array (whose id it was submitted under: its engine id is larger than any Slurm id), then
    by task id."""
    array = job.request.array
    priority = -job.request.priority
    if array is None:
        return priority, job.submit, job.id, 0
    return priority, job.submit, array.array_id, array.task_id


def insert(queue: OrderedDict[int, Job], job: Job, readmitted: bool) -> None:
    """A new arrival (or a job routed here) goes after every job of its priority or higher,
    in arrival order (FIFO jobs: at the end); a job that comes back (released, requeued,
    updated, no longer waiting on a dependency) where its priority and submission place it,
    as Slurm's priority order does.
    (By rebuilding the queue, never by moving entries: see ``nodes.in_order``.)"""
    if not queue:
        queue[job.id] = job
        return
    last = next(reversed(queue.values()))
    priority = job.request.priority
    if readmitted:
        key = submission_order(job)
        if submission_order(last) <= key:
            queue[job.id] = job
            return
        goes_before = [submission_order(other) > key for other in queue.values()]
    else:
        if last.request.priority >= priority:
            queue[job.id] = job
            return
        goes_before = [other.request.priority < priority for other in queue.values()]
    items = list(queue.values())
    queue.clear()
    placed = False
    for other, before in zip(items, goes_before, strict=True):  # the last one is after it
        if not placed and before:
            queue[job.id] = job
            placed = True
        queue[other.id] = other


class Queues:
    """The queues of the grid and of every cluster, and which cluster a job may wait in."""

    def __init__(self, kernel: Kernel, clusters: list[ClusterState], grid: GridState) -> None:
        self._kernel = kernel
        self.clusters = clusters
        self.grid = grid
        self.grid_policy: GridPolicy | None = None
        self.reallocations = 0  # waiting jobs the grid policy moved from one cluster to another
        self.withdrawn: dict[int, int] = {}  # job id -> the cluster a Withdraw took it from

    # --- passes -------------------------------------------------------------------------------
    def request_pass(self, scope: Scope | None = None) -> None:
        """Have the scheduling pass look at ``scope`` (None: at whatever is dirty) once every
        event of this instant is in."""
        if scope is not None:
            scope.dirty = True
        self._kernel.request_settle()

    # --- where a job may wait -----------------------------------------------------------------
    def allowed_clusters(self, job: Job) -> list[int]:
        """The clusters whose partitions can ever hold the job, among those it names."""
        return self.grid.allowed(job)

    def fits_a_partition(self, job: Job) -> bool:
        """Can some allowed cluster's partition ever hold the job? (Checked on every arrival.)"""
        if len(self.clusters) == 1:
            state, request = self.clusters[0], job.request
            if state.plain_partition and request.plain and not request.clusters:
                return request.cores <= state.capacity_total
        return bool(self.allowed_clusters(job))

    def grid_may_run(self, job: Job) -> bool:
        """Could a grid policy run the job across clusters? (One larger than any single cluster
        is queued for the grid policy, which may co-allocate it, rather than kept pending.)"""
        if self.grid_policy is None or len(self.clusters) == 1:
            return False
        names = job.request.clusters
        total = sum(s.capacity_total for s in self.clusters if not names or s.cluster.name in names)
        return job.cores <= total

    def partition_reason(self, job: Job) -> Reason | None:
        """Why no partition can ever hold the job (None: one can, or the grid may run it)."""
        if self.fits_a_partition(job) or self.grid_may_run(job):
            return None
        names = job.request.clusters
        problems = [
            partition_problem(job.request, state.cluster)
            for state in self.clusters
            if not names or state.cluster.name in names
        ]
        return next((p for p in problems if p is not None), Reason.PARTITION_CONFIG)

    def forget_verdicts(self) -> None:
        """Clear what the policies said of every waiting job (reason, explanation, reservation):
        new policies judge each job afresh rather than inherit words they did not say."""
        for queue in (self.grid.waiting, *(state.waiting for state in self.clusters)):
            for job in queue.values():
                job.reason = PRIORITY
                job.explanation = ""
                job.planned_start = math.nan
                job.planned_nodes = ()

    # --- queueing -----------------------------------------------------------------------------
    def enqueue(self, job: Job, readmitted: bool = False) -> None:
        """Put an eligible job in the grid queue or a cluster queue."""
        if len(self.clusters) == 1:
            self.queue_on(job, 0, readmitted)
            return
        allowed = self.allowed_clusters(job)
        grid = self.grid_policy
        if grid is not None and (len(allowed) != 1 or grid.routes_all):
            job.cluster = GRID
            job.reason = PRIORITY
            insert(self.grid.waiting, job, readmitted)
            self.grid.arrived.append(job)
            self.request_pass(self.grid)
            return
        target = allowed[0] if len(allowed) == 1 else self._earliest_cluster(job, allowed)
        self.queue_on(job, target, readmitted)

    def _earliest_cluster(self, job: Job, allowed: list[int]) -> int:
        """With no grid policy, a multi-cluster job goes where it starts first (as sbatch -M;
        ties: the first cluster). Nothing starts before now, so the first cluster where it
        would start now is the answer without asking the others; and where it fits the free
        cores of an empty queue, a local policy starts it now without being asked: an estimate
        replans the cluster's whole queue, which made the choice cost more than the replay."""
        now = self._kernel.now
        best, chosen = math.inf, allowed[0]
        for k in allowed:
            state = self.clusters[k]
            if not state.waiting and state.fits(job):
                return k
            start = self.grid.estimate(job, k).start
            if start <= now:
                return k
            if start < best:
                best, chosen = start, k
        return chosen

    def queue_on(self, job: Job, cluster: int, readmitted: bool = False) -> None:
        state = self.clusters[cluster]
        job.cluster = cluster
        job.reason = PRIORITY
        insert(state.waiting, job, readmitted)
        state.arrived.append(job)
        state.version += 1
        if self.grid_policy is not None:
            self.grid.changes.append((QUEUED, job, cluster))
        # request_pass(state), inlined: every arrival comes here
        state.dirty = True
        self._kernel.settle_pending = True

    def queued_in(self, job: Job) -> bool:
        """Is the job in a queue now (not aside, not running, not yet arrived)?"""
        if job.cluster == GRID:
            return self.grid.waiting.get(job.id) is job
        return job.cluster >= 0 and self.clusters[job.cluster].waiting.get(job.id) is job

    def unqueue(self, job: Job, started: bool) -> None:
        """Take the job out of its queue; one that leaves unstarted is noted for its cluster's
        next pass (a departure that may let the jobs behind it go)."""
        if job.cluster == GRID:
            del self.grid.waiting[job.id]
            self.withdrawn.pop(job.id, None)
            return
        state = self.clusters[job.cluster]
        del state.waiting[job.id]
        if not started:
            state.departed.append(job)
            state.dirty = True
            state.version += 1
            if self.grid_policy is not None:
                self.grid.changes.append((DEPARTED, job, job.cluster))

    def waiting_job(self, scope: int, policy: str, job: Job) -> Job:
        """The job, if the policy of ``scope`` may decide about it: a local policy about its own
        queue, the grid policy about any queue (to reallocate waiting jobs between clusters)."""
        home = job.cluster if scope == GRID else scope
        queue = self.grid.waiting if home == GRID else self.clusters[home].waiting
        if queue.get(job.id) is not job:
            where = (
                "any queue" if scope == GRID else f"cluster {self.clusters[scope].cluster.name!r}"
            )
            raise PolicyError(
                f"policy {policy!r}: job {job.id} is not waiting in {where} "
                f"(state {job.state.name})"
            )
        return job

    def route(self, scope: int, policy: str, decision: Route) -> None:
        """Apply a :class:`Route`: move a waiting job to another cluster's queue."""
        job = self.waiting_job(scope, policy, decision.job)
        target = decision.cluster
        if not 0 <= target < len(self.clusters):
            raise PolicyError(f"policy {policy!r}: no cluster {target} to route job {job.id} to")
        if not self.clusters[target].admits(job.request):
            raise PolicyError(
                f"policy {policy!r}: job {job.id} may not run on cluster "
                f"{self.clusters[target].cluster.name!r} (its size, partition or -M exclude it)"
            )
        if job.cluster == target:
            return
        origin = job.cluster if job.cluster != GRID else self.withdrawn.get(job.id, GRID)
        if origin not in (GRID, target):
            self.reallocations += 1
            job.moved_from += (origin,)
        self.unqueue(job, started=False)
        job.planned_start = math.nan
        if decision.explanation:
            job.explanation = decision.explanation
        self.queue_on(job, target)

    def withdraw(self, scope: int, policy: str, decision: Withdraw) -> None:
        """Apply a :class:`Withdraw`: take a job waiting in a cluster's queue back to the grid
        queue, remembering the cluster (a later route elsewhere is a reallocation)."""
        job = decision.job
        if scope != GRID:
            raise PolicyError(
                f"policy {policy!r}: only the grid policy may withdraw a job (job {job.id})"
            )
        if job.cluster == GRID and self.grid.waiting.get(job.id) is job:
            raise PolicyError(f"policy {policy!r}: job {job.id} is already in the grid queue")
        self.waiting_job(scope, policy, job)
        origin = job.cluster
        self.unqueue(job, started=False)
        self.withdrawn[job.id] = origin
        job.cluster = GRID
        job.reason = PRIORITY
        job.planned_start = math.nan
        job.planned_nodes = ()
        if decision.explanation:
            job.explanation = decision.explanation
        insert(self.grid.waiting, job, readmitted=True)
        self.grid.arrived.append(job)
        self.request_pass(self.grid)
