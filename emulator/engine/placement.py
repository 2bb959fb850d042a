"""Where a started job goes: the free nodes the engine picks for a local start, or the nodes a
policy named (split by cluster, checked, then taken)."""

from __future__ import annotations

from collections.abc import Sequence

from emulator.api.policy import PolicyError
from emulator.engine.nodes import ClusterState
from emulator.model.bpu import allocated_bpus
from emulator.model.job import Job
from emulator.model.node_choice import Placement
from emulator.model.platform import Platform

GRID = -1  # scope of the grid policy (cluster scopes are cluster indices)


def by_cluster(
    platform: Platform,
    clusters: Sequence[ClusterState],
    nodes: Sequence[int],
    cores: Sequence[int],
    hint: int = -1,
) -> list[tuple[int, Sequence[int], Sequence[int]]]:
    """Split an allocation by cluster, in cluster order (``hint``: the job's first cluster)."""
    if len(clusters) == 1:
        return [(0, nodes, cores)]
    if hint >= 0:
        state = clusters[hint]
        low, high = state.first_id, state.first_id + len(state.free)
        if not nodes or (low <= min(nodes) and max(nodes) < high):  # min, max: in C
            return [(hint, nodes, cores)]
    platform_nodes = platform.nodes
    split: dict[int, tuple[list[int], list[int]]] = {}
    for node, count in zip(nodes, cores, strict=True):
        mine = split.setdefault(platform_nodes[node].cluster, ([], []))
        mine[0].append(node)
        mine[1].append(count)
    return [(k, *split[k]) for k in sorted(split)]


def take_free(state: ClusterState, policy: str, job: Job) -> Placement:
    """Take the free nodes the cluster's own placement picks for a waiting ``job`` (a local
    ``Start`` without nodes), moving it from the waiting to the active jobs; a node range is
    sized here, up to its MAX."""
    placement = state.allocate(job)
    if placement is None:
        raise PolicyError(
            f"policy {policy!r}: job {job.id} ({job.cores} cores) does not fit the free "
            f"nodes of cluster {state.cluster.name!r} ({state.free_cores} free cores)"
        )
    nodes, cores = placement
    if job.request.max_nodes:
        job.cores = sum(cores)
    del state.waiting[job.id]
    state.active[job.id] = job
    return nodes, cores


def take_named(
    platform: Platform,
    clusters: Sequence[ClusterState],
    job: Job,
    nodes: Sequence[int],
    cores: Sequence[int],
    elsewhere: bool,
) -> tuple[tuple[ClusterState, int], ...]:
    """Take the (checked) nodes a policy named for the job; returns its cores in each cluster,
    in cluster order. ``elsewhere``: the grid policy started it, not the clusters' own policies,
    so each cluster's next pass is told."""
    first = platform.nodes[nodes[0]].cluster if nodes else -1
    parts = by_cluster(platform, clusters, nodes, cores, first)
    for k, part_nodes, part_cores in parts:
        holder = clusters[k]
        holder.take(part_nodes, part_cores)
        holder.active[job.id] = job
        if elsewhere:
            holder.started_elsewhere.append(job)
            holder.dirty = True
    return tuple((clusters[k], sum(part_cores)) for k, _, part_cores in parts)


def check_nodes(
    platform: Platform,
    clusters: Sequence[ClusterState],
    policy: str,
    job: Job,
    scope: int,
    nodes: Sequence[int],
    cores: Sequence[int],
) -> float:
    """Raise :class:`PolicyError` unless the policy of ``scope`` may start the job with these
    cores on these nodes now (they pair up, make the job's size, and are free in its reach);
    returns the speed of the slowest node, read on the way (the job's pace-setter)."""
    if len(nodes) != len(cores) or len(set(nodes)) != len(nodes):
        raise PolicyError(f"policy {policy!r}: job {job.id}: nodes and cores do not pair up")
    if job.request.moldable is None and sum(cores) != job.cores:
        raise PolicyError(
            f"policy {policy!r}: job {job.id} needs {job.cores} cores, got {sum(cores)}"
        )
    platform_nodes = platform.nodes
    known, local = len(platform_nodes), scope != GRID
    slowest = float("inf")
    for node_id, count in zip(nodes, cores, strict=True):
        if not 0 <= node_id < known:
            raise PolicyError(f"policy {policy!r}: job {job.id}: no node {node_id}")
        node = platform_nodes[node_id]
        if local and node.cluster != scope:
            raise PolicyError(
                f"policy {policy!r}: job {job.id}: node {node.name} is not in this cluster"
            )
        free = clusters[node.cluster].free[node.local]
        if count <= 0 or free < count:
            raise PolicyError(
                f"policy {policy!r}: job {job.id} wants {count} cores on {node.name}, "
                f"{free} are free"
            )
        if node.speed < slowest:
            slowest = node.speed
    return slowest


def check_power(
    ratings: Sequence[float], policy: str, job: Job, nodes: Sequence[int], cores: Sequence[int]
) -> float | None:
    """Raise :class:`PolicyError` unless a moldable job gets at least the x_j BPUs it asked for
    (BPU paper: "any set of processors whose BPU ratings sum to >= x_j"); returns the BPUs it
    gets (None for a job that is not moldable: nothing to check)."""
    if job.request.moldable is None:
        return None
    asked = job.request.moldable.power
    given = allocated_bpus(ratings, nodes, cores)
    if given < asked * (1 - 1e-12):
        raise PolicyError(
            f"policy {policy!r}: moldable job {job.id} needs {asked:g} BPUs, got {given:g}"
        )
    return given
