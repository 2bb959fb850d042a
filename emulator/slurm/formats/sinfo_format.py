"""``sinfo -o FORMAT`` and ``sinfo -O NAME[:[.]WIDTH],...``: sinfo 22.05's own format language.

sinfo makes one line per group of nodes that print the same: nodes are grouped by the
partition (when a partition field is shown) and by every node field shown (state, CPUs, memory,
host name, ...); counts (``%D``), node lists (``%N``) and the ``A/I/O/T`` fields (``%C``,
``%F``) sum over the group. With ``-N`` each node is its own line in each of its partitions,
shown or not. Lines go partition by partition (when shown), then by state as the default
output orders them. ``%[.][#][WIDTH]X``: ``.`` pads on the left, ``WIDTH`` pads and cuts, ``#``
takes the width of the longest value. ``-O`` fields are 20 wide by default, with no separator.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from emulator.model.hostlist import compress
from emulator.model.job import Job
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Node, Partition, Platform
from emulator.slurm.formats.sinfo import _node_state, _used_cores, state_rank
from emulator.slurm.timefmt import format_minutes_limit

__all__ = ["O_FIELDS", "sinfo_format"]

_FIELD = re.compile(r"%(\.?)(#?)(\d*)([A-Za-z%])")

_HEADERS = {
    "P": "PARTITION",
    "R": "PARTITION",
    "a": "AVAIL",
    "l": "TIMELIMIT",
    "s": "JOB_SIZE",
    "h": "OVERSUBSCRIBE",
    "g": "GROUPS",
    "r": "ROOT",
    "D": "NODES",
    "t": "STATE",
    "T": "STATE",
    "N": "NODELIST",
    "n": "HOSTNAMES",
    "o": "NODE_ADDR",
    "c": "CPUS",
    "C": "CPUS(A/I/O/T)",
    "F": "NODES(A/I/O/T)",
    "m": "MEMORY",
    "z": "S:C:T",
    "X": "SOCKETS",
    "Y": "CORES",
    "Z": "THREADS",
    "d": "TMP_DISK",
    "w": "WEIGHT",
    "f": "AVAIL_FEATURES",
    "b": "ACTIVE_FEATURES",
    "G": "GRES",
    "E": "REASON",
}
O_FIELDS = {  # sinfo -O's names for the same fields
    "partition": "P",
    "partitionname": "R",
    "available": "a",
    "timelimit": "l",
    "size": "s",
    "oversubscribe": "h",
    "groups": "g",
    "root": "r",
    "nodes": "D",
    "statecompact": "t",
    "statelong": "T",
    "nodelist": "N",
    "nodehost": "n",
    "nodeaddr": "o",
    "cpus": "c",
    "cpusstate": "C",
    "nodeaiot": "F",
    "memory": "m",
    "socketcorethread": "z",
    "sockets": "X",
    "cores": "Y",
    "threads": "Z",
    "disk": "d",
    "weight": "w",
    "features": "f",
    "features_act": "b",
    "gres": "G",
    "reason": "E",
}
_PARTITION_FIELDS = frozenset("PRalshgr")
_SUMMED = frozenset("DNCF")  # over the group; every other node field groups nodes


@dataclass(frozen=True, slots=True)
class _Group:
    partition: Partition | None  # None: partitions are not shown (nor -N)
    default: bool
    nodes: tuple[Node, ...]


def sinfo_format(
    platform: Platform,
    jobs: Iterable[Job],
    fmt: str,
    *,
    node_oriented: bool = False,
    partitions: Sequence[str] | None = None,
    statuses: Mapping[int, NodeStatus] | None = None,
    header: bool = True,
) -> str:
    """sinfo's stdout for ``fmt`` (a ``-o`` format); ``node_oriented``: ``-N``."""
    cluster = platform.clusters[0]
    used = _used_cores(jobs)
    statuses = statuses or {}
    chosen = [p for p in cluster.partitions if partitions is None or p.name in partitions]
    fields = [(m[1], m[2], m[3], m[4]) for m in _FIELD.finditer(fmt)]
    codes = [code for _, _, _, code in fields]
    cells = _cells(used, statuses)

    def key(node: Node) -> tuple[str, ...]:
        return tuple(cells[code](group_of(node)) for code in codes if code not in _SUMMED)

    def group_of(node: Node) -> _Group:
        return _Group(None, False, (node,))

    groups: list[_Group] = []
    if node_oriented:
        for node in cluster.nodes:
            groups.extend(_Group(p, p.default, (node,)) for p in chosen if node.local in p.nodes)
    else:
        shown = any(code in _PARTITION_FIELDS for code in codes)
        sets = (
            [(p, [cluster.nodes[i] for i in p.nodes]) for p in chosen]
            if shown
            else [(None, [n for n in cluster.nodes if any(n.local in p.nodes for p in chosen)])]
        )
        for partition, nodes in sets:
            by_key: dict[tuple[str, ...], list[Node]] = {}
            for node in nodes:
                by_key.setdefault(key(node), []).append(node)
            made = [
                _Group(partition, partition is not None and partition.default, tuple(members))
                for members in by_key.values()
            ]
            state = _state_of(used, statuses)
            groups.extend(sorted(made, key=lambda g: -state_rank(state(g.nodes[0]))))
    columns = [[cells[code](group) for group in groups] for code in codes]
    return _layout(fmt, fields, columns, header)


