"""The in-process client API: one emulated platform behind a small surface the GUI (and tests,
notebooks, benchmarks) drive.

A :class:`Session` (:mod:`.core`) wraps a :class:`~emulator.slurmctld.Controller`. It runs
console lines exactly as ``batchlab run`` does (:meth:`Session.command`, the words of
:mod:`emulator.shell`), feeds workloads (:mod:`.feed`), moves the simulated clock
(:meth:`Session.advance`, :meth:`Session.step`, :meth:`Session.run_until`, always in bounded
slices when asked to), switches the scheduler, and takes :class:`Snapshot` s (:mod:`.snapshot`):
immutable, numpy-backed pictures of the platform that a view can draw without touching the
engine, made of the job rows (:mod:`.rows`), the nodes (:mod:`.nodes`), the metrics
(:mod:`.metrics`) and the event log (:mod:`.events`). squeue's table is read from a snapshot
(:mod:`.queue`); :mod:`.demo` and :mod:`.opening` make the sessions a window opens.

Workload jobs get a Slurm record (id, user, priority) when they arrive, as if each had been
``sbatch``-ed at its submit time, so ``squeue`` and ``sacct`` show them like any other job.

:class:`Pacer` (re-exported from :mod:`emulator.pacing`) maps wall time to simulated time; it is
the only place that reads the wall clock.
"""

from emulator.pacing import Pacer
from emulator.session.core import Session
from emulator.session.demo import DEMO_PLATFORM, demo_session, demo_submissions
from emulator.session.opening import OpenError, open_session, read_workload
from emulator.session.queue import QUEUE_HEADERS, elapsed, queue_cell, queue_rows, where
from emulator.session.snapshot import (
    STATES,
    ClusterSnapshot,
    FloatArray,
    IntArray,
    JobTable,
    LinkSnapshot,
    LogEntry,
    MetricSeries,
    NodeLists,
    NodeOut,
    QueueTable,
    Segments,
    SmallIntArray,
    Snapshot,
    node_columns,
)
from emulator.slurmctld.controller import CommandResult

__all__ = [
    "DEMO_PLATFORM",
    "QUEUE_HEADERS",
    "STATES",
    "ClusterSnapshot",
    "CommandResult",
    "FloatArray",
    "IntArray",
    "JobTable",
    "LinkSnapshot",
    "LogEntry",
    "MetricSeries",
    "NodeLists",
    "NodeOut",
    "OpenError",
    "Pacer",
    "QueueTable",
    "Segments",
    "Session",
    "SmallIntArray",
    "Snapshot",
    "demo_session",
    "demo_submissions",
    "elapsed",
    "node_columns",
    "open_session",
    "queue_cell",
    "queue_rows",
    "read_workload",
    "where",
]
