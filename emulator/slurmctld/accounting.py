"""Job accounting in SQLite: what ``sacct`` reads, kept across controller restarts.

The whole schema is here (:data:`SCHEMA`). One row per job record as Slurm accounts it: a plain
job, or one array task (``job_id`` is the raw id Slurm shows, ``array_id``/``task_id`` its place
in the array). Times are epoch seconds (``NULL`` when unset), so a store outlives the simulated
clock that wrote it.

The store is written at a clean stop, not at each event nor when read: :meth:`Controller.close
<emulator.slurmctld.controller.Controller.close>` writes every row (:meth:`Controller.sync
<emulator.slurmctld.controller.Controller.sync>`), so a file read with ``sqlite3`` after a clean
stop holds every job, and ``sacct`` reads :meth:`Controller.accounted
<emulator.slurmctld.controller.Controller.accounted>`: the rows stored final, and every other
record described from memory, writing nothing. Writing at every submission, start and end cost
more than the scheduling itself: a session with 10,000 queued jobs on 5,000 nodes ran 1.6 times
slower for it (three descriptions, SQLite writes and commits per job); and writing every
unfinished row on each ``sacct`` made a read cost seconds at 100,000 queued jobs.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emulator.model.job import ArrayTask, Job, JobState, Reason, Request

__all__ = ["SCHEMA", "Accounting", "JobRow"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    cluster       TEXT    NOT NULL,  -- cluster name (sacct -M)
    engine_id     INTEGER NOT NULL,  -- the emulator's id for the record
    job_id        INTEGER NOT NULL,  -- JobIDRaw as Slurm shows it
    array_id      INTEGER,           -- %A, NULL for plain jobs
    task_id       INTEGER,           -- %a
    array_max     INTEGER NOT NULL DEFAULT 0,
    name          TEXT    NOT NULL,
    user          TEXT    NOT NULL,
    uid           INTEGER NOT NULL,
    account       TEXT    NOT NULL,
    partition     TEXT    NOT NULL,
    state         TEXT    NOT NULL,  -- JobState name
    reason        TEXT    NOT NULL,  -- Reason name
    exit_code     INTEGER NOT NULL DEFAULT 0,
    exit_signal   INTEGER NOT NULL DEFAULT 0,
    cancelled_by  INTEGER NOT NULL DEFAULT 0,
    submit        REAL    NOT NULL,  -- epoch seconds
    start         REAL,
    end           REAL,
    time_limit    REAL,              -- seconds, NULL = UNLIMITED
    tasks         INTEGER NOT NULL,
    cpus_per_task INTEGER NOT NULL,
    min_nodes     INTEGER NOT NULL,
    nodes         TEXT    NOT NULL DEFAULT '',  -- node indices within the cluster, comma-joined
    node_cores    TEXT    NOT NULL DEFAULT '',
    work_dir      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (cluster, engine_id)
);
CREATE INDEX IF NOT EXISTS jobs_by_id ON jobs (cluster, job_id);
"""


@dataclass(slots=True)  # not frozen: sacct reads 100,000 of them, and a frozen __init__ is slower
class JobRow:
    """One accounting record, in simulated terms (see :meth:`Accounting.rows`)."""

    cluster: str
    engine_id: int
    job: Job  # a detached copy: id = raw Slurm id, nodes = indices within the cluster
    uid: int
    exit_signal: int
    cancelled_by: int
    work_dir: str


_INSERT = "INSERT OR REPLACE INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"


# By name, as stored: a dict reads in C, ``JobState[name]`` calls EnumType.__getitem__ in Python.
_STATES = {state.name: state for state in JobState}
_REASONS = {reason.name: reason for reason in Reason}


