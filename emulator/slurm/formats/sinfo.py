"""sinfo's output: partitions and their nodes grouped by state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from emulator.model.hostlist import compress
from emulator.model.job import (
    Job,
    JobState,
)
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.slurm.timefmt import (
    format_ctime,
    format_minutes_limit,
    format_timestamp,
)

# --- sinfo -----------------------------------------------------------------------------------


def _used_cores(jobs: Iterable[Job]) -> dict[int, int]:
    used: dict[int, int] = {}
    for job in jobs:
        if job.state is JobState.RUNNING:
            cores = job.node_cores or tuple(job.cores // max(1, len(job.nodes)) for _ in job.nodes)
            for node, count in zip(job.nodes, cores, strict=False):
                used[node] = used.get(node, 0) + count
    return used


def _node_state(
    node: Node, used: Mapping[int, int], long: bool = False, status: NodeStatus | None = None
) -> str:
    """sinfo's state of a node: ``drng`` while a drained node still runs jobs."""
    busy = used.get(node.id, 0)
    if status is not None:
        if status.state is NodeState.DOWN:
            return "down"
        if busy:
            return "draining" if long else "drng"
        return "drained" if long else "drain"
    if busy >= node.cores:
        return "allocated" if long else "alloc"
    if busy:
        return "mixed" if long else "mix"
    return "idle"


_STATE_RANK = {"mix": 5, "mixed": 5, "alloc": 3, "allocated": 3, "drng": 3, "draining": 3}


def state_rank(state: str) -> int:
    """sinfo's order of state groups (its ``-t`` sort on Slurm's node state numbers, highest
    first): mixed (5), allocated (3), idle (2), down (1); a drained node sorts as its base
    state. Real Slurm 22.05.8 listed mix, alloc, then idle (tests/differential)."""
    return _STATE_RANK.get(state, 1 if state == "down" else 2)


def _show_node_state(node: Node, used: Mapping[int, int], status: NodeStatus | None) -> str:
    """scontrol's ``State=``: the base state, then ``+DRAIN`` for a drained node."""
    if status is not None and status.state is NodeState.DOWN:
        return "DOWN"
    base = _node_state(node, used, long=True).upper()
    return f"{base}+DRAIN" if status is not None else base


def _partition_nodes(cluster: Cluster, partition: Partition) -> list[Node]:
    return [cluster.nodes[index] for index in partition.nodes]


def sinfo(
    platform: Platform,
    jobs: Iterable[Job] = (),
    *,
    mode: str = "default",
    now: float = 0.0,
    origin: float = 0.0,
    partitions: Sequence[str] | None = None,
    statuses: Mapping[int, NodeStatus] | None = None,
) -> str:
    """sinfo's stdout. ``mode``: ``default``, ``summary`` (-s), ``nodes`` (-N), ``nodes-long``
    (-N -l), ``long`` (-l) or ``reasons`` (-R). ``statuses``: the nodes out of service, by node
    id; -R lists them, one row per reason, user and time."""
    cluster = platform.clusters[0]
    used = _used_cores(jobs)
    statuses = statuses or {}
    chosen = [p for p in cluster.partitions if partitions is None or p.name in partitions]
    out: list[str] = []
    if mode in ("long", "nodes-long"):
        out.append(format_ctime(now, origin))
    if mode == "reasons":
        out.append(f"{'REASON':<20} {'USER':<9} {'TIMESTAMP':<19} NODELIST")
        reasons: dict[tuple[str, str, float], list[str]] = {}  # the printed fields group nodes
        for node in cluster.nodes:
            status = statuses.get(node.id)
            if status is not None:
                key = (status.reason, status.user, status.since)
                reasons.setdefault(key, []).append(node.name)
        for (reason, user, since), names in reasons.items():
            stamp = format_timestamp(since, origin)
            out.append(f"{reason[:20]:<20} {user[:9]:<9} {stamp:<19} {compress(names)}")
        return "".join(line + "\n" for line in out)
    if mode in ("nodes", "nodes-long"):
        width = max(9, *(len(node.name) for node in cluster.nodes))
        if mode == "nodes":
            out.append(f"{'NODELIST':<{width}} {'NODES':>6} {'PARTITION':>9} {'STATE':<6}")
        else:
            out.append(
                f"{'NODELIST':<{width}} {'NODES':>6} {'PARTITION':>9} {'STATE':>11} CPUS "
                f"{'S:C:T':>8} MEMORY TMP_DISK WEIGHT AVAIL_FE {'REASON':<20}"
            )
        for node in cluster.nodes:
            for partition in chosen:
                if node.local not in partition.nodes:
                    continue
                name = partition.name + ("*" if partition.default else "")
                status = statuses.get(node.id)
                if mode == "nodes":
                    state = _node_state(node, used, status=status)
                    out.append(f"{node.name:<{width}} {1:>6} {name:>9} {state:<6}")
                else:
                    state = _node_state(node, used, long=True, status=status)
                    sct = f"1:{node.cores}:1"
                    reason = status.reason[:20] if status is not None else "none"
                    out.append(
                        f"{node.name:<{width}} {1:>6} {name:>9} {state:>11} {node.cores:<4} "
                        f"{sct:>8} {node.memory_mb:>6} {0:>8} {1:>6} {'(null)':>8} {reason:<20}"
                    )
        return "".join(line + "\n" for line in out)
    name_width = max(9, *(len(p.name) + int(p.default) for p in cluster.partitions))
    if mode == "summary":
        out.append(f"{'PARTITION':<{name_width}} AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST")
    elif mode == "long":
        out.append(
            f"{'PARTITION':<{name_width}} AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS "
            " NODES       STATE NODELIST"
        )
    else:
        out.append(f"{'PARTITION':<{name_width}} AVAIL  TIMELIMIT  NODES  STATE NODELIST")
    for partition in chosen:
        name = partition.name + ("*" if partition.default else "")
        limit = format_minutes_limit(partition.max_time)
        nodes = _partition_nodes(cluster, partition)
        head = f"{name:<{name_width}} {'up':>5} {limit:>10}"
        if mode == "summary":  # allocated (draining ones too) / idle / other (drained, down)
            busy = other = 0
            for node in nodes:
                status = statuses.get(node.id)
                if used.get(node.id, 0) and (status is None or status.state is NodeState.DRAIN):
                    busy += 1
                elif status is not None:
                    other += 1
            counts = f"{busy}/{len(nodes) - busy - other}/{other}/{len(nodes)}"
            out.append(f"{head} {counts:>16} {compress(n.name for n in nodes)}")
            continue
        groups: dict[str, list[Node]] = {}
        for node in nodes:
            state = _node_state(node, used, long=mode == "long", status=statuses.get(node.id))
            groups.setdefault(state, []).append(node)
        for state, members in sorted(groups.items(), key=lambda item: -state_rank(item[0])):
            hostlist = compress(n.name for n in members)
            if mode == "long":
                out.append(
                    f"{head} {'1-infinite':>10} {'no':>4} {'NO':>8} {'all':>10} "
                    f"{len(members):>6} {state:>11} {hostlist}"
                )
            else:
                out.append(f"{head} {len(members):>6} {state:>6} {hostlist}")
    return "".join(line + "\n" for line in out)
