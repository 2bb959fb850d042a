"""The job table of a session's snapshots, kept up to date one changed job at a time.

What squeue shows of a job comes from the controller (:meth:`JobViews.shown_reason
<emulator.slurmctld.job_views.JobViews.shown_reason>`, :meth:`~emulator.slurmctld.job_views.
JobViews.shown_priority`) and the formats (:func:`~emulator.slurm.formats.reason_shown`), as for
``squeue`` itself: the rows only store it, column by column, so that a snapshot copies arrays
instead of asking the controller about every job.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from emulator.model.job import FINISHED_STATES, Job, JobState, Reason
from emulator.occupancy import per_node
from emulator.session.columns import Columns
from emulator.session.snapshot import STATES, FloatArray, JobTable, Segments, frozen
from emulator.slurm.formats import SHOWS_REASON, reason_shown
from emulator.slurmctld.controller import Controller

__all__ = ["JobRows"]

_STATE_INDEX = {state: i for i, state in enumerate(STATES)}
# the numeric JobTable columns write() fills in one assignment each, in this order
_NUMERIC = tuple(name for name in Columns.ARRAYS if name not in Columns.ONCE)
_ASIDE = frozenset(  # pending reasons the engine changes without a hook: re-read every snapshot
    {
        Reason.NONE,
        Reason.DEPENDENCY,
        Reason.BEGIN_TIME,
        Reason.HELD_USER,
        Reason.HELD_ADMIN,
        Reason.ARRAY_TASK_LIMIT,
        Reason.PARTITION_TIME_LIMIT,
        Reason.PARTITION_NODE_LIMIT,
        Reason.PARTITION_CONFIG,
    }
)
_FINISHED_CODES = np.array(sorted(_STATE_INDEX[state] for state in FINISHED_STATES))
_STATE_COLUMN = _NUMERIC.index("state")
PENDING = JobState.PENDING  # bound once: enum attribute reads are slow on Python 3.11
# a reason's text made once: Enum.value is a slow property, and rows sharing one string object
# are cheaper to copy into a snapshot's tuples
_REASON_TEXT = {reason: reason.value for reason in Reason}


class JobRows:
    """The rows of the live jobs and of the ``keep_finished`` most recently finished ones, and
    the Gantt segments of their runs. :attr:`watch`: pending jobs whose row may change without
    an engine hook (their reason), for the session to re-read at every snapshot."""

    def __init__(self, controller: Controller, keep_finished: int) -> None:
        self.controller = controller
        self.keep_finished = keep_finished
        self.columns = Columns()
        self.row_of: dict[int, int] = {}  # engine id -> row
        self.watch: set[int] = set()
        self._finished_rows = 0
        self._segmented: dict[int, float] = {}  # job id -> start of the run it has segments of
        self._segments = np.zeros((4, 256), np.float64)  # row, lo, hi, start
        self._segment_count = 0

    def label(self, job: Job) -> str:
        """The job's id as ``squeue -r`` prints it: 12, 7_3."""
        array = job.request.array
        if array is not None:
            return f"{array.array_id}_{array.task_id}"
        record = self.controller.records.get(job.id)
        return str(job.id if record is None else record.slurm_id)

    def table(self) -> JobTable:
        return self.columns.table()

    def segments(self) -> Segments:
        seg = self._segments[:, : self._segment_count]
        return Segments(
            row=frozen(seg[0].astype(np.int64)),
            lo=frozen(seg[1].astype(np.int64)),
            hi=frozen(seg[2].astype(np.int64)),
            start=frozen(seg[3].copy()),
        )

    def write(self, changed: list[Job]) -> None:
        """Re-read the jobs' rows: text and node tuples one by one, numbers in one numpy
        assignment per column; then forget old finished rows beyond twice the number kept."""
        c = self.columns
        ctl = self.controller
        records = ctl.records
        clusters = ctl.platform.clusters
        watch = self.watch
        rows: list[int] = []
        numbers: list[tuple[float, ...]] = []
        # the runs that started since their rows were last read: rows, starts, nodes
        runs: tuple[list[int], list[float], list[tuple[int, ...]]] = ([], [], [])
        row_of = self.row_of
        new = [job for job in changed if job.id not in row_of]
        if new:  # what never changes: read once
            first = c.extend(len(new))
            row_of.update((job.id, first + k) for k, job in enumerate(new))
            c.id[first : c.n] = [job.id for job in new]
            c.submit[first : c.n] = [job.submit for job in new]
            c.label[first : c.n] = [self.label(job) for job in new]
        for job in changed:
            row = row_of[job.id]
            request = job.request
            state = job.state
            pending = state is PENDING
            record = records.get(job.id)
            if record is None:
                reason = job.reason
                home = max(job.cluster, 0)
                priority = 0
                slurm_id = job.id
                watched = pending and reason in _ASIDE
            else:  # what squeue shows: the controller's view of the job
                reason = ctl.views.shown_reason(record, job)
                slurm_id = record.slurm_id
                home = ctl.views.cluster_of(record)
                priority = ctl.views.shown_priority(record, reason)
                # (an unscheduled job's reason changes when time moves, without a hook)
                watched = pending and (job.reason in _ASIDE or ctl.views.unscheduled(record, job))
            cluster = clusters[home]
            nodes = job.nodes
            if nodes:
                low, size = cluster.nodes[0].id, len(cluster.nodes)
                if low <= min(nodes) and max(nodes) < low + size:  # (all of them, mostly)
                    shown = len(nodes)
                else:
                    shown = sum(1 for n in nodes if 0 <= n - low < size)
            else:
                shown = 0
            c.name[row] = request.name
            c.user[row] = request.user
            c.partition[row] = request.partition or cluster.default_partition.name
            # the node list is compressed only when shown: see queue.where()
            c.where[row] = reason_shown(state, reason) if state in SHOWS_REASON else ""
            c.reason[row] = _REASON_TEXT[reason]
            c.explanation[row] = job.explanation
            c.planned_nodes[row] = job.planned_nodes
            c.nodes[row] = nodes
            rows.append(row)
            numbers.append(
                (
                    slurm_id,
                    _STATE_INDEX[state],
                    job.cluster,
                    home,
                    priority,
                    shown or max(1, request.min_nodes),
                    job.cores,
                    job.start,
                    job.end,
                    job.expected_end,
                    job.planned_start,
                    request.time_limit,
                )
            )
            if watched:
                watch.add(job.id)
            else:
                watch.discard(job.id)
            start = job.start
            if nodes and start == start:  # started (not nan)
                run = self._segmented.get(job.id)
                if run != start:
                    if run is not None:  # an earlier run of a requeued job: not this row's now
                        live = self._segments[0, : self._segment_count]
                        live[live == row] = -1
                    self._segmented[job.id] = start
                    runs[0].append(row)
                    runs[1].append(start)
                    runs[2].append(nodes)
        if rows:
            index = np.array(rows, np.int64)
            table = np.array(numbers, np.float64)
            finished = np.isin(table[:, _STATE_COLUMN], _FINISHED_CODES).sum()
            self._finished_rows += int(finished - np.isin(c.state[index], _FINISHED_CODES).sum())
            for k, name in enumerate(_NUMERIC):
                column = getattr(c, name)
                column[index] = table[:, k].astype(column.dtype)
        if runs[0]:
            self._add_segments(_segments(*runs))
        if self._finished_rows > 2 * self.keep_finished + 64:
            self._compact()

    def _add_segments(self, segments: npt.NDArray[np.float64]) -> None:
        """Append segments given as a (4, n) array: rows, lows, highs, starts."""
        count = segments.shape[1]
        need = self._segment_count + count
        if need > self._segments.shape[1]:
            grown = np.zeros((4, max(need, 2 * self._segments.shape[1])), np.float64)
            grown[:, : self._segment_count] = self._segments[:, : self._segment_count]
            self._segments = grown
        self._segments[:, self._segment_count : need] = segments
        self._segment_count = need

    def _compact(self) -> None:
        """Forget the oldest finished jobs beyond ``keep_finished``."""
        c = self.columns
        n = c.n
        finished_rows = np.flatnonzero(np.isin(c.state[:n], _FINISHED_CODES))
        order = finished_rows[np.argsort(c.end[finished_rows], kind="stable")]
        drop = order[: max(0, order.size - self.keep_finished)]
        keep_mask = np.ones(n, bool)
        keep_mask[drop] = False
        keep = np.flatnonzero(keep_mask)
        remap = np.full(n, -1, np.int64)
        remap[keep] = np.arange(keep.size)
        dropped_ids = c.id[drop].tolist()
        c.keep(keep)
        self.row_of = {int(job_id): i for i, job_id in enumerate(c.id[: c.n].tolist())}
        for job_id in dropped_ids:
            self._segmented.pop(job_id, None)
        self._finished_rows -= int(drop.size)
        m = self._segment_count
        seg = self._segments[:, :m]
        rows = seg[0].astype(np.int64)
        alive = rows >= 0
        rows[alive] = remap[rows[alive]]
        kept = rows >= 0
        seg = seg[:, kept]
        seg[0] = rows[kept]
        self._segment_count = seg.shape[1]
        self._segments[:, : self._segment_count] = seg


def _segments(rows: list[int], starts: list[float], nodes: list[tuple[int, ...]]) -> FloatArray:
    """The Gantt segments of runs: each run's contiguous ranges of node ids, in run order, as a
    (4, n) array of rows, lowest and highest ids, and starts."""
    flat, counts = per_node(nodes)
    run = np.repeat(np.arange(len(nodes)), counts)
    key = run * (int(flat.max(initial=0)) + 1) + flat
    if np.any(key[1:] <= key[:-1]):  # each run's nodes in ascending order (-w may name any)
        order = np.argsort(key, kind="stable")
        flat, run = flat[order], run[order]
    first = np.flatnonzero(np.r_[True, (np.diff(flat) != 1) | (np.diff(run) != 0)])
    last = np.r_[first[1:], flat.size] - 1
    owner = run[first]
    return np.stack(
        [
            np.array(rows, np.float64)[owner],
            flat[first].astype(np.float64),
            flat[last].astype(np.float64),
            np.array(starts, np.float64)[owner],
        ]
    )
