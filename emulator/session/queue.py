"""squeue's table as a window shows it: ``squeue -r -M all`` with the default columns uncut,
plus START, read from a snapshot's job table.

The cells are squeue's own: the job table stores what the controller shows of each job (see
:mod:`emulator.session.rows`), and the cells that need the clock are made by the same functions
the formats use (:func:`~emulator.slurm.formats.elapsed_seconds`,
:func:`~emulator.slurm.formats.shown_start`). :func:`queue_table` runs squeue itself, split at
its columns: the reference the cells are tested against, exact but slow on big queues.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from emulator.model.job import JobState
from emulator.session.snapshot import STATES, IntArray, JobTable, QueueTable, Snapshot
from emulator.slurm.formats import STATE_LONG, elapsed_seconds, shown_start
from emulator.slurm.timefmt import format_elapsed, format_timestamp
from emulator.slurmctld.controller import Controller

__all__ = ["QUEUE_HEADERS", "elapsed", "queue_cell", "queue_rows", "queue_table", "where"]

_QUEUE_FIELDS = (  # squeue's default columns (SQUEUE_DEFAULT) uncut, plus the start time
    ("JOBID", "%i"),
    ("PARTITION", "%P"),
    ("NAME", "%j"),
    ("USER", "%u"),
    ("ST", "%t"),
    ("TIME", "%M"),
    ("NODES", "%D"),
    ("NODELIST(REASON)", "%R"),
    ("START", "%S"),
)
QUEUE_HEADERS = tuple(name for name, _ in _QUEUE_FIELDS)
_SEP = "\x1f"  # between squeue fields in queue_table(): no job name or user contains it
# squeue sorts by the long state name: each state's rank among them
_LONG_RANK = np.array(
    [sorted(STATE_LONG.values()).index(STATE_LONG[state]) for state in STATES], np.int64
)
_SQUEUE_DEFAULT = (JobState.PENDING, JobState.RUNNING)


def queue_rows(jobs: JobTable, states: Iterable[JobState] = _SQUEUE_DEFAULT) -> IntArray:
    """Rows of the jobs ``squeue -r -M all`` lists (``states``: its ``-t``), in its order:
    cluster, partition, state name, priority (highest first), then Slurm id."""
    codes = [jobs.code(state) for state in states]
    rows = np.flatnonzero(np.isin(jobs.state, codes))
    if not rows.size:
        return rows.astype(np.int64)
    partition = jobs.partition  # ranked by name through a dict: np.unique on strings is slow
    names = sorted(set(partition))
    rank = {name: i for i, name in enumerate(names)}
    partition_rank = (
        np.fromiter((rank[partition[i]] for i in rows.tolist()), np.int64, count=int(rows.size))
        if len(names) > 1
        else np.zeros(rows.size, np.int64)
    )
    order = np.lexsort(
        (
            jobs.id[rows],  # the tasks of one array share a Slurm id: they list in task order
            jobs.slurm_id[rows],
            -jobs.priority[rows],
            _LONG_RANK[jobs.state[rows]],
            partition_rank,
            jobs.queue_cluster[rows],
        )
    )
    result: IntArray = rows[order].astype(np.int64)
    return result


def where(snapshot: Snapshot, row: int) -> str:
    """squeue's NODELIST(REASON) of job ``row``: ``(Reason)``, or its nodes on the cluster
    squeue lists it under."""
    jobs = snapshot.jobs
    text = jobs.where[row]
    if text:
        return text
    nodes = jobs.nodes[row]
    cluster = snapshot.clusters[int(jobs.queue_cluster[row])]
    first, size = cluster.first_node, len(cluster.node_names)
    if nodes and not all(0 <= n - first < size for n in nodes):
        nodes = tuple(n for n in nodes if 0 <= n - first < size)
    return snapshot.nodelist(nodes)


def queue_cell(snapshot: Snapshot, row: int, column: int) -> str:
    """Cell ``column`` (of :data:`QUEUE_HEADERS`) of job ``row`` as squeue prints it."""
    jobs, now, origin = snapshot.jobs, snapshot.now, snapshot.origin
    if column == 0:
        return jobs.label[row]
    if column == 1:
        return jobs.partition[row]
    if column == 2:
        return jobs.name[row]
    if column == 3:
        return jobs.user[row]
    state = STATES[int(jobs.state[row])]
    if column == 4:
        return state.value
    if column == 5:
        return format_elapsed(elapsed(jobs, row, now))
    if column == 6:
        return str(int(jobs.node_count[row]))
    if column == 7:
        return where(snapshot, row)
    if column == 8:
        start = shown_start(state, float(jobs.start[row]), float(jobs.planned_start[row]))
        return format_timestamp(start, origin, unset="N/A")
    raise IndexError(f"no queue column {column}")


def elapsed(jobs: JobTable, row: int, now: float) -> float:
    """squeue's TIME in seconds: how long the job has run (0 if it has not started)."""
    state = STATES[int(jobs.state[row])]
    return elapsed_seconds(state, float(jobs.start[row]), float(jobs.end[row]), now)


def queue_table(controller: Controller, user: str, states: str = "") -> QueueTable:
    """``squeue -r`` (array tasks one per line; all clusters) with the default columns, plus
    START (the start or planned start), as squeue's own output split at its columns, run as
    ``user``. ``states`` is squeue's ``-t``."""
    multi = len(controller.platform.clusters) > 1
    argv = ["squeue", "-h", "-r", "-o", _SEP.join(code for _, code in _QUEUE_FIELDS)]
    if multi:
        argv += ["-M", "all"]
    if states:
        argv += ["-t", states]
    result = controller.execute(argv, user=user)
    cluster = ""
    rows: list[tuple[str, ...]] = []
    for line in result.stdout.splitlines():
        if line.startswith("CLUSTER: "):
            cluster = line[len("CLUSTER: ") :]
            continue
        if not line:
            continue
        cells = tuple(cell.strip() for cell in line.split(_SEP))
        rows.append((cluster, *cells) if multi else cells)
    headers = ("CLUSTER", *QUEUE_HEADERS) if multi else QUEUE_HEADERS
    return QueueTable(headers, tuple(rows))
