"""The in-process client API: one emulated platform behind a small surface the GUI (and tests,
notebooks, benchmarks) drive.

A :class:`Session` wraps a :class:`~emulator.slurmctld.Controller`. It runs Slurm command lines
exactly as ``batchlab run`` does (:meth:`Session.command`), feeds workloads, moves the simulated
clock (:meth:`Session.advance`, :meth:`Session.step`, :meth:`Session.run_until`, always in
bounded slices when asked to), switches the scheduler, and takes :class:`Snapshot` s: immutable,
numpy-backed pictures of the platform that a view can draw without touching the engine.

Snapshots are cheap because the session keeps its own per-job rows. Engine hooks only note which
jobs changed (a dict store); the rows, the per-node occupancy and the Gantt segments are updated
for those jobs when the next snapshot is taken, so the cost of a snapshot is the number of jobs
that changed since the previous one plus a few numpy copies, not the number of jobs.

Workload jobs get a Slurm record (id, user, priority) when they arrive, as if each had been
``sbatch``-ed at its submit time, so ``squeue`` and ``sacct`` show them like any other job.

:class:`Pacer` (re-exported from :mod:`emulator.pacing`) maps wall time to simulated time;
it is the only place that reads the wall clock.
"""

from __future__ import annotations

import heapq
import math
import random
import shlex
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import count, islice
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from emulator.api.decisions import Decision, Explain, Reject, Reserve, Route, Start, Wake
from emulator.api.registry import available
from emulator.commandfile import CommandFileError, parse_sleep
from emulator.commandfile import Session as _CommandSession
from emulator.engine import Observer
from emulator.metrics import bounded_slowdown
from emulator.model.durations import DurationError, parse_duration
from emulator.model.hostlist import compress
from emulator.model.job import (
    FINISHED_STATES,
    Communication,
    Job,
    JobState,
    Reason,
    Request,
    Submission,
)
from emulator.model.platform import Platform
from emulator.occupancy import Occupancy, PlacementLog, Placements, per_node
from emulator.pacing import Pacer
from emulator.replay import Recorder, ReplayResult, result_files, save_files, used_links
from emulator.slurm.formats import REASON_SHOWN
from emulator.slurm.timefmt import format_elapsed, format_timestamp
from emulator.slurmctld.controller import DEFAULT_ORIGIN, CommandResult, Controller

