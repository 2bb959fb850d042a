"""Which job each node shows: what the Nodes view colours a node by.

A node shows the latest started of the jobs running on it (of those that started together, the
highest id), or none (-1). :class:`Occupancy` keeps that up to date from batches of jobs that
started or ended, whatever their order within a batch. Each node has one slot per core (no two
jobs share a core, so the slots never run out); a batch is applied with a few numpy operations
over the nodes it touches, so its cost per job is about that of reading the job's node tuple:
placing jobs one node at a time in Python cost a daemon watched by a window 6 % of its time on
5,000 nodes.

A daemon leaves even that to its windows, which have a core to spare: its session records where
the jobs went (:class:`PlacementLog`, a tenth of the cost), and each window places, in an
:class:`Occupancy` of its own, the :class:`Placements` since the version it holds.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from emulator.model.job import JobState
from emulator.model.platform import Platform

RUNNING = JobState.RUNNING  # bound once: enum attribute reads are slow on Python 3.11
PENDING = JobState.PENDING

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
LOG_RECORDS = 200_000  # placement records a PlacementLog keeps (about 10 s of a big platform)


class Placed(Protocol):
    """Where a job is: a :class:`~emulator.model.job.Job`, or a :class:`Placement` of one."""

    @property
    def id(self) -> int: ...
    @property
    def state(self) -> JobState: ...
    @property
    def start(self) -> float: ...
    @property
    def nodes(self) -> tuple[int, ...]: ...


class Placement(NamedTuple):
    """Where a job was when it was recorded: running since ``start`` on ``nodes``, or not
    running (``state`` PENDING, whatever it was: only running matters here)."""

    id: int
    state: JobState
    start: float
    nodes: tuple[int, ...]


class Occupancy:
    """The jobs on each node of ``platform`` and the one each shows (:attr:`shown`)."""

    def __init__(self, platform: Platform) -> None:
        nodes = len(platform.nodes)
        slots = max((node.cores for node in platform.nodes), default=1)
        self._placed: dict[int, tuple[float, tuple[int, ...]]] = {}  # running: start, nodes
        self._job = np.full((nodes, slots), -1, np.int64)  # each slot's job id, -1 if free
        self._start = np.full((nodes, slots), -np.inf, np.float64)  # and when it started
        self.shown: IntArray = np.full(nodes, -1, np.int64)  # by platform node id

    def place(self, jobs: Iterable[Placed]) -> None:
        """Put each job where it is now: on its nodes while it runs (the run that started at
        ``job.start`` on ``job.nodes``), off them otherwise. Idempotent."""
        placed = self._placed
        gone_ids: list[int] = []
        gone_nodes: list[tuple[int, ...]] = []
        came_ids: list[int] = []
        came_starts: list[float] = []
        came_nodes: list[tuple[int, ...]] = []
        for job in jobs:
            job_id = job.id
            was = placed.get(job_id)
            running = job.state is RUNNING
            if was is not None:
                if running and was[0] == job.start and was[1] == job.nodes:
                    continue
                del placed[job_id]
                gone_ids.append(job_id)
                gone_nodes.append(was[1])
            if running and job.nodes:
                placed[job_id] = (job.start, job.nodes)
                came_ids.append(job_id)
                came_starts.append(job.start)
                came_nodes.append(job.nodes)
        if not gone_ids and not came_ids:
            return
        touched = np.zeros(len(self.shown), bool)
        if gone_ids:
            nodes, counts = per_node(gone_nodes)
            self._remove(np.repeat(np.array(gone_ids, np.int64), counts), nodes)
            touched[nodes] = True
        if came_ids:
            nodes, counts = per_node(came_nodes)
            ids = np.repeat(np.array(came_ids, np.int64), counts)
            self._add(ids, nodes, np.repeat(np.array(came_starts, np.float64), counts))
            touched[nodes] = True
        self._show(np.flatnonzero(touched))

    def shown_on(self, first: int, count: int) -> IntArray:
        """What nodes ``first`` to ``first + count - 1`` show, as a read-only copy."""
        shown = self.shown[first : first + count].copy()
        shown.flags.writeable = False
        return shown

    def _remove(self, ids: IntArray, nodes: IntArray) -> None:
        """Free the slots of job ``ids[i]`` on node ``nodes[i]``."""
        rows, slots = np.nonzero(self._job[nodes] == ids[:, None])
        self._job[nodes[rows], slots] = -1
        self._start[nodes[rows], slots] = -np.inf

    def _add(self, ids: IntArray, nodes: IntArray, starts: npt.NDArray[np.float64]) -> None:
        """Give job ``ids[i]``, started at ``starts[i]``, a free slot on node ``nodes[i]``."""
        order = np.argsort(nodes, kind="stable")
        by_node = nodes[order]
        first = np.flatnonzero(np.r_[True, by_node[1:] != by_node[:-1]])  # each node's first
        rank = np.arange(nodes.size) - np.repeat(first, np.diff(np.r_[first, nodes.size]))
        for round_ in range(int(rank.max()) + 1):  # one job per node and round
            chosen = order[rank == round_]
            at = nodes[chosen]
            slot = np.argmax(self._job[at] < 0, axis=1)  # the first free one
            self._job[at, slot] = ids[chosen]
            self._start[at, slot] = starts[chosen]

    def _show(self, nodes: IntArray) -> None:
        """Recompute what ``nodes`` show from their slots."""
        jobs, starts = self._job[nodes], self._start[nodes]
        latest = starts.max(axis=1)
        self.shown[nodes] = np.where(starts == latest[:, None], jobs, -1).max(axis=1)


def per_node(nodes: list[tuple[int, ...]]) -> tuple[IntArray, list[int]]:
    """Node tuples flattened into one array, and each tuple's length (to ``np.repeat`` what
    goes with each tuple once per node)."""
    counts = [len(each) for each in nodes]
    return np.fromiter(chain.from_iterable(nodes), np.int64, sum(counts)), counts


@dataclass(frozen=True, slots=True)
class Placements:
    """Jobs' placements, each job's latest (the snapshot wire format carries them): job
    ``ids[i]`` runs since ``starts[i]`` on ``nodes[i]``, or does not run (nan). ``reset``:
    these are every running job, to place on empty nodes."""

    ids: IntArray
    starts: FloatArray
    nodes: tuple[tuple[int, ...], ...]
    reset: bool

    def records(self) -> Iterator[Placement]:
        for job_id, start, nodes in zip(
            self.ids.tolist(), self.starts.tolist(), self.nodes, strict=True
        ):
            yield Placement(job_id, PENDING if math.isnan(start) else RUNNING, start, nodes)


class PlacementLog:
    """The placements of the jobs that started or ended, by the version at which they were
    recorded, for clients that place jobs themselves (a daemon's windows): recording a job
    costs about a tenth of placing it. The oldest records go once there are more than
    :data:`LOG_RECORDS`; a client that far behind gets every running job instead."""

    def __init__(self) -> None:
        self._batches: deque[tuple[int, list[int], list[float], list[tuple[int, ...]]]] = deque()
        self._records = 0
        self._floor = -1  # the last version whose records may be gone

    def add(self, version: int, jobs: Iterable[Placed]) -> None:
        """Record where ``jobs`` (each once) are, as of ``version``."""
        ids, starts, nodes = [], [], []
        for job in jobs:
            ids.append(job.id)
            if job.state is RUNNING and job.nodes:
                starts.append(job.start)
                nodes.append(job.nodes)
            else:
                starts.append(math.nan)
                nodes.append(())
        self._batches.append((version, ids, starts, nodes))
        self._records += len(ids)
        while self._records > LOG_RECORDS and len(self._batches) > 1:
            gone = self._batches.popleft()
            self._records -= len(gone[1])
            self._floor = gone[0]

    def since(self, version: int | None, jobs: Iterable[Placed]) -> Placements:
        """The records of the versions from ``version`` on (that version's again: placing is
        idempotent), or, if ``version`` is None or older than what is kept, every running job
        of ``jobs`` (the live jobs now)."""
        if version is None or version <= self._floor:
            running = [job for job in jobs if job.state is RUNNING and job.nodes]
            return Placements(
                np.array([job.id for job in running], np.int64),
                np.array([job.start for job in running], np.float64),
                tuple(job.nodes for job in running),
                reset=True,
            )
        recent = []
        for batch in reversed(self._batches):
            if batch[0] < version:
                break
            recent.append(batch)
        if len(recent) == 1:
            _, ids, starts, nodes = recent[0]
        else:  # a job's latest record alone: placing is by job, whatever the order
            latest: dict[int, tuple[float, tuple[int, ...]]] = {}
            for _, batch_ids, batch_starts, batch_nodes in reversed(recent):
                latest.update(
                    zip(batch_ids, zip(batch_starts, batch_nodes, strict=True), strict=True)
                )
            ids = list(latest)
            starts = [start for start, _ in latest.values()]
            nodes = [where for _, where in latest.values()]
        return Placements(
            np.array(ids, np.int64), np.array(starts, np.float64), tuple(nodes), reset=False
        )
