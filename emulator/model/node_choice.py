"""Which nodes a job gets: Slurm's select plugin on a flat network, as a pure function of the
cluster and its free cores, so that the engine (the cores free now) and a policy planning ahead
(the cores free at a future time) choose nodes the same way.

The rule: the lowest-numbered nodes that can take the job's tasks. Free nodes are found with
``bytearray.find`` over a has-free-cores mask, so a choice costs what is chosen, not the size of
the cluster.
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.model.job import Request
from emulator.model.platform import Cluster

Placement = tuple[tuple[int, ...], tuple[int, ...]]  # (platform node ids, cores on each)


class NodeChoice:
    """The node choice of one cluster; ``free`` (cores free on each node, by local index) and
    ``has_free`` (1 where a node has a free core) are the caller's."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.first_id = cluster.nodes[0].id
        self.capacity = [node.cores for node in cluster.nodes]
        self.name_to_local = {node.name: node.local for node in cluster.nodes}
        self._masks: dict[str, bytearray] = {}

    def mask(self, request: Request) -> bytearray | None:
        """Nodes the request may use (partition, -x, -C, nodes with GPUs), or None when every
        node may be used."""
        partition = request.partition
        features, gpus = request.features, request.gpus_per_node
        if not partition and not request.exclude and not features and not gpus:
            return None
        key = f"{partition}|{','.join(request.exclude)}|{features}|{gpus}"
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
            if features or gpus:
                for local, node in enumerate(self.cluster.nodes):
                    if not node.offers(features, gpus):
                        mask[local] = 0
            self._masks[key] = mask
        return mask

    def place(
        self,
        request: Request,
        free: Sequence[int],
        has_free: bytearray,
        gpus_free: Sequence[int] | None = None,
    ) -> Placement | None:
        """Lowest-numbered nodes that can take the request's tasks now, or None.

        Tasks need ``cpus_per_task`` cores on one node; ``tasks_per_node`` caps a node's share;
        ``min_nodes`` asks for exactly that many nodes; ``exclusive`` takes whole idle nodes;
        ``include`` (``-w``) nodes come first and must all be used; with ``gpus_free`` (the
        engine's GPUs free per node), ``gpus_per_node`` GPUs must be free on each node. A policy
        planning ahead passes none: schedulers plan with cores only.
        """
        if request.plain:
            return self._place_plain(request.tasks, free, has_free)
        gpus = request.gpus_per_node if gpus_free is not None else 0
        gpu_pool = gpus_free if gpus else None  # checked only when the request needs GPUs
        if request.max_nodes > request.min_nodes:
            return self._place_range(request, free, gpu_pool, gpus)
        cpt = request.cpus_per_task
        remaining = request.tasks
        cap = request.tasks_per_node or remaining
        want_nodes = request.min_nodes
        exclusive = request.exclusive
        mask = self.mask(request)
        capacity = self.capacity
        required = [self.name_to_local.get(name, -1) for name in request.include]
        if -1 in required:
            return None
        nodes: list[int] = []
        cores: list[int] = []
        position = required[0] if required else has_free.find(1)
        order = iter(required[1:])
        using_required = bool(required)
        while position >= 0 and remaining > 0:
            if (mask is None or mask[position]) and (
                gpu_pool is None or gpu_pool[position] >= gpus
            ):
                available = free[position]
                if exclusive and available != capacity[position]:
                    available = 0
                tasks = min(available // cpt, cap, remaining)
                if want_nodes:
                    later = want_nodes - len(nodes) - 1  # nodes still to find after this one
                    tasks = min(tasks, remaining - later)
                    if tasks < remaining - cap * later:
                        tasks = 0  # too small a share: the other nodes could not make it up
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

    def _place_range(
        self,
        request: Request,
        free: Sequence[int],
        gpu_pool: Sequence[int] | None,
        gpus: int,
    ) -> Placement | None:
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
        mask = self.mask(request)
        capacity = self.capacity
        required = [self.name_to_local.get(name, -1) for name in request.include]
        if -1 in required:
            return None
        rest = (i for i in range(len(free)) if i not in required)
        chosen: list[int] = []
        rooms: list[int] = []
        for i in (*required, *rest):
            if len(chosen) == most:
                break
            if (mask is not None and not mask[i]) or (gpu_pool is not None and gpu_pool[i] < gpus):
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

    def _place_plain(
        self, tasks: int, free: Sequence[int], has_free: bytearray
    ) -> Placement | None:
        """Single-core tasks anywhere: the lowest-numbered node that holds them all (as
        cons_tres keeps a job on one node when one can take it: real Slurm ran ``-n 4`` on an
        idle node04 rather than on node03's 2 free cores and node04's), else the
        lowest-numbered free cores (nothing taken)."""
        first = self.first_id
        position = has_free.find(1)
        while position >= 0:
            if free[position] >= tasks:
                return (first + position,), (tasks,)
            position = has_free.find(1, position + 1)
        nodes: list[int] = []
        cores: list[int] = []
        position = has_free.find(1)
        while tasks > 0:
            if position < 0:
                return None
            available = free[position]
            taken = available if available < tasks else tasks
            nodes.append(first + position)
            cores.append(taken)
            tasks -= taken
            position = has_free.find(1, position + 1)
        return tuple(nodes), tuple(cores)
