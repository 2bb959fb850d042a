"""Per-cluster state: free cores per node, the queue, the running set; the cluster's view.

Node choice is :class:`~emulator.model.node_choice.NodeChoice`'s (Slurm's select plugin on a flat
network) on the cores free now; taking and giving back keep the has-free-cores mask it searches.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from emulator.api.policy import LocalPolicy
from emulator.engine.eligibility import partition_problem
from emulator.engine.scope import Scope
from emulator.model.job import Job, Request
from emulator.model.node_choice import NodeChoice, Placement
from emulator.model.platform import Cluster

if TYPE_CHECKING:
    from emulator.kernel import Kernel


class ClusterState(Scope):
    """The live state of one cluster; implements :class:`emulator.api.ClusterView`."""

    def __init__(self, cluster: Cluster, kernel: Kernel, policy: LocalPolicy) -> None:
        super().__init__(kernel)
        self.cluster = cluster
        self.index = cluster.index
        self.policy = policy
        self.first_id = cluster.nodes[0].id
        self.capacity = [node.cores for node in cluster.nodes]
        # One core per node (most trace platforms): a node's free cores are 0 or 1, exactly its
        # has-free flag, so one bytearray serves as both and allocation works on runs of nodes.
        self.unit_nodes = all(cores == 1 for cores in self.capacity)
        self.has_free = bytearray(b"\x01" * len(cluster.nodes))
        self.free: list[int] | bytearray = self.has_free if self.unit_nodes else list(self.capacity)
        self.free_cores = self.capacity_total = cluster.cores
        default = cluster.default_partition
        # the default partition spans the cluster with no time limit: nothing to check on arrival
        self.plain_partition = (
            len(default.nodes) == len(cluster.nodes) and default.max_time == math.inf
        )
        self.active: dict[int, Job] = {}
        # (expected end, job id, cores here) of running jobs, sorted: what backfilling plans with
        self.running_ends: list[tuple[float, int, int]] = []
        # what happened since the last pass, besides arrivals and ends (see Scope)
        self.departed: list[Job] = []
        self.started_elsewhere: list[Job] = []
        self.nodes_changed = False
        self.version = 0  # ClusterView.version: a job queued, gone, started or ended; nodes
        self.ones = (1,) * len(self.capacity)
        # sources of slice assignments to ``has_free``: bytearrays, because CPython copies any
        # other right-hand side (a memoryview even) into a new bytearray first
        self._zero_bytes = bytearray(len(self.capacity))
        self._one_bytes = bytearray(b"\x01" * len(self.capacity))
        speeds = {node.speed for node in cluster.nodes}
        self.uniform_speed = speeds.pop() if len(speeds) == 1 else None
        self.min_speed = cluster.min_speed  # what time limits are planned with (walltime)
        # one-core nodes: the runs (low, high) of local node indices each job took, so that
        # giving them back costs a slice per run rather than a step per node
        self._runs: dict[int, list[tuple[int, int]]] = {}
        self.choice = NodeChoice(cluster)
        # nodes out of service (drained, down): local index -> the cores kept out of the pool
        self.withheld: dict[int, int] = {}
        # GPUs (sbatch --gres=gpu:N, --gpus-per-node): free per node, and what each job holds
        self.gpus_free = [node.gpus for node in cluster.nodes]
        self._gpus_held: dict[int, tuple[tuple[int, ...], int]] = {}

    # --- ClusterView -------------------------------------------------------------------------
    @property
    def head(self) -> Job | None:
        return next(iter(self.waiting.values()), None)

    @property
    def running(self) -> Collection[Job]:
        return self.active.values()

    @property
    def node_free(self) -> Sequence[int]:
        return self.free

    def walltime(self, job: Job) -> float:
        return job.time_limit / self.min_speed

    def admits(self, request: Request) -> bool:
        """Do the request's -M names and its partition here admit it, ever? (A plain request
        in a plain partition needs only to fit the cluster's cores.)"""
        names = request.clusters
        if names and self.cluster.name not in names:
            return False
        if self.plain_partition and request.plain:
            return request.cores <= self.capacity_total
        return partition_problem(request, self.cluster) is None

    def fits(self, job: Job) -> bool:
        if job.cores > self.free_cores:  # a node range asks at least this (MIN's tasks)
            return False
        return job.request.plain or self.place(job.request) is not None

    def begin_pass(self) -> None:
        """The cluster's pass begins: ``arrived`` is made to list each job once, and only the
        jobs still waiting here. Between two passes the lists are logs (a grid policy's
        estimates read them as they grow), so a job routed here and moved on, or withdrawn, in
        the same grid pass is in both ``arrived`` and ``departed``; the policy's pass must not
        plan it. Only a departure can leave such an entry, so without one nothing is done."""
        self.dirty = False
        if self.departed and self.arrived:
            waiting, seen = self.waiting, set[int]()
            still: list[Job] = []
            for job in self.arrived:
                if waiting.get(job.id) is job and job.id not in seen:
                    seen.add(job.id)
                    still.append(job)
            self.arrived[:] = still

    def passed(self) -> None:
        """The cluster's pass is over: what happened since the last one has been seen."""
        if self.arrived:  # (Scope.passed's lists too, without the call: a pass is hot)
            self.arrived.clear()
        if self.ended:
            self.ended.clear()
        if self.departed:
            self.departed.clear()
        if self.started_elsewhere:
            self.started_elsewhere.clear()
        self.nodes_changed = False

    # --- allocation --------------------------------------------------------------------------
    def place(self, request: Request) -> Placement | None:
        """Lowest-numbered nodes that can take the request's tasks now, or None
        (:meth:`NodeChoice.place` on the free cores)."""
        if request.plain and request.tasks > self.free_cores:
            return None
        return self.choice.place(request, self.free, self.has_free, self.gpus_free)

    def allocate(self, job: Job) -> Placement | None:
        """:meth:`place` and :meth:`take` in one go; None (and nothing taken) if it does not fit."""
        request = job.request
        if request.plain and self.unit_nodes:  # one-core nodes: taken run by run
            tasks = request.tasks
            if tasks > self.free_cores:
                return None
            self.free_cores -= tasks
            return self._take_runs(tasks, job.id)
        placement = self.place(request)
        if placement is not None:
            self.take(*placement)
            if request.gpus_per_node:
                locals_ = tuple(node - self.first_id for node in placement[0])
                for local in locals_:
                    self.gpus_free[local] -= request.gpus_per_node
                self._gpus_held[job.id] = (locals_, request.gpus_per_node)
        return placement

    def _take_runs(self, tasks: int, job_id: int) -> Placement:
        """One-core nodes: take the lowest free nodes run by run, with slice assignments."""
        has_free, first, count, zeros = (
            self.has_free,
            self.first_id,
            len(self.has_free),
            self._zero_bytes,
        )
        position = has_free.find(1)
        end = has_free.find(0, position)
        if end < 0 or end - position >= tasks:  # the first free run holds the job: one slice
            end = position + tasks
            has_free[position:end] = zeros[:tasks]
            self._runs[job_id] = [(position, end)]
            return tuple(range(first + position, first + end)), self.ones[:tasks]
        nodes: list[int] = []
        runs: list[tuple[int, int]] = []
        while tasks > 0:
            end = has_free.find(0, position)
            if end < 0 or end - position > tasks:
                end = position + tasks
            width = end - position
            has_free[position:end] = zeros[:width]
            nodes.extend(range(first + position, first + end))
            runs.append((position, end))
            tasks -= width
            if tasks:
                position = has_free.find(1, end, count)
        self._runs[job_id] = runs
        return tuple(nodes), self.ones[: len(nodes)]

    def take(self, nodes: Sequence[int], cores: Sequence[int]) -> None:
        """Mark cores busy (nodes as platform ids; already validated)."""
        free, has_free, first = self.free, self.has_free, self.first_id
        total = 0
        for node, count in zip(nodes, cores, strict=True):
            local = node - first
            left = free[local] - count
            free[local] = left
            if left == 0:
                has_free[local] = 0
            total += count
        self.free_cores -= total

    def give_back(self, job_id: int, nodes: Sequence[int], cores: Sequence[int]) -> None:
        """Return the cores (and GPUs) job ``job_id`` holds here (``nodes`` as platform ids)."""
        held = self._gpus_held.pop(job_id, None)
        if held is not None:
            for local in held[0]:
                self.gpus_free[local] += held[1]
        free, has_free, first = self.free, self.has_free, self.first_id
        if self.unit_nodes:  # free is has_free: return each run of consecutive nodes at once
            ones = self._one_bytes
            runs = self._runs.pop(job_id, None)
            if runs is not None:  # allocated here by run: the runs are known
                for low, high in runs:
                    has_free[low:high] = ones[: high - low]
            else:
                following = iter(nodes)
                start = previous = next(following)
                for node in following:  # in any order: -w puts the named nodes first
                    if node != previous + 1:
                        has_free[start - first : previous - first + 1] = ones[
                            : previous - start + 1
                        ]
                        start = node
                    previous = node
                has_free[start - first : previous - first + 1] = ones[: previous - start + 1]
            self.free_cores += len(nodes)
        else:
            total = 0
            for node, count in zip(nodes, cores, strict=True):
                local = node - first
                free[local] += count
                has_free[local] = 1
                total += count
            self.free_cores += total
        if self.withheld:
            self._keep_withheld(nodes, cores)

    def release(self, job: Job, nodes: Sequence[int], cores: Sequence[int]) -> None:
        """A running job ended or stopped: its cores here (``nodes`` as platform ids) come back,
        and the cluster's next pass sees it ended."""
        self.give_back(job.id, nodes, cores)
        del self.active[job.id]
        ends = self.running_ends
        del ends[bisect_left(ends, (job.expected_end, job.id))]
        self.ended.append(job)
        self.dirty = True
        self.version += 1

    # --- nodes out of service ----------------------------------------------------------------
    def withhold(self, local: int) -> None:
        """Keep node ``local``'s cores out of the pool (drained or down) until :meth:`restore`."""
        cores = self.free[local]
        self.withheld[local] = cores
        self.free[local] = 0
        self.has_free[local] = 0
        self.free_cores -= cores
        self._recount_shares()
        self.nodes_changed = self.dirty = True
        self.version += 1

    def restore(self, local: int) -> None:
        """Put a withheld node's free cores back in the pool."""
        cores = self.withheld.pop(local)
        self.free[local] = cores
        self.has_free[local] = 1 if cores else 0
        self.free_cores += cores
        self._recount_shares()
        self.nodes_changed = self.dirty = True
        self.version += 1

    def _keep_withheld(self, nodes: Sequence[int], cores: Sequence[int]) -> None:
        """Cores just given back on withheld nodes go to the withheld count, not the pool."""
        free, has_free, first, withheld = self.free, self.has_free, self.first_id, self.withheld
        for node, count in zip(nodes, cores, strict=True):
            local = node - first
            if local in withheld:
                withheld[local] += count
                free[local] = 0
                has_free[local] = 0
                self.free_cores -= count

    def _recount_shares(self) -> None:
        """Running jobs' shares count only the cores that will come back to the pool, so that
        planning (shadow times, profiles) does not count on withheld nodes."""
        low, high, withheld = self.first_id, self.first_id + len(self.capacity), self.withheld
        self.running_ends[:] = sorted(
            (
                job.expected_end,
                job.id,
                sum(
                    count
                    for node, count in zip(job.nodes, job.node_cores, strict=True)
                    if low <= node < high and node - low not in withheld
                ),
            )
            for job in self.active.values()
        )
