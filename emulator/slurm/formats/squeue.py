"""squeue's output: ``-o`` formats, the default sort, ``-t`` states."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from emulator.model.hostlist import compress
from emulator.model.job import (
    Job,
    JobState,
)
from emulator.model.platform import Platform
from emulator.slurm.formats.jobs import (
    _ID,
    _NO_INFO,
    _STATE_SHORT,
    PENDING,
    REASON_SHOWN,
    SHOWS_REASON,
    STATE_LONG,
    JobInfo,
    _cpus,
    _dependency_text,
    _elapsed,
    _node_count,
    _node_names,
    job_reason,
    priority_of,
    reason_shown,
    shown_start,
    task_ranges,
)
from emulator.slurm.timefmt import (
    format_ctime,
    format_elapsed,
    format_timestamp,
)

# --- squeue ----------------------------------------------------------------------------------

SQUEUE_DEFAULT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
SQUEUE_LONG = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
SQUEUE_START = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"


@dataclass(slots=True)
class _Lines:
    """squeue's records, one line each: ``jobs`` in order, where a pending array's tasks are
    collapsed into the line of its first (``tasks``: that job -> the task ids; by identity, as
    all of them show the array's id). The jobs themselves are the lines, so that a long queue
    makes no object per line."""

    jobs: list[Job]
    infos: Mapping[int, JobInfo]
    tasks: dict[Job, tuple[int, ...]]

    def info(self, job: Job) -> JobInfo:
        return self.infos.get(job.id, _NO_INFO)

    def display_id(self, job: Job) -> str:
        array = job.request.array
        if array is None:
            return str(job.id)
        if job in self.tasks:
            return f"{array.array_id}_[{self.task_text(job)}]"
        return f"{array.array_id}_{array.task_id}"

    def raw_id(self, job: Job) -> int:
        array = job.request.array
        return array.array_id if array is not None and job in self.tasks else job.id

    def task_text(self, job: Job) -> str:
        array = job.request.array
        if array is None:
            return "N/A"
        tasks = self.tasks.get(job)
        if tasks is None:
            return str(array.task_id)
        text = task_ranges(tasks)
        if len(text) > 64:
            text = text[:61] + "..."
        throttle = f"%{array.max_running}" if array.max_running else ""
        return text + throttle


def _lines(jobs: Iterable[Job], infos: Mapping[int, JobInfo] | None, expand_arrays: bool) -> _Lines:
    """Collapse pending array tasks into one line (unless ``-r``), and the tasks cancelled
    before they started (the array's record, cancelled: ``1_[4-5%2] CA``)."""
    shown: list[Job] = []
    collapsed: dict[tuple[int, JobState], list[Job]] = {}  # (array, state) -> tasks, first shown
    for job in jobs:
        array = job.request.array
        if (
            array is not None
            and not expand_arrays
            and (
                job.state is JobState.PENDING
                or (job.state is JobState.CANCELLED and math.isnan(job.start))
            )
        ):
            key = (array.array_id, job.state)
            if key in collapsed:
                collapsed[key].append(job)
                continue
            collapsed[key] = [job]
        shown.append(job)
    tasks = {
        group[0]: tuple(sorted(t.request.array.task_id for t in group if t.request.array))
        for group in collapsed.values()
    }
    return _Lines(shown, infos or {}, tasks)


_HEADERS = {
    "A": "JOBID",
    "a": "ACCOUNT",
    "b": "TRES_PER_NODE",
    "C": "CPUS",
    "D": "NODES",
    "E": "DEPENDENCY",
    "e": "END_TIME",
    "F": "ARRAY_JOB_ID",
    "f": "FEATURES",
    "i": "JOBID",
    "j": "NAME",
    "K": "ARRAY_TASK_ID",
    "k": "COMMENT",
    "L": "TIME_LEFT",
    "l": "TIME_LIMIT",
    "M": "TIME",
    "m": "MIN_MEMORY",
    "N": "NODELIST",
    "P": "PARTITION",
    "p": "PRIORITY",
    "Q": "PRIORITY",
    "q": "QOS",
    "R": "NODELIST(REASON)",
    "r": "REASON",
    "S": "START_TIME",
    "T": "STATE",
    "t": "ST",
    "u": "USER",
    "V": "SUBMIT_TIME",
    "Y": "SCHEDNODES",
}
_UNCUT = frozenset("lLM")  # times are printed whole even when wider (a 3-00:00:00 limit in %.9l)
_FIELD = re.compile(r"%(\.?)(\d*)([A-Za-z%])")


_Column = Callable[[Sequence[Job]], list[str]]


def _each(cell: Callable[[Job], str]) -> _Column:
    return lambda rows: list(map(cell, rows))


def _squeue_columns(
    lines: _Lines, platform: Platform, default_partition: str, now: float, origin: float
) -> dict[str, _Column]:
    """What each ``-o`` code shows, a whole column at a time (%R: the reason of a pending or
    failed job, else the nodes). The codes of the standard formats are comprehensions, faster
    than a function call per line; the others call one per line. Time limits and
    timestamps repeat across a long queue: each distinct one is formatted once."""
    info = lines.info
    infos = lines.infos
    not_started = format_elapsed(0)
    duration = cache(format_elapsed)
    stamp = cache(lambda moment: format_timestamp(moment, origin, unset="N/A"))
    submitted = cache(lambda moment: format_timestamp(moment, origin))
    pending = PENDING
    isnan = math.isnan

    def ids(rows: Sequence[Job]) -> list[str]:
        return [str(job.id) if job.request.array is None else lines.display_id(job) for job in rows]

    def partitions(rows: Sequence[Job]) -> list[str]:
        return [job.request.partition or default_partition for job in rows]

    def names(rows: Sequence[Job]) -> list[str]:
        return [job.request.name for job in rows]

    def users(rows: Sequence[Job]) -> list[str]:
        return [job.request.user for job in rows]

    def states(rows: Sequence[Job]) -> list[str]:
        return [_STATE_SHORT[job.state] for job in rows]

    def long_states(rows: Sequence[Job]) -> list[str]:
        return [STATE_LONG[job.state] for job in rows]

    def used(rows: Sequence[Job]) -> list[str]:
        return [
            not_started if job.state is pending else format_elapsed(_elapsed(job, now))
            for job in rows
        ]

    def limits(rows: Sequence[Job]) -> list[str]:
        return [duration(job.request.time_limit) for job in rows]

    def node_counts(rows: Sequence[Job]) -> list[str]:
        return [str(_node_count(job)) for job in rows]

    def priorities(rows: Sequence[Job]) -> list[str]:
        return [str(priority_of(job, infos.get(job.id, _NO_INFO))) for job in rows]

    def reasons_or_nodes(rows: Sequence[Job]) -> list[str]:
        return [REASON_SHOWN[job.reason] if job.state is pending else finished(job) for job in rows]

    def finished(job: Job) -> str:  # %R of a job that is not pending
        if job.state in SHOWS_REASON:
            return reason_shown(job.state, job.reason)
        return compress(_node_names(platform, job))

    def time_left(job: Job) -> str:
        if job.state.finished:
            return format_elapsed(0)
        return format_elapsed(job.request.time_limit - _elapsed(job, now))

    def starts(rows: Sequence[Job]) -> list[str]:
        moments = [shown_start(job.state, job.start, job.planned_start) for job in rows]
        return ["N/A" if isnan(moment) else stamp(moment) for moment in moments]

    def end(job: Job) -> str:
        moment = job.end if job.state.finished else job.expected_end
        if job.state is pending and not math.isnan(job.planned_start):
            moment = job.planned_start + job.request.time_limit
        return "N/A" if math.isnan(moment) else stamp(moment)

    def array_job(job: Job) -> str:
        array = job.request.array
        return str(array.array_id if array else job.id)

    return {
        "i": ids,
        "A": _each(lambda job: str(lines.raw_id(job))),
        "F": _each(array_job),
        "K": _each(lines.task_text),
        "P": partitions,
        "j": names,
        "u": users,
        "a": _each(lambda job: job.request.account or "(null)"),
        "q": _each(lambda job: info(job).qos),
        "t": states,
        "T": long_states,
        "M": used,
        "l": limits,
        "L": _each(time_left),
        "D": node_counts,
        "C": _each(lambda job: str(_cpus(job))),
        "m": _each(lambda job: str(job.request.memory_mb)),
        "b": _each(lambda job: info(job).extras.tres_per_node or "N/A"),
        "f": _each(lambda job: info(job).extras.features or "(null)"),
        "k": _each(lambda job: info(job).extras.comment or "(null)"),
        "R": reasons_or_nodes,
        "N": _each(lambda job: compress(_node_names(platform, job))),
        "r": _each(job_reason),
        "S": starts,
        "e": _each(end),
        "V": _each(lambda job: submitted(job.submit)),
        "E": _each(_dependency_text),
        "Y": _each(lambda job: info(job).sched_nodes or "(null)"),
        "Q": priorities,
        "p": _each(lambda job: f"{priority_of(job, info(job)) / 4294967295:.8f}"),
        "%": _each(lambda job: "%"),
    }


def _squeue_format(
    fmt: str, rows: Sequence[Job], header: bool, columns: Mapping[str, _Column]
) -> list[str]:
    """Lay the lines out in ``fmt``: each field cut to its width and padded (``.``: on the left),
    except times, which are printed whole. Column by column, then one printf-style ``%`` a line
    (fewer instructions than ``str.format`` with the same widths)."""
    head = body = ""  # %-templates for the header (every field cut) and the rows
    codes: list[str] = []
    position = 0
    for match in _FIELD.finditer(fmt):
        literal = fmt[position : match.start()].replace("%", "%%")
        width = match[2].lstrip("0")
        pad = ("" if match[1] else "-") + width if width else ""
        cut = f"{pad}.{width}" if width else ""
        head += f"{literal}%{cut}s"
        body += f"{literal}%{pad if match[3] in _UNCUT else cut}s"
        codes.append(match[3])
        position = match.end()
    tail = fmt[position:].replace("%", "%%")
    lines = [(head + tail) % tuple(_HEADERS.get(code, code) for code in codes)] if header else []
    template = body + tail
    if codes:
        texts = [columns.get(code, _blank)(rows) for code in codes]
        lines.extend(map(template.__mod__, zip(*texts, strict=True)))
    else:
        lines.extend(template % () for _ in rows)
    return lines


def _blank(rows: Sequence[Job]) -> list[str]:
    return [""] * len(rows)


_STATE_FILTER = {state.value: state for state in JobState} | {
    name: state for state, name in STATE_LONG.items()
}
_DEFAULT_STATES = frozenset({JobState.PENDING, JobState.RUNNING})
VALID_STATES = (  # squeue 22.05's list (src/squeue/opts.c), in its order
    "PENDING",
    "RUNNING",
    "SUSPENDED",
    "COMPLETED",
    "CANCELLED",
    "FAILED",
    "TIMEOUT",
    "NODE_FAIL",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
    "OUT_OF_MEMORY",
    "COMPLETING",
    "CONFIGURING",
    "RESIZING",
    "RESV_DEL_HOLD",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "REVOKED",
    "SIGNALING",
    "SPECIAL_EXIT",
    "STAGE_OUT",
    "STOPPED",
)


def parse_states(text: str) -> frozenset[JobState] | None:
    """squeue ``-t``: a comma list of short or long state names, or ``all`` (``None``)."""
    if text.lower() == "all":
        return None
    states = set()
    for item in text.split(","):
        state = _STATE_FILTER.get(item.upper())
        if state is None:  # squeue 22.05 then lists the states it knows, and a blank line
            raise ValueError(
                f"Invalid job state specified: {item}\n"
                f"squeue: error: Valid job states include: {','.join(VALID_STATES)}\n\n"
            )
        states.add(state)
    return frozenset(states)


def squeue(
    jobs: Iterable[Job],
    platform: Platform,
    *,
    now: float,
    origin: float = 0.0,
    infos: Mapping[int, JobInfo] | None = None,
    fmt: str | None = None,
    long: bool = False,
    start: bool = False,
    header: bool = True,
    states: frozenset[JobState] | str | None = "default",
    expand_arrays: bool = False,
) -> str:
    """squeue's stdout. ``states``: ``"default"`` (PD and R), ``None`` for ``-t all``, or a set.

    Sorted as squeue's default ``P,t,-p`` (partition, state name, priority descending);
    ``--start`` shows pending jobs by expected start, unknown starts last.
    """
    cluster = platform.clusters[0]
    default_partition = cluster.default_partition.name
    if states == "default":
        wanted: frozenset[JobState] | None = _DEFAULT_STATES
    elif isinstance(states, str):
        wanted = parse_states(states)
    else:
        wanted = states
    if start:
        wanted = frozenset({JobState.PENDING})
    selected = [job for job in jobs if wanted is None or job.state in wanted]
    lines = _lines(sorted(selected, key=_ID), infos, expand_arrays)
    rows = lines.jobs
    # Sorted one key at a time, least significant first (sorts are stable): plain keys, no
    # tuple per line, which on a long queue is faster.
    if start:  # by expected start, unknown ones last, then by id
        rows.sort(key=lines.raw_id)
        rows.sort(key=lambda j: math.inf if math.isnan(j.planned_start) else j.planned_start)
        rows.sort(key=lambda j: math.isnan(j.planned_start))
    else:  # P,t,-p: partition, then state name, then priority, highest first
        known = lines.infos
        rows.sort(key=lambda j: priority_of(j, known.get(j.id, _NO_INFO)), reverse=True)
        rows.sort(key=lambda j: STATE_LONG[j.state])
        rows.sort(key=lambda j: j.request.partition or default_partition)
    if fmt is None:
        fmt = SQUEUE_START if start else SQUEUE_LONG if long else SQUEUE_DEFAULT
    text = _squeue_format(
        fmt, rows, header, _squeue_columns(lines, platform, default_partition, now, origin)
    )
    if long:
        text.insert(0, format_ctime(now, origin))
    return "\n".join(text) + "\n" if text else ""
