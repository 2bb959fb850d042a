"""Which job each node shows: what the Nodes view colours a node by.

A node shows the latest started of the jobs running on it (of those that started together, the
highest id), or none (-1). :class:`Occupancy` keeps that up to date from batches of jobs that
started or ended, whatever their order within a batch. Each node has one slot per core (no two
jobs share a core, so the slots never run out); a batch is applied with a few numpy operations
over the nodes it touches, so its cost per job is about that of reading the job's node tuple:
placing jobs one node at a time in Python cost a daemon watched by a window 6 % of its time on
5,000 nodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

import numpy as np
import numpy.typing as npt

from emulator.model.job import Job, JobState
from emulator.model.platform import Platform

RUNNING = JobState.RUNNING  # bound once: enum attribute reads are slow on Python 3.11

IntArray = npt.NDArray[np.int64]


class Occupancy:
    """The jobs on each node of ``platform`` and the one each shows (:attr:`shown`)."""

    def __init__(self, platform: Platform) -> None:
        nodes = len(platform.nodes)
        slots = max((node.cores for node in platform.nodes), default=1)
        self._placed: dict[int, tuple[float, tuple[int, ...]]] = {}  # running: start, nodes
        self._job = np.full((nodes, slots), -1, np.int64)  # each slot's job id, -1 if free
        self._start = np.full((nodes, slots), -np.inf, np.float64)  # and when it started
        self.shown: IntArray = np.full(nodes, -1, np.int64)  # by platform node id

    def place(self, jobs: Iterable[Job]) -> None:
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
