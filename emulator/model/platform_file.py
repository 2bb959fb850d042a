"""Platform files (TOML) -> :class:`Platform`, with errors that name the file and the field.

Format (every key but ``name`` and the node ``names``/``cores`` is optional)::

    name = "oas-testbed"
    bandwidth_unit = "Gbit/s"          # unit of link_capacity and of jobs' task bandwidth

    [[clusters]]
    name = "c1"
    link_capacity = 1.0                # MBW_k; omitted = unlimited

    [[clusters.nodes]]                 # a group of identical nodes
    names = "c1n[1-2]"                 # Slurm hostlist
    cores = 1
    speed = 1.0                        # relative to the reference machine
    memory_mb = 4000
    price = 1.0                        # per core-second (economic scheduling)
    gpus = 2                           # per node, for sbatch --gres=gpu:N / --gpus-per-node
    features = ["ib", "avx512"]        # for sbatch -C (--constraint)

    [[clusters.partitions]]            # omitted = one default partition "batch" of all nodes
    name = "batch"
    nodes = "c1n[1-2]"                 # omitted = all nodes of the cluster
    default = true
    max_time = "2-00:00:00"            # Slurm duration; omitted = UNLIMITED
    default_time = "01:00:00"
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

from emulator.model.durations import DurationError, parse_duration
from emulator.model.hostlist import HostlistError, expand
from emulator.model.platform import FEATURE, Cluster, Node, Partition, Platform

_TOP = {"name", "bandwidth_unit", "description", "scheduler", "clusters"}
_CLUSTER = {"name", "link_capacity", "nodes", "partitions"}
_NODES = {"names", "cores", "speed", "memory_mb", "price", "gpus", "features"}
_PARTITION = {"name", "nodes", "default", "max_time", "default_time"}


class PlatformError(ValueError):
    """A platform file that cannot be loaded; the message starts with ``file: field:``."""


def load_platform(path: str | Path) -> Platform:
    """Read and validate a platform file."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise PlatformError(f"{file}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise PlatformError(f"{file}: not UTF-8 text ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise PlatformError(f"{file}: not valid TOML: {error}") from None
    return _Reader(str(file)).platform(data)


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file
        self.next_node_id = 0

    def fail(self, where: str, message: str) -> PlatformError:
        return PlatformError(f"{self.file}: {where}: {message}")

    def platform(self, data: dict[str, Any]) -> Platform:
        self.keys(data, _TOP, "(top level)")
        name = self.string(data, "name", "name")
        unit = self.string(data, "bandwidth_unit", "bandwidth_unit", "Gbit/s")
        raw = data.get("clusters")
        if not isinstance(raw, list) or not raw:
            raise self.fail("clusters", "needs at least one [[clusters]] table")
        clusters = tuple(self.cluster(item, i) for i, item in enumerate(raw))
        seen: set[str] = set()
        for cluster in clusters:
            if cluster.name in seen:
                raise self.fail(f"clusters[{cluster.index}].name", f"duplicate {cluster.name!r}")
            seen.add(cluster.name)
        names = [node.name for node in (n for c in clusters for n in c.nodes)]
        if len(set(names)) != len(names):
            duplicate = next(n for n in names if names.count(n) > 1)
            raise self.fail("clusters", f"node name {duplicate!r} is used twice")
        scheduler = self.string(data, "scheduler", "scheduler") if "scheduler" in data else None
        return Platform(name, clusters, unit, scheduler)

    def cluster(self, data: Any, index: int) -> Cluster:
        where = f"clusters[{index}]"
        if not isinstance(data, dict):
            raise self.fail(where, "must be a table")
        self.keys(data, _CLUSTER, where)
        name = self.string(data, "name", f"{where}.name")
        capacity = self.number(data, "link_capacity", f"{where}.link_capacity", math.inf)
        groups = data.get("nodes")
        if not isinstance(groups, list) or not groups:
            raise self.fail(f"{where}.nodes", "needs at least one [[clusters.nodes]] table")
        nodes: list[Node] = []
        for g, group in enumerate(groups):
            nodes.extend(self.node_group(group, f"{where}.nodes[{g}]", index, len(nodes)))
        by_name = {node.name: node.local for node in nodes}
        raw_parts = data.get("partitions", [{"name": "batch", "default": True}])
        if not isinstance(raw_parts, list) or not raw_parts:
            raise self.fail(f"{where}.partitions", "must be a non-empty array of tables")
        partitions = tuple(
            self.partition(p, f"{where}.partitions[{i}]", by_name) for i, p in enumerate(raw_parts)
        )
        names = [p.name for p in partitions]
        for i, part_name in enumerate(names):
            if part_name in names[:i]:
                raise self.fail(f"{where}.partitions[{i}].name", f"duplicate {part_name!r}")
        if sum(p.default for p in partitions) > 1:
            raise self.fail(f"{where}.partitions", "more than one partition has default = true")
        return Cluster(name, index, tuple(nodes), partitions, capacity)

    def node_group(self, data: Any, where: str, cluster: int, first_local: int) -> list[Node]:
        if not isinstance(data, dict):
            raise self.fail(where, "must be a table")
        self.keys(data, _NODES, where)
        names = self.hostlist(data, "names", where)
        cores = data.get("cores")
        if not isinstance(cores, int) or isinstance(cores, bool) or cores <= 0:
            raise self.fail(f"{where}.cores", f"must be a positive integer, got {cores!r}")
        speed = self.number(data, "speed", f"{where}.speed", 1.0)
        memory = data.get("memory_mb", 0)
        if not isinstance(memory, int) or isinstance(memory, bool) or memory < 0:
            raise self.fail(f"{where}.memory_mb", f"must be a non-negative integer, got {memory!r}")
        price = self.number(data, "price", f"{where}.price", 0.0, allow_zero=True)
        gpus = data.get("gpus", 0)
        if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 0:
            raise self.fail(f"{where}.gpus", f"must be a non-negative integer, got {gpus!r}")
        features = data.get("features", [])
        if not isinstance(features, list) or not all(
            isinstance(f, str) and FEATURE.match(f) for f in features
        ):
            raise self.fail(
                f"{where}.features",
                f"must be a list of names (letters, digits, _.-): {features!r}",
            )
        nodes = []
        for offset, name in enumerate(names):
            nodes.append(
                Node(
                    self.next_node_id,
                    name,
                    cluster,
                    first_local + offset,
                    cores,
                    speed,
                    memory,
                    price,
                    gpus,
                    tuple(features),
                )
            )
            self.next_node_id += 1
        return nodes

    def partition(self, data: Any, where: str, by_name: dict[str, int]) -> Partition:
        if not isinstance(data, dict):
            raise self.fail(where, "must be a table")
        self.keys(data, _PARTITION, where)
        name = self.string(data, "name", f"{where}.name")
        if "nodes" in data:
            members = self.hostlist(data, "nodes", where)
            unknown = [n for n in members if n not in by_name]
            if unknown:
                raise self.fail(f"{where}.nodes", f"unknown node {unknown[0]!r} in this cluster")
            nodes = tuple(dict.fromkeys(by_name[n] for n in members))  # a repeat means nothing
        else:
            nodes = tuple(by_name.values())
        default = data.get("default", False)
        if not isinstance(default, bool):
            raise self.fail(f"{where}.default", f"must be true or false, got {default!r}")
        max_time = self.duration(data, "max_time", where)
        default_time = (
            self.duration(data, "default_time", where) if "default_time" in data else None
        )
        return Partition(name, nodes, default, max_time, default_time)

    def keys(self, data: dict[str, Any], allowed: set[str], where: str) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise self.fail(
                where, f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})"
            )

    def string(self, data: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = data.get(key, default)
        if not isinstance(value, str) or not value:
            raise self.fail(where, f"must be a non-empty string, got {value!r}")
        return value

    def number(
        self, data: dict[str, Any], key: str, where: str, default: float, allow_zero: bool = False
    ) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(where, f"must be a number, got {value!r}")
        if value < 0 or (value == 0 and not allow_zero) or math.isnan(value):
            raise self.fail(where, f"must be {'>= 0' if allow_zero else '> 0'}, got {value!r}")
        return float(value)

    def hostlist(self, data: dict[str, Any], key: str, where: str) -> list[str]:
        text = self.string(data, key, f"{where}.{key}")
        try:
            return expand(text)
        except HostlistError as error:
            raise self.fail(f"{where}.{key}", str(error)) from None

    def duration(self, data: dict[str, Any], key: str, where: str) -> float:
        value = data.get(key, "UNLIMITED")
        try:
            return parse_duration(str(value))
        except DurationError as error:
            raise self.fail(f"{where}.{key}", str(error)) from None
