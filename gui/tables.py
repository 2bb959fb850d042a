"""The Gantt chart and the metrics as CSV (File > Export … as CSV): what the views draw, as
numbers a spreadsheet or a plotting script reads. Times are simulated seconds and UTC clock times
as ``sacct`` prints them; node ranges are platform node names."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from emulator.model.job import JobState
from emulator.session import Snapshot
from emulator.slurm.timefmt import format_timestamp

GANTT_COLUMNS: tuple[str, ...] = (
    "job",
    "name",
    "user",
    "state",
    "first_node",
    "last_node",
    "start_s",
    "end_s",
    "start",
    "end",
)
METRIC_COLUMNS: tuple[str, ...] = (
    "time_s",
    "time",
    "utilization",
    "queue_length",
    "mean_wait_s",
    "mean_bounded_slowdown",
)


def gantt_rows(snapshot: Snapshot) -> list[tuple[str, ...]]:
    """A row per node run of a started job (the Gantt's rectangles), by start then node; a
    running job ends at the clock."""
    jobs, seg = snapshot.jobs, snapshot.segments
    names = [name for cluster in snapshot.clusters for name in cluster.node_names]
    running = jobs.code(JobState.RUNNING)
    rows: list[tuple[str, ...]] = []
    for k in np.lexsort((seg.lo, seg.start)).tolist():
        row = int(seg.row[k])
        if row < 0:
            continue
        start = float(seg.start[k])
        end = float(jobs.end[row])
        if int(jobs.state[row]) == running or math.isnan(end):
            end = snapshot.now
        rows.append(
            (
                jobs.label[row],
                jobs.name[row],
                jobs.user[row],
                jobs.state_of(row).value,
                names[int(seg.lo[k])],
                names[int(seg.hi[k])],
                f"{start:g}",
                f"{end:g}",
                format_timestamp(start, snapshot.origin),
                format_timestamp(end, snapshot.origin),
            )
        )
    return rows


def metric_rows(snapshot: Snapshot) -> list[tuple[str, ...]]:
    """A row per metrics sample."""
    m = snapshot.metrics
    return [
        (
            f"{float(t):g}",
            format_timestamp(float(t), snapshot.origin),
            f"{float(u):.6g}",
            f"{float(q):g}",
            f"{float(w):.6g}",
            f"{float(b):.6g}",
        )
        for t, u, q, w, b in zip(
            m.time,
            m.utilization,
            m.queue_length,
            m.mean_wait,
            m.mean_bounded_slowdown,
            strict=True,
        )
    ]


def write_csv(path: Path, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """``rows`` under ``header`` to ``path``. Raises OSError."""
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
