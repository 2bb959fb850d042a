"""Platforms: clusters of nodes, partitions over them, and one link per cluster to a central switch.

Node speed is relative to the reference machine that measured job base times and trace runtimes
(models.md §1): a task of base time ``b`` takes ``b / speed`` on it. Every cluster ``k`` joins the
central switch through a link of capacity ``MBW_k`` (``math.inf`` when the file gives none), in the
platform's ``bandwidth_unit``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property

FEATURE = re.compile(r"^[A-Za-z0-9_.-]+$")  # a node feature's name, as sbatch -C names it


@dataclass(frozen=True, slots=True)
class Node:
    """One machine. ``id`` is platform-wide; ``local`` is the index within its cluster."""

    id: int
    name: str
    cluster: int
    local: int
    cores: int
    speed: float = 1.0
    memory_mb: int = 0
    price: float = 0.0
    gpus: int = 0  # GPUs a job may ask for with --gres=gpu:N / --gpus-per-node
    features: tuple[str, ...] = ()  # what sbatch -C (--constraint) names

    def offers(self, features: str, gpus: int) -> bool:
        """Whether a job asking for ``features`` (sbatch -C: names joined by ``&``, all of
        them, and ``|``, any group; ``|`` binds looser) and ``gpus`` per node may use it."""
        if gpus > self.gpus:
            return False
        if not features:
            return True
        return any(
            all(name in self.features for name in group.split("&")) for group in features.split("|")
        )


@dataclass(frozen=True, slots=True)
class Partition:
    """A named set of a cluster's nodes with its time limits (Slurm's MaxTime / DefaultTime)."""

    name: str
    nodes: tuple[int, ...]  # local node indices
    default: bool = False
    max_time: float = math.inf
    default_time: float | None = None


@dataclass(frozen=True)
class Cluster:
    """A site: nodes, partitions and the capacity of its link to the central switch."""

    name: str
    index: int
    nodes: tuple[Node, ...]
    partitions: tuple[Partition, ...]
    link_capacity: float = math.inf

    @cached_property
    def cores(self) -> int:
        return sum(node.cores for node in self.nodes)

    @cached_property
    def default_partition(self) -> Partition:
        return next((p for p in self.partitions if p.default), self.partitions[0])

    def partition(self, name: str) -> Partition | None:
        return next((p for p in self.partitions if p.name == name), None)

    @cached_property
    def partition_sizes(self) -> dict[str, tuple[int, int, int]]:
        """Per partition: (cores, nodes, cores of its largest node), computed once, since every
        submission is checked against them."""
        sizes = {}
        for part in self.partitions:
            cores = [self.nodes[local].cores for local in part.nodes]
            sizes[part.name] = (sum(cores), len(cores), max(cores))
        return sizes

    @cached_property
    def min_speed(self) -> float:
        return min(node.speed for node in self.nodes)


@dataclass(frozen=True)
class Platform:
    """Clusters joined by links to one switch; the static part of the emulated world."""

    name: str
    clusters: tuple[Cluster, ...]
    bandwidth_unit: str = "Gbit/s"
    # the scheduler its own batch system runs (lab's slurm.conf: sched/backfill), the front
    # ends' default for it; None: batchlab's DEFAULT_SCHEDULER
    scheduler: str | None = None
    nodes: tuple[Node, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", tuple(n for c in self.clusters for n in c.nodes))

    def cluster(self, name: str) -> Cluster | None:
        return next((c for c in self.clusters if c.name == name), None)

    @cached_property
    def node_by_name(self) -> dict[str, Node]:
        return {node.name: node for node in self.nodes}

    @property
    def cores(self) -> int:
        return sum(c.cores for c in self.clusters)

    @classmethod
    def single_cluster(cls, cores: int, name: str = "cluster") -> Platform:
        """``cores`` single-core nodes of speed 1 in one partition: how traces are replayed."""
        width = max(len(str(cores)), 3)
        nodes = tuple(
            Node(id=i, name=f"n{i + 1:0{width}d}", cluster=0, local=i, cores=1)
            for i in range(cores)
        )
        partition = Partition("batch", tuple(range(cores)), default=True)
        return cls(name, (Cluster(name, 0, nodes, (partition,)),))