def _state_of(used: Mapping[int, int], statuses: Mapping[int, NodeStatus]) -> Callable[[Node], str]:
    return lambda node: _node_state(node, used, status=statuses.get(node.id))


def _cells(
    used: Mapping[int, int], statuses: Mapping[int, NodeStatus]
) -> dict[str, Callable[[_Group], str]]:
    """Each field's text for a group of nodes."""

    def state(group: _Group, long: bool) -> str:
        node = group.nodes[0]
        return _node_state(node, used, long=long, status=statuses.get(node.id))

    def cpus(group: _Group) -> str:
        busy = idle = other = total = 0
        for node in group.nodes:
            total += node.cores
            if node.id in statuses:
                other += node.cores - used.get(node.id, 0)
                busy += used.get(node.id, 0)
            else:
                busy += used.get(node.id, 0)
                idle += node.cores - used.get(node.id, 0)
        return f"{busy}/{idle}/{other}/{total}"

    def node_counts(group: _Group) -> str:
        busy = other = 0
        for node in group.nodes:
            status = statuses.get(node.id)
            if used.get(node.id, 0) and (status is None or status.state is NodeState.DRAIN):
                busy += 1
            elif status is not None:
                other += 1
            # (as sinfo -s: a draining node counts as allocated)
        total = len(group.nodes)
        return f"{busy}/{total - busy - other}/{other}/{total}"

    def partition(group: _Group, star: bool) -> str:
        if group.partition is None:
            return "n/a"
        return group.partition.name + ("*" if star and group.default else "")

    def reason(group: _Group) -> str:
        status = statuses.get(group.nodes[0].id)
        return status.reason if status is not None else "none"

    def names(group: _Group) -> str:
        return compress(node.name for node in group.nodes)

    def limit(group: _Group) -> str:
        return "n/a" if group.partition is None else format_minutes_limit(group.partition.max_time)

    return {
        "P": lambda g: partition(g, True),
        "R": lambda g: partition(g, False),
        "a": lambda g: "up",
        "l": limit,
        "s": lambda g: "1-infinite",
        "h": lambda g: "NO",
        "g": lambda g: "all",
        "r": lambda g: "no",
        "D": lambda g: str(len(g.nodes)),
        "t": lambda g: state(g, False),
        "T": lambda g: state(g, True),
        "N": names,
        "n": names,
        "o": names,
        "c": lambda g: str(g.nodes[0].cores),
        "C": cpus,
        "F": node_counts,
        "m": lambda g: str(g.nodes[0].memory_mb),
        "z": lambda g: f"1:{g.nodes[0].cores}:1",
        "X": lambda g: "1",
        "Y": lambda g: str(g.nodes[0].cores),
        "Z": lambda g: "1",
        "d": lambda g: "0",
        "w": lambda g: "1",
        "f": lambda g: "(null)",
        "b": lambda g: "(null)",
        "G": lambda g: "(null)",
        "E": reason,
        "%": lambda g: "%",
    }


def _layout(
    fmt: str, fields: list[tuple[str, str, str, str]], columns: list[list[str]], header: bool
) -> str:
    """The lines: literal text kept, each field padded (``.``: on the left) and cut to its
    width; ``#``: the longest value's (or the header's) width."""
    rows = len(columns[0]) if columns else 0
    lines: list[list[str]] = [[] for _ in range(rows + 1)]
    position = 0
    for (right, longest, digits, code), column, match in zip(
        fields, columns, _FIELD.finditer(fmt), strict=True
    ):
        literal = fmt[position : match.start()]
        title = _HEADERS.get(code, code)
        width = int(digits) if digits else 0
        if longest:
            width = max(len(title), *(len(text) for text in column)) if column else len(title)
        for line, text in zip(lines, [title, *column], strict=True):
            if width:
                text = text[:width]
                text = text.rjust(width) if right else text.ljust(width)
            line.append(literal + text)
        position = match.end()
    tail = fmt[position:]
    texts = ["".join(parts) + tail for parts in lines]
    if not header:
        texts = texts[1:]
    return "".join(text + "\n" for text in texts)
