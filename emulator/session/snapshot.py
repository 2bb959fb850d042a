"""Snapshots: immutable, numpy-backed pictures of the platform at one simulated instant, which a
view draws without touching the engine. A :class:`~emulator.session.Session` makes them in
process; a daemon sends them over its socket (:mod:`emulator.daemon.snapshots`) to a
:class:`~emulator.remote.RemoteSession`: both sides share these types and nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from emulator.model.hostlist import compress
from emulator.model.job import JobState
from emulator.model.platform import Platform

__all__ = [
    "STATES",
    "ClusterSnapshot",
    "FloatArray",
    "IntArray",
    "JobTable",
    "LinkSnapshot",
    "LogEntry",
    "MetricSeries",
    "NodeLists",
    "NodeOut",
    "QueueTable",
    "Segments",
    "SmallIntArray",
    "Snapshot",
    "frozen",
    "node_columns",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
SmallIntArray = npt.NDArray[np.int32]
CodeArray = npt.NDArray[np.int8]

STATES: tuple[JobState, ...] = tuple(JobState)  # state codes in snapshots index this tuple
_STATE_CODE = {state: np.int8(i) for i, state in enumerate(STATES)}


def frozen(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``array``, read-only: a snapshot's arrays are shared, never changed."""
    array.flags.writeable = False
    return array


def node_columns(platform: Platform) -> list[tuple[tuple[str, ...], FloatArray, SmallIntArray]]:
    """Each cluster's fixed node columns, as its :class:`ClusterSnapshot` holds them: names,
    speeds, cores."""
    return [
        (
            tuple(node.name for node in cluster.nodes),
            frozen(np.array([node.speed for node in cluster.nodes], np.float64)),
            frozen(np.array([node.cores for node in cluster.nodes], np.int32)),
        )
        for cluster in platform.clusters
    ]


@dataclass(frozen=True, slots=True)
class NodeOut:
    """A node out of service (``scontrol update NodeName=… State=DRAIN|DOWN``)."""

    local: int  # the node's local index
    state: str  # "DRAIN" or "DOWN"
    reason: str
    user: str
    since: float  # simulated time it was taken out


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """One cluster's nodes now. Arrays are indexed by the node's local index."""

    name: str
    index: int
    first_node: int  # platform id of local node 0
    node_names: tuple[str, ...]
    speeds: FloatArray
    cores: SmallIntArray
    free: SmallIntArray  # free cores per node (out of service: those its jobs do not use)
    job: IntArray  # engine id of a job running on the node (the latest started), -1 if idle
    out_of_service: tuple[NodeOut, ...]  # drained and down nodes, by local index


@dataclass(frozen=True, slots=True)
class JobTable:
    """Jobs as columns: live ones and the most recently finished. Row ``i`` of every column is
    one job; ``state`` holds indices into :data:`STATES`."""

    id: IntArray  # engine id (Slurm's id, except for array tasks)
    slurm_id: IntArray  # the Slurm job id (an array task's own id once it started)
    label: tuple[str, ...]  # the id as ``squeue -r`` prints it: 12, 7_3
    name: tuple[str, ...]
    user: tuple[str, ...]
    partition: tuple[str, ...]  # as squeue prints it (the default partition if none asked)
    state: CodeArray
    cluster: IntArray  # where the engine has it: a cluster's queue or nodes, -1: grid queue
    queue_cluster: IntArray  # the cluster squeue -M lists it under
    priority: IntArray  # Slurm's priority (0 when held)
    node_count: IntArray  # squeue's NODES
    where: tuple[str, ...]  # squeue's NODELIST(REASON) if a (Reason), "": the node list (where())
    cores: IntArray
    submit: FloatArray
    start: FloatArray  # nan: not started
    end: FloatArray  # nan: not finished
    expected_end: FloatArray  # start + limit (inf while pending)
    planned_start: FloatArray  # nan: no reservation
    time_limit: FloatArray
    reason: tuple[str, ...]
    explanation: tuple[str, ...]
    nodes: tuple[tuple[int, ...], ...]  # platform node ids
    planned_nodes: tuple[tuple[int, ...], ...]

    def __len__(self) -> int:
        return len(self.label)

    def row(self, job_id: int) -> int | None:
        """Row of the job with engine id ``job_id``, or None."""
        hits = np.flatnonzero(self.id == job_id)
        return int(hits[0]) if hits.size else None

    def state_of(self, row: int) -> JobState:
        return STATES[int(self.state[row])]

    def code(self, state: JobState) -> int:
        """The code of ``state`` in :attr:`state` (for vectorised masks)."""
        return int(_STATE_CODE[state])


@dataclass(frozen=True, slots=True)
class Segments:
    """Node runs of started jobs, for Gantt charts: job ``row`` ran on platform nodes
    ``lo..hi`` (inclusive) from ``start``."""

    row: IntArray
    lo: IntArray
    hi: IntArray
    start: FloatArray

    def __len__(self) -> int:
        return int(self.row.size)


@dataclass(frozen=True, slots=True)
class LinkSnapshot:
    """A cluster's link to the switch: capacity, load now, and the load's history as steps
    (``used[i]`` holds from ``times[i]`` until the next time)."""

    cluster: str
    capacity: float
    used: float
    times: FloatArray
    values: FloatArray


@dataclass(frozen=True, slots=True)
class MetricSeries:
    """Metrics sampled by the session after each advance or step."""

    time: FloatArray
    utilization: FloatArray  # busy cores / all cores, now
    queue_length: FloatArray  # jobs waiting in a queue (not held or dependent ones)
    mean_wait: FloatArray  # over the jobs started so far
    mean_bounded_slowdown: FloatArray  # over the jobs finished so far (metrics.BOUND)


class LogEntry(NamedTuple):
    """One applied scheduler decision (a named tuple: made by the thousand, cheaply)."""

    seq: int  # increasing, for "entries since"
    time: float
    policy: str
    kind: str  # Start, Reserve, Route, Reject, Explain, Wake
    job_id: int  # engine id, -1 for Wake
    label: str  # the job as squeue shows it, "" for Wake
    text: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything a view draws, at one simulated instant."""

    version: int  # changes whenever anything else here may have changed
    now: float
    origin: float  # epoch second of simulated 0
    scheduler: str
    platform: str
    bandwidth_unit: str  # of link capacities and loads
    clusters: tuple[ClusterSnapshot, ...]
    jobs: JobTable
    segments: Segments
    links: tuple[LinkSnapshot, ...]
    metrics: MetricSeries
    events: tuple[LogEntry, ...]
    idle: bool  # nothing left to happen
    nodelist: NodeLists  # platform node ids -> host list text, memoised


class NodeLists:
    """Slurm host lists of node sets (``north[01-03]``), remembered: compressing is slow."""

    LIMIT = 20000

    def __init__(self, platform: Platform) -> None:
        self._names = tuple(node.name for node in platform.nodes)
        self._known: dict[tuple[int, ...], str] = {}

    def __call__(self, nodes: tuple[int, ...]) -> str:
        text = self._known.get(nodes)
        if text is None:
            if len(self._known) >= self.LIMIT:
                self._known.clear()
            names = self._names
            text = self._known[nodes] = compress(names[n] for n in nodes)
        return text


@dataclass(frozen=True, slots=True)
class QueueTable:
    """squeue's table: its headers and the stripped cells of each line, in squeue's order."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
