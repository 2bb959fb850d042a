"""The job table's storage: growable columns a session writes in place, copied into an
immutable :class:`~emulator.session.snapshot.JobTable` for each snapshot."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from emulator.session.snapshot import IntArray, JobTable, frozen

__all__ = ["Columns"]


class Columns:
    """Growable numpy columns plus Python lists for text and node tuples: the rows of a
    :class:`~emulator.session.snapshot.JobTable` being kept up to date."""

    def __init__(self, capacity: int = 1024) -> None:
        self.n = 0
        self.capacity = capacity
        self.id = np.zeros(capacity, np.int64)
        self.slurm_id = np.zeros(capacity, np.int64)
        self.state = np.zeros(capacity, np.int8)
        self.cluster = np.zeros(capacity, np.int64)
        self.queue_cluster = np.zeros(capacity, np.int64)
        self.priority = np.zeros(capacity, np.int64)
        self.node_count = np.zeros(capacity, np.int64)
        self.cores = np.zeros(capacity, np.int64)
        self.submit = np.zeros(capacity, np.float64)
        self.start = np.zeros(capacity, np.float64)
        self.end = np.zeros(capacity, np.float64)
        self.expected_end = np.zeros(capacity, np.float64)
        self.planned_start = np.zeros(capacity, np.float64)
        self.time_limit = np.zeros(capacity, np.float64)
        self.label: list[str] = []
        self.name: list[str] = []
        self.user: list[str] = []
        self.partition: list[str] = []
        self.where: list[str] = []
        self.reason: list[str] = []
        self.explanation: list[str] = []
        self.nodes: list[tuple[int, ...]] = []
        self.planned_nodes: list[tuple[int, ...]] = []

    ARRAYS = (  # the numpy columns' names
        "id",
        "slurm_id",
        "state",
        "cluster",
        "queue_cluster",
        "priority",
        "node_count",
        "cores",
        "submit",
        "start",
        "end",
        "expected_end",
        "planned_start",
        "time_limit",
    )
    ONCE = ("id", "submit")  # the columns written once, when a job's row is made
    _LISTS = (
        "label",
        "name",
        "user",
        "partition",
        "where",
        "reason",
        "explanation",
        "nodes",
        "planned_nodes",
    )

    def extend(self, count: int) -> int:
        """Add ``count`` empty rows (zeros, empty strings and tuples); returns the first."""
        first, self.n = self.n, self.n + count
        if self.n > self.capacity:
            self.capacity = max(self.n, 2 * self.capacity)
            for name in self.ARRAYS:
                old = getattr(self, name)
                new = np.zeros(self.capacity, old.dtype)
                new[:first] = old[:first]
                setattr(self, name, new)
        else:  # (rows past n may hold what keep() left there)
            for name in self.ARRAYS:
                getattr(self, name)[first : self.n] = 0
        for name in self._LISTS:
            getattr(self, name).extend([() if name in ("nodes", "planned_nodes") else ""] * count)
        return first

    def keep(self, rows: IntArray) -> None:
        """Keep only ``rows`` (sorted), renumbered from 0."""
        n = int(rows.size)
        for name in self.ARRAYS:
            column = getattr(self, name)
            column[:n] = column[rows]
        for name in self._LISTS:
            column = getattr(self, name)
            setattr(self, name, [column[i] for i in rows.tolist()])
        self.n = n

    def table(self) -> JobTable:
        n = self.n

        def take(name: str) -> npt.NDArray[Any]:
            return frozen(getattr(self, name)[:n].copy())

        return JobTable(
            id=take("id"),
            slurm_id=take("slurm_id"),
            label=tuple(self.label),
            name=tuple(self.name),
            user=tuple(self.user),
            partition=tuple(self.partition),
            state=take("state"),
            cluster=take("cluster"),
            queue_cluster=take("queue_cluster"),
            priority=take("priority"),
            node_count=take("node_count"),
            where=tuple(self.where),
            cores=take("cores"),
            submit=take("submit"),
            start=take("start"),
            end=take("end"),
            expected_end=take("expected_end"),
            planned_start=take("planned_start"),
            time_limit=take("time_limit"),
            reason=tuple(self.reason),
            explanation=tuple(self.explanation),
            nodes=tuple(self.nodes),
            planned_nodes=tuple(self.planned_nodes),
        )