def _time(value: float, origin: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else origin + value


def _join(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values)


def _split(text: str) -> tuple[int, ...]:
    return tuple(map(int, text.split(","))) if text else ()


class Accounting:
    """The accounting store (slurmdbd's part). ``path=":memory:"`` keeps it in memory."""

    def __init__(self, path: str | Path = ":memory:", *, origin: float = 0.0) -> None:
        self.path = str(path)
        self.origin = origin
        self.db = sqlite3.connect(self.path)
        self.db.executescript(SCHEMA)
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    # --- writing and reading -----------------------------------------------------------------
    def write_all(self, rows: Iterable[JobRow]) -> None:
        self.db.executemany(_INSERT, map(self._values, rows))
        self.db.commit()

    def _values(self, row: JobRow) -> tuple[object, ...]:
        job, request = row.job, row.job.request
        array = request.array
        return (
            row.cluster,
            row.engine_id,
            job.id,
            array.array_id if array else None,
            array.task_id if array else None,
            array.max_running if array else 0,
            request.name,
            request.user,
            row.uid,
            request.account,
            request.partition,
            job.state.name,
            job.reason.name,
            job.exit_code,
            row.exit_signal,
            row.cancelled_by,
            self.origin + job.submit,
            _time(job.start, self.origin),
            _time(job.end, self.origin) if job.state.finished else None,
            None if math.isinf(request.time_limit) else request.time_limit,
            request.tasks,
            request.cpus_per_task,
            request.min_nodes,
            _join(job.nodes),
            _join(job.node_cores),
            row.work_dir,
        )

    def forget(self, cluster: str, engine_id: int) -> None:
        """Drop a record slurmctld never kept (a pending array task cancelled on its own)."""
        self.db.execute(
            "DELETE FROM jobs WHERE cluster = ? AND engine_id = ?", (cluster, engine_id)
        )
        self.db.commit()

    def max_job_id(self) -> int:
        """The highest raw job id recorded (0 if none): a restarted controller continues after."""
        value = self.db.execute("SELECT MAX(job_id) FROM jobs").fetchone()[0]
        return int(value or 0)

    def rows(self, cluster: str | None = None) -> list[JobRow]:
        """Every record (of ``cluster``), ordered by raw job id."""
        query = "SELECT * FROM jobs"
        params: tuple[str, ...] = ()
        if cluster is not None:
            query += " WHERE cluster = ?"
            params = (cluster,)
        query += " ORDER BY job_id, engine_id"
        requests: dict[tuple[Any, ...], Request] = {}
        return [self._row(values, requests) for values in self.db.execute(query, params)]

    def _row(self, values: tuple[Any, ...], requests: dict[tuple[Any, ...], Request]) -> JobRow:
        """A stored row as a :class:`JobRow` (SQLite gives each column its declared type).

        Requests are immutable and repeat across many rows (same user, name, size, limit), and
        a frozen one costs about 10 µs to build: equal ones are built once per read."""
        (
            cluster,
            engine_id,
            job_id,
            array_id,
            task_id,
            array_max,
            name,
            user,
            uid,
            account,
            partition,
            state,
            reason,
            exit_code,
            exit_signal,
            cancelled_by,
            submit,
            start,
            end,
            time_limit,
            tasks,
            cpus_per_task,
            min_nodes,
            nodes,
            node_cores,
            work_dir,
        ) = values
        origin = self.origin
        key = (
            name,
            user,
            account,
            partition,
            tasks,
            cpus_per_task,
            time_limit,
            min_nodes,
            array_id,
            task_id,
            array_max,
        )  # everything the request is built from
        request = requests.get(key)
        if request is None:
            request = requests[key] = Request(
                tasks=tasks,
                cpus_per_task=cpus_per_task,
                time_limit=math.inf if time_limit is None else time_limit,
                name=name,
                user=user,
                account=account,
                partition=partition,
                min_nodes=min_nodes,
                array=None if array_id is None else ArrayTask(array_id, task_id, array_max),
            )
        job = Job(
            job_id,
            submit - origin,
            request,
            state=_STATES[state],
            reason=_REASONS[reason],
            start=math.nan if start is None else start - origin,
            end=math.nan if end is None else end - origin,
            nodes=_split(nodes),
            node_cores=_split(node_cores),
            exit_code=exit_code,
        )
        return JobRow(cluster, engine_id, job, uid, exit_signal, cancelled_by, work_dir)