__all__ = [
    "QUEUE_HEADERS",
    "STATES",
    "ClusterSnapshot",
    "CommandResult",
    "JobTable",
    "LinkSnapshot",
    "LogEntry",
    "MetricSeries",
    "NodeLists",
    "OpenError",
    "Pacer",
    "QueueTable",
    "Segments",
    "Session",
    "Snapshot",
    "demo_session",
    "demo_submissions",
    "elapsed",
    "open_session",
    "queue_cell",
    "queue_rows",
    "read_workload",
    "where",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
SmallIntArray = npt.NDArray[np.int32]
CodeArray = npt.NDArray[np.int8]

STATES: tuple[JobState, ...] = tuple(JobState)  # state codes in snapshots index this tuple
_STATE_CODE = {state: np.int8(i) for i, state in enumerate(STATES)}
_STATE_INDEX = {state: i for i, state in enumerate(STATES)}
# the numeric JobTable columns _write_rows fills in one assignment each, in this order
_NUMERIC = (
    "slurm_id",
    "state",
    "cluster",
    "queue_cluster",
    "priority",
    "node_count",
    "cores",
    "time_limit",
    "start",
    "end",
    "expected_end",
    "planned_start",
)
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
_HELD = frozenset((Reason.HELD_USER, Reason.HELD_ADMIN))
# a reason's text made once (and squeue's "(Reason)", REASON_SHOWN): Enum.value is a slow
# property, and rows sharing one string object are cheaper to copy into a snapshot's tuples
_REASON_TEXT = {reason: reason.value for reason in Reason}
_REASON_SHOWN = frozenset(
    {JobState.FAILED, JobState.TIMEOUT, JobState.DEADLINE, JobState.NODE_FAIL}
)
_SLICE = 256  # events per engine call in run_until: metrics are sampled between slices
_SEP = "\x1f"  # between squeue fields in queue_table(): no job name or user contains it
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


def _frozen(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.flags.writeable = False
    return array


# --- snapshot types ----------------------------------------------------------------------------


def node_columns(platform: Platform) -> list[tuple[tuple[str, ...], FloatArray, SmallIntArray]]:
    """Each cluster's fixed node columns, as its :class:`ClusterSnapshot` holds them: names,
    speeds, cores."""
    return [
        (
            tuple(node.name for node in cluster.nodes),
            _frozen(np.array([node.speed for node in cluster.nodes], np.float64)),
            _frozen(np.array([node.cores for node in cluster.nodes], np.int32)),
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


# --- the session -------------------------------------------------------------------------------


class _Columns:
    """Growable numpy columns plus Python lists for text and node tuples."""

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

    _ARRAYS = (
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
            for name in self._ARRAYS:
                old = getattr(self, name)
                new = np.zeros(self.capacity, old.dtype)
                new[:first] = old[:first]
                setattr(self, name, new)
        else:  # (rows past n may hold what keep() left there)
            for name in self._ARRAYS:
                getattr(self, name)[first : self.n] = 0
        for name in self._LISTS:
            getattr(self, name).extend([() if name in ("nodes", "planned_nodes") else ""] * count)
        return first

    def keep(self, rows: IntArray) -> None:
        """Keep only ``rows`` (sorted), renumbered from 0."""
        n = int(rows.size)
        for name in self._ARRAYS:
            column = getattr(self, name)
            column[:n] = column[rows]
        for name in self._LISTS:
            column = getattr(self, name)
            setattr(self, name, [column[i] for i in rows.tolist()])
        self.n = n

    def table(self) -> JobTable:
        n = self.n

        def take(name: str) -> npt.NDArray[Any]:
            return _frozen(getattr(self, name)[:n].copy())

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


class _Series:
    """Bounded metric samples: when full, every other sample is dropped (older ones thin out)."""

    FIELDS = 5

    def __init__(self, limit: int) -> None:
        self.limit = max(16, limit)
        self.data = np.zeros((self.FIELDS, self.limit), np.float64)
        self.n = 0

    def add(self, values: tuple[float, float, float, float, float]) -> bool:
        """Append a sample; True if older samples had to be thinned out to make room."""
        if self.n and self.data[0, self.n - 1] == values[0]:
            self.data[:, self.n - 1] = values  # the same instant: the latest sample wins
            return False
        thinned = self.n == self.limit
        if thinned:
            half = self.data[:, 1 : self.n : 2].copy()
            self.n = half.shape[1]
            self.data[:, : self.n] = half
        self.data[:, self.n] = values
        self.n += 1
        return thinned

    def last_time(self) -> float:
        """The simulated time of the last sample (-inf: none yet)."""
        return float(self.data[0, self.n - 1]) if self.n else -math.inf

    def series(self) -> MetricSeries:
        rows = [_frozen(self.data[i, : self.n].copy()) for i in range(self.FIELDS)]
        return MetricSeries(*rows)


class _Hooks(Observer):
    """The session's engine observer: notes what changed, nothing more (it runs per event)."""

    def __init__(self, session: Session) -> None:
        self.dirty = session._dirty
        self.to_place = session._to_place
        self.log = session._raw_log
        self.session = session
        self.clock = session.controller.engine.kernel

    def job_submitted(self, job: Job) -> None:
        self.dirty[job.id] = job

    def job_started(self, job: Job) -> None:
        self.dirty[job.id] = job
        self.to_place[job.id] = job
        self.session._waits += job.start - job.submit
        self.session._started += 1

    def job_ended(self, job: Job) -> None:
        self.dirty[job.id] = job
        self.to_place[job.id] = job
        if not math.isnan(job.start):
            self.session._ended_runs.append((job.start - job.submit, job.end - job.start))

    def decided(self, policy: str, decision: Decision) -> None:
        self.log.append((float(self.clock.now), policy, decision))
        if not isinstance(decision, Wake):
            job = decision.job
            self.dirty[job.id] = job


class Session:
    """One emulated platform, driven in-process.

    ``scheduler`` is a spec (``easy``, ``cbf``, ``coalloc+easy``...); ``origin`` the epoch second
    of simulated time 0. ``keep_finished``: how many finished jobs snapshots keep (the newest);
    ``log_length``: decisions kept for the event log; ``samples``: metric samples kept, taken
    at event times at least ``sample_every`` simulated seconds apart (the interval doubles when
    old samples are thinned), and at each snapshot, so that its metrics end at its time.
    ``controller``: wrap this existing controller (a daemon's) instead of making one; its jobs
    so far show at the first snapshot, and whoever runs commands on it directly calls
    :meth:`touched` after them.
    """

    def __init__(
        self,
        platform: Platform,
        scheduler: str = "easy",
        *,
        origin: float = DEFAULT_ORIGIN,
        user: str = "root",
        keep_finished: int = 5000,
        log_length: int = 2000,
        samples: int = 4096,
        sample_every: float = 60.0,
        controller: Controller | None = None,
    ) -> None:
        self.platform = platform
        if controller is None:
            controller = Controller(platform, scheduler, origin=origin)
        self.controller = controller
        self.engine = self.controller.engine
        self.user = user
        self.keep_finished = keep_finished
        self._script = _CommandSession(self.controller, name="<console>", user=user)
        # the workload heap: (submit time, sequence, submission, the stream it came from)
        self._pending: list[tuple[float, int, Submission, Iterator[Submission]]] = []
        self._seq = count()
        # commands run (command(), run_commands()), as ``batchlab run`` prints them; the newest
        self.transcript: deque[str] = deque(maxlen=1000)
        self.transcript_count = 0  # entries ever added (the deque drops the oldest)
        # what the hooks note
        self._dirty: dict[int, Job] = {}
        self._to_place: dict[int, Job] = {}  # started or ended since the nodes were last placed
        self._raw_log: deque[tuple[float, str, Decision]] = deque(maxlen=log_length)
        self._waits = 0.0
        self._started = 0
        self._ended_runs: list[tuple[float, float]] = []
        self._bsld_sum = 0.0
        self._ended = 0
        # what snapshots are made of
        self._rows: dict[int, int] = {}  # engine id -> row
        self._columns = _Columns()
        self._finished_rows = 0
        self._watch: set[int] = set()  # pending jobs whose reason may change without a hook
        self._recheck: set[int] = set()  # rows re-read after a command: once more after a move
        self._records_seen = 0
        self._segmented: dict[int, float] = {}  # job id -> start of the run it has segments of
        self._occupancy = Occupancy(platform)  # the job each node shows
        self._placement_log: PlacementLog | None = None  # see export_placements
        self._segments = np.zeros((4, 256), np.float64)  # row, lo, hi, start
        self._segment_count = 0
        self._log: deque[LogEntry] = deque(maxlen=log_length)
        self._log_seq = 0
        self._nodelists = NodeLists(platform)
        self._series = _Series(samples)
        self.sample_every = sample_every
        self._next_sample = 0.0
        self._version = 0
        self._snapshot: Snapshot | None = None
        self._nodes: tuple[int, tuple[ClusterSnapshot, ...]] | None = None  # version, clusters
        empty = _frozen(np.zeros(0, np.float64))
        self._histories = [(empty, empty) for _ in platform.clusters]  # see _link_history
        self._static = node_columns(platform)
        self.capacity = platform.cores
        self.engine.observe(_Hooks(self))
        # every finished job, as ``batchlab replay`` records them (for save_results)
        self._results = Recorder(platform, with_nodes=len(platform.clusters) > 1)
        self.engine.observe(self._results)
        self._sample()
        if controller.records:  # a wrapped controller's jobs so far
            self.touched()

    def touched(self) -> None:
        """Commands ran on the controller (not through :meth:`command`): re-read its jobs."""
        self._changed_everything()

    # --- state ---------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.engine.now

    @property
    def origin(self) -> float:
        return self.controller.origin

    @property
    def version(self) -> int:
        """The version the next :meth:`snapshot` will carry (cheap: no snapshot is taken)."""
        return self._version

    @property
    def scheduler(self) -> str:
        return str(self.engine.spec)

    @property
    def idle(self) -> bool:
        """Nothing left to happen: no event, no pass, no workload job still to arrive."""
        kernel = self.engine.kernel
        return self.engine.idle and not kernel.settle_pending and not self._pending

    def next_time(self) -> float:
        """Simulated time of the next event or workload arrival (``inf``: none)."""
        kernel = self.engine.kernel
        if kernel.settle_pending:
            return self.now
        return min(kernel.next_time(), self._pending[0][0] if self._pending else math.inf)

    # --- commands ------------------------------------------------------------------------------
    def command(
        self, line: str, user: str | None = None, stdin: str | None = None
    ) -> CommandResult:
        """Run one command line and return exactly what the CLI prints.

        Slurm commands (``sbatch``, ``squeue``, ``sinfo``, ``scancel``, ``scontrol``, ``sacct``,
        ...) run in the controller as the session's user (or ``user``). The command-file words
        work too: ``sleep 90``, ``@ 01:00:00``, ``wait``, ``as alice``, ``cd``, ``export``.
        ``stdin`` is the command's standard input (``sbatch``'s script when no file is named).
        The line and its output are added to :attr:`transcript` as ``batchlab run`` prints them
        (a ``stdin`` as the here-document that would give it).
        """
        words = line.split()
        if len(words) > 2 and words[0] == "as":
            user, line = words[1], line.split(None, 2)[2]
        who = user or self.user
        result = self._command(line, user, stdin)
        if not (len(words) == 2 and words[0] == "as"):
            prompt = "$" if who == "root" else f"{who}$"
            shown = line.strip()
            if stdin is not None:
                body = "".join(f"> {text}\n" for text in stdin.splitlines())
                shown = f"{shown} <<'EOF'\n{body}> EOF"
            text = f"{prompt} {shown}\n{result.stdout}{result.stderr}"
            if result.exit_code:
                text += f"[exit {result.exit_code}]\n"
            self._record(text)
        return result

    def _record(self, text: str) -> None:
        self.transcript.append(text)
        self.transcript_count += 1

    def _command(self, line: str, user: str | None, stdin: str | None) -> CommandResult:
        try:
            words = shlex.split(line, comments=True)
        except ValueError as error:
            return CommandResult("", f"batchlab: {error}\n", 2)
        if not words:
            return CommandResult()
        head = words[0]
        try:
            if head == "sleep" and len(words) == 2:
                self.advance(parse_sleep(words[1]))
                return CommandResult()
            if head == "@" and len(words) == 2:
                target = self._absolute(words[1])
                if target < self.now:
                    return CommandResult("", f"@: {words[1]} is before the current time\n", 1)
                self.run_until(target)
                return CommandResult()
        except (ValueError, DurationError) as error:
            return CommandResult("", f"{head}: {error}\n", 1)
        if head == "wait" and len(words) == 1:
            self.run_until(math.inf)
            return CommandResult()
        script = self._script
        if head == "as" and len(words) == 2:
            self.user = words[1]
        if head in ("as", "cd", "export", "unset") and (head != "as" or len(words) == 2):
            before = len(script.output)
            try:
                script.run(line + "\n")
            except ValueError as error:
                return CommandResult("", f"{error}\n", 1)
            del script.output[before:]  # the echo of the line: the console shows it itself
            return CommandResult()
        if head == "as" and len(words) > 2:  # (command() took "as NAME" off already)
            user, words = words[1], words[2:]
        result = self.controller.execute(
            words,
            user=user or self.user,
            env=dict(script.env),
            stdin=stdin,
            cwd=script.cwd,
        )
        self._changed_everything()
        return result

    def _absolute(self, text: str) -> float:
        if "T" in text:
            moment = datetime.fromisoformat(text.removesuffix("Z") + "+00:00")
            return moment.timestamp() - self.origin
        if text.count(":") == 1:
            hours, minutes = text.split(":")
            return float(int(hours) * 3600 + int(minutes) * 60)
        return parse_duration(text)

    def run_commands(self, text: str, name: str = "<commands>") -> str:
        """Run a whole command file (``batchlab run`` syntax) now; returns its transcript."""
        self._inject_due()
        script = _CommandSession(self.controller, name=name, user=self.user)
        try:
            return script.run(text)
        finally:
            self._record("".join(script.output))
            self._changed_everything()
            self._sample()

    def set_scheduler(self, spec: str) -> None:
        """Switch policies; the next scheduling pass uses them (raises SpecError if invalid)."""
        self.engine.set_scheduler(spec)
        self._version += 1

    @staticmethod
    def schedulers() -> dict[str, str]:
        """Registered policy names with a one-line description."""
        return available()

    # --- results -------------------------------------------------------------------------------
    def results(self) -> ReplayResult:
        """The jobs finished so far, recorded and summarised as ``batchlab replay`` does
        (node lists and clusters per job on a multi-cluster platform)."""
        recorder = self._results
        links = used_links(self.engine, min(recorder.submit, default=0.0))
        return ReplayResult(recorder, recorder.summary(), links)

    def result_files(self) -> dict[str, str]:
        """``jobs.csv`` and ``summary.json`` of the jobs finished so far, as ``batchlab
        replay`` writes them, by file name (a daemon sends them to a window to save)."""
        about = {
            "scheduler": self.scheduler,
            "platform": self.platform.name,
            "cores": self.platform.cores,
            "now": self.now,
        }
        return result_files(self.results(), about)

    def save_results(self, directory: Path) -> None:
        """Write :meth:`result_files` into ``directory`` (OSError if it cannot)."""
        save_files(directory, self.result_files())

    # --- workloads -----------------------------------------------------------------------------
    def submit_workload(self, submissions: Iterable[Submission]) -> None:
        """Feed a workload: each job is submitted (given a Slurm id and record, like ``sbatch``)
        when the clock reaches its submit time. Streamed: jobs are pulled as time goes."""
        self._pull(iter(submissions))
        self._version += 1

    def _pull(self, source: Iterator[Submission]) -> None:
        item = next(source, None)
        if item is not None:
            at = max(item.submit, self.now)
            heapq.heappush(self._pending, (at, next(self._seq), item, source))

    def _inject_due(self) -> None:
        """Submit the workload jobs whose time has come (the clock is at their submit time)."""
        pending = self._pending
        while pending and pending[0][0] <= self.now:
            _, _, item, source = heapq.heappop(pending)
            self._add(item)
            self._pull(source)

    def _add(self, item: Submission) -> None:
        ctl = self.controller
        request = item.request
        user = request.user
        job_id = ctl._new_id()
        ctl.add_job(
            request,
            item.runtime,
            ctx_user=user,
            work_dir="/",
            stdout="",
            stderr="",
            script="",
            command="(null)",
            exit_code=0,
            cluster=0,
            job_id=job_id,
            dependency=None,
        )

    # --- time ----------------------------------------------------------------------------------
    def run_until(self, until: float, max_events: int | None = None) -> int:
        """Run to simulated time ``until`` (``inf``: until nothing is left), or until
        ``max_events`` events have been processed; returns how many were."""
        engine, kernel = self.engine, self.engine.kernel
        done = 0
        while max_events is None or done < max_events:
            budget = _SLICE if max_events is None else min(_SLICE, max_events - done)
            arrival = self._pending[0][0] if self._pending else math.inf
            stop = min(until, arrival)
            processed = engine.run(until=stop, max_events=budget)
            done += processed
            if self.now >= self._next_sample:
                self._sample()  # between slices, so samples fall right after events
            upcoming = kernel.next_time()
            if math.isinf(stop):
                reached = math.isinf(upcoming)  # nothing is left to happen
            else:
                reached = upcoming > stop and self.now >= stop
            if not reached:
                continue  # the slice ended before ``stop``: another one (if within max_events)
            if self._pending and arrival <= stop:
                self._inject_due()
                continue
            break  # reached ``until`` (or, for ``inf``, nothing is left to happen)
        self._moved()
        return done

    def advance(self, seconds: float, max_events: int | None = None) -> int:
        """Run ``seconds`` of simulated time (see :meth:`run_until`)."""
        return self.run_until(self.now + max(0.0, seconds), max_events)

    def step(self) -> bool:
        """One kernel step: exactly one event (a completion, an arrival, a timer), followed by
        the scheduling pass of its instant when it was the instant's last event; or that pass
        alone when it is pending. False when nothing is left to happen."""
        engine, kernel = self.engine, self.engine.kernel
        if not (kernel.settle_pending and kernel.next_time() > self.now):
            arrival = self._pending[0][0] if self._pending else math.inf
            if arrival < kernel.next_time():
                engine.run(until=arrival)  # no event before it: only the clock moves
                self._inject_due()
        stepped = engine.step()
        self._moved()
        return stepped

    def _moved(self) -> None:
        if self._recheck:
            jobs = self.engine.jobs
            for job_id in self._recheck:
                job = jobs.get(job_id)
                if job is not None:
                    self._dirty[job_id] = job
                    self._to_place[job_id] = job
            self._recheck.clear()
        self._version += 1
        if self.now >= self._next_sample:  # (a daemon runs an instant at a time: sampling
            self._sample()  # every one cost it 8 % of its time; a snapshot samples the last)

    # --- metrics -------------------------------------------------------------------------------
    def _sample(self) -> None:
        """Record the metrics now; at most one sample per ``sample_every`` simulated seconds
        is taken inside a long run (the interval doubles whenever old samples are thinned)."""
        engine = self.engine
        self._next_sample = self.now + self.sample_every
        busy = self.capacity - sum(state.free_cores for state in engine.clusters)
        queued = sum(len(state.waiting) for state in engine.clusters) + len(engine.grid.waiting)
        if self._ended_runs:
            runs = np.array(self._ended_runs, np.float64)
            self._bsld_sum += float(bounded_slowdown(runs[:, 0], runs[:, 1]).sum())
            self._ended += len(self._ended_runs)
            self._ended_runs.clear()
        if self._series.add(
            (
                self.now,
                busy / self.capacity if self.capacity else 0.0,
                float(queued),
                self._waits / self._started if self._started else 0.0,
                self._bsld_sum / self._ended if self._ended else 0.0,
            )
        ):
            self.sample_every *= 2

    # --- snapshots -----------------------------------------------------------------------------
    def _changed_everything(self) -> None:
        """After a command anything may have changed (holds, updates, requeues): re-read every
        live row at the next snapshot."""
        jobs = self.engine.jobs
        for job_id in self._rows:
            job = jobs.get(job_id)
            if job is not None and not job.state.finished:
                self._dirty[job_id] = job
                self._recheck.add(job_id)
        records = self.controller.records
        new = list(islice(reversed(records), len(records) - self._records_seen))
        for job_id in reversed(new):
            job = jobs.get(job_id)  # submitted now: its arrival is not processed yet
            if job is not None:
                self._dirty[job_id] = job
                self._recheck.add(job_id)
        self._records_seen = len(records)
        self._to_place.update(self._dirty)
        self._version += 1

    def snapshot(self) -> Snapshot:
        """The platform now, as immutable arrays. Cheap when little changed since the last."""
        if self._snapshot is not None and self._snapshot.version == self._version:
            return self._snapshot
        self._refresh()
        if self._series.last_time() < self.now:
            self._sample()  # the metrics up to now
        engine = self.engine
        clusters = self._clusters()
        network = engine.network
        links = []
        for k, cluster in enumerate(self.platform.clusters):
            times, values = self._link_history(k)
            links.append(
                LinkSnapshot(
                    cluster=cluster.name,
                    capacity=network.capacity[k],
                    used=network.used[k],
                    times=times,
                    values=values,
                )
            )
        m = self._segment_count
        seg = self._segments[:, :m]
        segments = Segments(
            row=_frozen(seg[0].astype(np.int64)),
            lo=_frozen(seg[1].astype(np.int64)),
            hi=_frozen(seg[2].astype(np.int64)),
            start=_frozen(seg[3].copy()),
        )
        snapshot = Snapshot(
            version=self._version,
            now=self.now,
            origin=self.origin,
            scheduler=self.scheduler,
            platform=self.platform.name,
            bandwidth_unit=self.platform.bandwidth_unit,
            clusters=clusters,
            jobs=self._columns.table(),
            segments=segments,
            links=tuple(links),
            metrics=self._series.series(),
            events=tuple(self._log),
            idle=self.idle,
            nodelist=self._nodelists,
        )
        self._snapshot = snapshot
        return snapshot

    def nodes_snapshot(self) -> tuple[ClusterSnapshot, ...]:
        """The clusters' nodes now: what :meth:`snapshot` would hold as ``clusters``, for a
        fraction of its cost. It places the jobs that started or ended since on their nodes
        and reads nothing else: the rows of the jobs that changed wait for the next snapshot
        (a job that changes again by then is read once), and the job table, whose text
        columns are O(jobs) tuples, is not copied. For a view that draws the nodes more often
        than anything else."""
        self._place_moved()
        return self._clusters()

    def _place_moved(self) -> None:
        """Place the jobs that started or ended since the last call (or record them, see
        :meth:`export_placements`)."""
        if self._to_place:
            if self._placement_log is None:
                self._occupancy.place(self._to_place.values())
            else:
                self._placement_log.add(self._version, self._to_place.values())
            self._to_place.clear()

    def export_placements(self) -> None:
        """Leave placing jobs on nodes to the clients (a daemon's windows, which have a core to
        spare): from now on the jobs that started or ended are recorded for
        :meth:`placements_since` instead, and the clusters of snapshots show no job."""
        if self._placement_log is None:
            self._placement_log = PlacementLog()
            self._occupancy = Occupancy(self.platform)
            self._version += 1

    def placements_since(self, version: int | None) -> Placements:
        """The placements recorded from ``version`` on (every running job if ``version`` is
        None or too old), after :meth:`export_placements`."""
        log = self._placement_log
        if log is None:
            raise RuntimeError("placements are exported only after export_placements()")
        self._place_moved()
        return log.since(version, self.engine.jobs.values())

    def _clusters(self) -> tuple[ClusterSnapshot, ...]:
        """Each cluster's nodes from the occupancy as it is (made once per version)."""
        made = self._nodes
        if made is not None and made[0] == self._version:
            return made[1]
        clusters = []
        out: dict[int, list[NodeOut]] = {}
        nodes = self.platform.nodes
        for node_id, status in sorted(self.engine.node_status.items()):
            node = nodes[node_id]
            out.setdefault(node.cluster, []).append(
                NodeOut(node.local, status.state.value, status.reason, status.user, status.since)
            )
        for k, state in enumerate(self.engine.clusters):
            names, speeds, cores = self._static[k]
            free = state.node_free
            free_array = (
                np.frombuffer(bytes(free), np.uint8).astype(np.int32)
                if isinstance(free, bytearray)
                else np.array(free, np.int32)
            )
            for local, withheld in state.withheld.items():  # cores out of service, not busy
                free_array[local] = withheld
            first = state.first_id
            clusters.append(
                ClusterSnapshot(
                    name=state.cluster.name,
                    index=k,
                    first_node=first,
                    node_names=names,
                    speeds=speeds,
                    cores=cores,
                    free=_frozen(free_array),
                    job=self._occupancy.shown_on(first, len(names)),
                    out_of_service=tuple(out.get(k, ())),
                )
            )
        result = tuple(clusters)
        self._nodes = (self._version, result)
        return result

    def _link_history(self, k: int) -> tuple[FloatArray, FloatArray]:
        """Link ``k``'s load history as (times, values) arrays. The engine's list only grows
        (its last step may be rewritten at the same instant): only the steps from the last one
        seen are converted, and unchanged arrays are shared by the snapshots."""
        record = self.engine.network.history[k]
        times, values = self._histories[k]
        seen = times.size
        if seen == len(record) and seen and record[-1] == (times[-1], values[-1]):
            return times, values
        start = max(0, seen - 1)
        new = np.array(record[start:], np.float64).reshape(-1, 2)
        times = _frozen(np.concatenate([times[:start], new[:, 0]]))
        values = _frozen(np.concatenate([values[:start], new[:, 1]]))
        self._histories[k] = (times, values)
        return times, values

    def _refresh(self) -> None:
        """Bring the rows, occupancy, segments and log up to date with the engine."""
        dirty = self._dirty
        jobs = self.engine.jobs
        for job_id in list(self._watch):
            job = jobs.get(job_id)
            if job is not None:
                dirty[job_id] = job
        self._place_moved()
        if dirty:
            self._write_rows(list(dirty.values()))
            dirty.clear()
        self._format_log()
        if self._finished_rows > 2 * self.keep_finished + 64:
            self._compact()

    def _label(self, job: Job) -> str:
        array = job.request.array
        if array is not None:
            return f"{array.array_id}_{array.task_id}"
        record = self.controller.records.get(job.id)
        return str(job.id if record is None else record.slurm_id)

    def _write_rows(self, changed: list[Job]) -> None:
        """Re-read the jobs' rows: text and node tuples one by one, numbers in one numpy
        assignment per column."""
        c = self._columns
        ctl = self.controller
        records = ctl.records
        clusters = self.platform.clusters
        now = self.now
        watch = self._watch
        rows: list[int] = []
        numbers: list[tuple[float, ...]] = []
        # the runs that started since their rows were last read: rows, starts, nodes
        runs: tuple[list[int], list[float], list[tuple[int, ...]]] = ([], [], [])
        row_of = self._rows
        new = [job for job in changed if job.id not in row_of]
        if new:  # what never changes: read once
            first = c.extend(len(new))
            row_of.update((job.id, first + k) for k, job in enumerate(new))
            c.id[first : c.n] = [job.id for job in new]
            c.submit[first : c.n] = [job.submit for job in new]
            c.label[first : c.n] = [self._label(job) for job in new]
        for job in changed:
            row = row_of[job.id]
            request = job.request
            state = job.state
            pending = state is PENDING
            # what squeue shows: the controller's view of the job (Controller.view), by field
            record = records.get(job.id)
            reason = job.reason
            watched = pending and reason in _ASIDE
            if record is None:
                home = max(job.cluster, 0)
                priority = 0
                slurm_id = job.id
            else:
                slurm_id = record.slurm_id
                home = ctl.cluster_of(record)
                if pending and (record.released_at == now or job.cluster < 0):
                    watched = True  # changes when time moves, without a hook
                    if reason in (Reason.PRIORITY, Reason.NONE):
                        reason = Reason.NONE
                    if reason is Reason.NONE and math.isnan(record.released_at):
                        reason = Controller._submit_reason(request, clusters[home])
                priority = 0 if reason in _HELD else record.priority
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
            where = ""  # the node list, compressed only when shown: see where()
            if pending or state in _REASON_SHOWN:
                if state is JobState.FAILED and reason is Reason.NONE:
                    where = "(NonZeroExitCode)"
                elif state is JobState.TIMEOUT and reason is Reason.NONE:
                    where = "(TimeLimit)"
                else:
                    where = REASON_SHOWN[reason]
            c.name[row] = request.name
            c.user[row] = request.user
            c.partition[row] = request.partition or cluster.default_partition.name
            c.where[row] = where
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
                    request.time_limit,
                    job.start,
                    job.end,
                    job.expected_end,
                    job.planned_start,
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
        c = self._columns
        n = c.n
        state = c.state[:n]
        finished = np.isin(state, [_STATE_CODE[s] for s in STATES if s.finished])
        finished_rows = np.flatnonzero(finished)
        order = finished_rows[np.argsort(c.end[finished_rows], kind="stable")]
        drop = order[: max(0, order.size - self.keep_finished)]
        keep_mask = np.ones(n, bool)
        keep_mask[drop] = False
        keep = np.flatnonzero(keep_mask)
        remap = np.full(n, -1, np.int64)
        remap[keep] = np.arange(keep.size)
        dropped_ids = c.id[drop].tolist()
        c.keep(keep)
        self._rows = {int(job_id): i for i, job_id in enumerate(c.id[: c.n].tolist())}
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

    def _format_log(self) -> None:
        raw = self._raw_log
        while raw:
            time, policy, decision = raw.popleft()
            self._log_seq += 1
            if isinstance(decision, Wake):
                self._log.append(
                    LogEntry(
                        self._log_seq, time, policy, "Wake", -1, "", f"wake at {decision.at:g}"
                    )
                )
                continue
            job = decision.job
            self._log.append(
                LogEntry(
                    self._log_seq,
                    time,
                    policy,
                    type(decision).__name__,
                    job.id,
                    self._label(job),
                    _describe(decision, self.platform),
                )
            )

    # --- squeue ----------------------------------------------------------------------------------
    def queue_table(self, states: str = "") -> QueueTable:
        """``squeue -r`` (array tasks one per line; all clusters) with the default columns,
        plus START (the start or planned start), as squeue's own output split at its columns.

        Exact but slow on big queues (the controller re-reads every job): views should use
        :attr:`Snapshot.jobs`, which carries the same cells. ``states`` is squeue's ``-t``.
        """
        multi = len(self.platform.clusters) > 1
        argv = ["squeue", "-h", "-r", "-o", _SEP.join(code for _, code in _QUEUE_FIELDS)]
        if multi:
            argv += ["-M", "all"]
        if states:
            argv += ["-t", states]
        result = self.controller.execute(argv, user=self.user)
        headers = tuple(name for name, _ in _QUEUE_FIELDS)
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
        if multi:
            headers = ("CLUSTER", *headers)
        return QueueTable(headers, tuple(rows))


# --- squeue's table from a snapshot ----------------------------------------------------------

QUEUE_HEADERS = tuple(name for name, _ in _QUEUE_FIELDS)
_LONG_NAMES = {
    state: ("NODE_FAIL" if state is JobState.NODE_FAIL else state.name) for state in STATES
}
_LONG_RANK = np.array(
    [sorted(_LONG_NAMES.values()).index(_LONG_NAMES[state]) for state in STATES], np.int64
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
        start = jobs.planned_start[row] if state is JobState.PENDING else jobs.start[row]
        return format_timestamp(float(start), origin, unset="N/A")
    raise IndexError(f"no queue column {column}")


def elapsed(jobs: JobTable, row: int, now: float) -> float:
    """squeue's TIME in seconds: how long the job has run (0 if it has not started)."""
    state = STATES[int(jobs.state[row])]
    start = float(jobs.start[row])
    if math.isnan(start) or state is JobState.PENDING:
        return 0.0
    end = float(jobs.end[row])
    return max(0.0, (end if state.finished and not math.isnan(end) else now) - start)


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


def _describe(decision: Decision, platform: Platform) -> str:
    """A decision in one line, for the event log."""
    if isinstance(decision, Start):
        where = f" on {len(decision.nodes)} nodes" if decision.nodes else ""
        text = f"start{where}"
    elif isinstance(decision, Reserve):
        text = f"reserve for t={decision.start:g}"
    elif isinstance(decision, Route):
        text = f"route to {platform.clusters[decision.cluster].name}"
    elif isinstance(decision, Reject):
        return f"reject: {decision.reason}"
    elif isinstance(decision, Explain):
        return (
            f"{decision.reason.value}: {decision.text}" if decision.text else decision.reason.value
        )
    else:
        return repr(decision)
    explanation = decision.explanation
    return f"{text}: {explanation}" if explanation else text


# --- the demo ------------------------------------------------------------------------------------


def demo_submissions(count: int = 300, seed: int = 7) -> Iterator[Submission]:
    """A seeded mixed workload for the teaching platform (3 sites, 72 cores): many short narrow
    jobs, some medium ones, a few wide long bulk-synchronous ones (they load the links when a
    grid policy spreads them); limits overestimate runtimes 1-3x; offered load about 0.8."""
    rng = random.Random(seed)
    now = 0.0
    users = ("alice", "bob", "carol", "dave", "erin")
    for job_id in range(1, count + 1):
        now += rng.expovariate(1 / 240.0)  # an offered load of about 0.8
        kind = rng.random()
        if kind < 0.6:
            tasks, runtime, name = rng.randint(1, 4), rng.uniform(60, 900), "short"
        elif kind < 0.9:
            tasks, runtime, name = rng.randint(4, 12), rng.uniform(600, 3600), "medium"
        else:
            tasks, runtime, name = rng.randint(12, 24), rng.uniform(1800, 7200), "wide"
        limit = math.ceil(runtime * rng.uniform(1.0, 3.0) / 60) * 60
        # wide jobs are bulk-synchronous: spread over sites by a co-allocating policy
        # (coalloc), they load the links and slow down when a link saturates
        bsp = Communication(round(runtime), sigma=0.7, task_bw=0.8) if name == "wide" else None
        request = Request(
            tasks=tasks,
            time_limit=limit,
            name=f"{name}{job_id}",
            user=users[job_id % len(users)],
            communication=bsp,
        )
        yield Submission(job_id, round(now), request, round(runtime))


DEMO_PLATFORM = "teaching-3sites"  # the shipped platform of the demo


def demo_session(scheduler: str = "easy", *, count: int = 300, seed: int = 7) -> Session:
    """The teaching platform (``teaching-3sites``) under ``scheduler`` with a seeded mixed
    workload, plus an array and a dependent job submitted with ``sbatch`` at time 0."""
    from emulator.model.platform_file import load_platform
    from resources import platform_path

    session = Session(load_platform(platform_path(DEMO_PLATFORM)), scheduler)
    session.command('sbatch -J sweep -a 1-6%3 -n 2 -t 20 --wrap "sleep 600"', user="alice")
    session.command('sbatch -J prep -n 4 -t 10 --wrap "sleep 300"', user="bob")
    session.command('sbatch -J post -d afterok:2 -n 8 -t 30 --wrap "sleep 900"', user="bob")
    session.submit_workload(demo_submissions(count, seed))
    return session


# --- opening files -------------------------------------------------------------------------------


class OpenError(ValueError):
    """A workload or command file a session cannot use; the message names the file and why."""


def read_workload(path: Path, platform: Platform) -> Iterator[Submission]:
    """The submissions of an SWF trace (``.swf``, ``.swf.gz``; replay rules, jobs larger than
    the largest cluster left out) or of a BSP CSV workload (``.csv``), streamed.

    The file is read through once first (about 0.5 s for KTH-SP2's 28,000 jobs), so that a bad
    line raises :class:`OpenError` now rather than when the clock reaches it."""
    from workloads.bsp_csv import BspCsvError, read_bsp_csv
    from workloads.swf import Dropped, SwfError, SwfTrace, submissions

    if not path.is_file():
        raise OpenError(f"no such workload file: {path}")

    def stream() -> Iterator[Submission]:
        if path.suffix.lower() == ".csv":
            return read_bsp_csv(path)
        largest = max(cluster.cores for cluster in platform.clusters)
        return submissions(SwfTrace(path), largest, Dropped())

    try:
        for _ in stream():
            pass
    except (SwfError, BspCsvError) as error:  # the message names the file and line
        raise OpenError(str(error)) from None
    except (OSError, EOFError) as error:  # unreadable, or not gzip after all
        raise OpenError(f"{path}: cannot read: {error}") from None
    return stream()


def open_session(
    platform: Platform,
    scheduler: str = "easy",
    *,
    workload: Path | None = None,
    commands: Path | None = None,
) -> Session:
    """A session as ``batchlab gui --platform --workload|--commands`` opens it: ``platform``
    under ``scheduler``, fed ``workload`` (:func:`read_workload`) and having run the command
    file ``commands``. A file it cannot use raises :class:`OpenError` (a bad scheduler
    ``SpecError``) before any session exists, except for a failing command file line."""
    source = None if workload is None else read_workload(workload, platform)
    text = None
    if commands is not None:
        if not commands.is_file():
            raise OpenError(f"no such command file: {commands}")
        try:
            text = commands.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise OpenError(f"{commands}: cannot read: {error}") from None
    session = Session(platform, scheduler)
    if source is not None:
        session.submit_workload(source)
    if text is not None:
        try:
            session.run_commands(text, str(commands))
        except CommandFileError as error:
            raise OpenError(str(error)) from None
    return session
