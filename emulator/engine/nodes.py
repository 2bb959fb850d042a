"""Per-cluster state: free cores per node, the queue, the running set; the cluster's view.

Node choice follows Slurm's select plugin on a flat network: the lowest-numbered nodes that can
take the job's tasks. Free nodes are found with ``bytearray.find`` over a has-free-cores mask, so
allocating costs what is allocated, not the size of the cluster.
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
from emulator.model.platform import Cluster

if TYPE_CHECKING:
    from emulator.kernel import Kernel

Placement = tuple[tuple[int, ...], tuple[int, ...]]  # (platform node ids, cores on each)


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
        self._masks: dict[str, bytearray] = {}
        # one-core nodes: the runs (low, high) of local node indices each job took, so that
        # giving them back costs a slice per run rather than a step per node
        self._runs: dict[int, list[tuple[int, int]]] = {}
        self.name_to_local = {node.name: node.local for node in cluster.nodes}
        # nodes out of service (drained, down): local index -> the cores kept out of the pool
        self.withheld: dict[int, int] = {}

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
    def _mask(self, request: Request) -> bytearray | None:
        """Nodes the request may use (partition, -x), or None when every node may be used."""
        partition = request.partition
        if not partition and not request.exclude:
            return None
        key = f"{partition}|{','.join(request.exclude)}"
        mask = self._masks.get(key)
        if mask is None:
            part = self.cluster.partition(partition) if partition else None
            if part is None or len(part.nodes) == len(self.capacity):
                mask = bytearray(b"\x01" * len(self.capacity))
            else:
                mask = bytearray(len(self.capacity))
                for local in part.nodes:
                    mask[local] = 1
            for name in request.exclude:
                excluded = self.name_to_local.get(name)
                if excluded is not None:
                    mask[excluded] = 0
            self._masks[key] = mask
        return mask

    def place(self, request: Request) -> Placement | None:
        """Lowest-numbered nodes that can take the request's tasks now, or None.

        Tasks need ``cpus_per_task`` cores on one node; ``tasks_per_node`` caps a node's share;
        ``min_nodes`` asks for exactly that many nodes; ``exclusive`` takes whole idle nodes;
        ``include`` (``-w``) nodes come first and must all be used.
        """
        if request.plain:
            return self._place_plain(request.tasks)
        if request.max_nodes > request.min_nodes:
            return self._place_range(request)
        cpt = request.cpus_per_task
        remaining = request.tasks
        cap = request.tasks_per_node or remaining
        want_nodes = request.min_nodes
        exclusive = request.exclusive
        mask = self._mask(request)
        free, capacity, has_free = self.free, self.capacity, self.has_free
        required = [self.name_to_local.get(name, -1) for name in request.include]
        if -1 in required:
            return None
        nodes: list[int] = []
        cores: list[int] = []
        position = required[0] if required else has_free.find(1)
        order = iter(required[1:])
        using_required = bool(required)
        while position >= 0 and remaining > 0:
            if mask is None or mask[position]:
                available = free[position]
                if exclusive and available != capacity[position]:
                    available = 0
                tasks = min(available // cpt, cap, remaining)
                if want_nodes:
                    tasks = min(tasks, remaining - (want_nodes - len(nodes) - 1))
                if tasks > 0:
                    nodes.append(position)
                    cores.append(capacity[position] if exclusive else tasks * cpt)
                    remaining -= tasks
                    if want_nodes and len(nodes) == want_nodes:
                        break
                elif using_required:
                    return None
            if using_required:
                position = next(order, -1)
                if position < 0:
                    using_required = False
                    position = has_free.find(1)
                continue
            position = has_free.find(1, position + 1)
            while position >= 0 and position in required:
                position = has_free.find(1, position + 1)
        if remaining > 0 or len(nodes) < want_nodes:
            return None
        first = self.first_id
        return tuple(first + n for n in nodes), tuple(cores)

    def _place_range(self, request: Request) -> Placement | None:
        """``-N MIN-MAX``: the lowest-numbered usable nodes (``-w`` ones first), as many as are
        free up to MAX, one task each, then the rest of the tasks round-robin up to each
        node's room and ``--ntasks-per-node``; with ``tasks_follow_nodes``, ``tasks_per_node``
        (default 1) tasks on each. None if fewer than MIN nodes can take a share or the tasks
        do not fit."""
        cpt = request.cpus_per_task
        follow = request.tasks_follow_nodes
        each = (request.tasks_per_node or 1) if follow else 1
        cap = request.tasks_per_node or request.tasks
        most = request.max_nodes if follow else min(request.max_nodes, request.tasks)
        mask = self._mask(request)
        free, capacity = self.free, self.capacity
        required = [self.name_to_local.get(name, -1) for name in request.include]
        if -1 in required:
            return None
        rest = (i for i in range(len(free)) if i not in required)
        chosen: list[int] = []
        rooms: list[int] = []
        for i in (*required, *rest):
            if len(chosen) == most:
                break
            if mask is not None and not mask[i]:
                room = 0
            elif request.exclusive:
                room = capacity[i] if free[i] == capacity[i] else 0
            else:
                room = free[i]
            if room // cpt >= each:
                chosen.append(i)
                rooms.append(min(room // cpt, cap))
            elif i in required:
                return None
        if len(chosen) < max(1, request.min_nodes):
            return None
        tasks = [each] * len(chosen)
        left = 0 if follow else request.tasks - len(chosen)
        if left > sum(rooms) - len(chosen):
            return None
        while left:  # the rest round-robin, as evenly as the nodes' room allows
            for n, room in enumerate(rooms):
                if left and tasks[n] < room:
                    tasks[n] += 1
                    left -= 1
        first = self.first_id
        cores = tuple(
            capacity[i] if request.exclusive else t * cpt
            for i, t in zip(chosen, tasks, strict=True)
        )
        return tuple(first + i for i in chosen), cores

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

    def _place_plain(self, tasks: int) -> Placement | None:
        """Single-core tasks anywhere: the lowest-numbered free cores (nothing taken)."""
        if tasks > self.free_cores:
            return None
        free, has_free, first = self.free, self.has_free, self.first_id
        nodes: list[int] = []
        cores: list[int] = []
        position = has_free.find(1)
        while tasks > 0:
            available = free[position]
            taken = available if available < tasks else tasks
            nodes.append(first + position)
            cores.append(taken)
            tasks -= taken
            position = has_free.find(1, position + 1)
        return tuple(nodes), tuple(cores)

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
        """Return the cores job ``job_id`` holds here (``nodes`` as platform ids)."""
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
