"""sacct's output: jobs and their ``.batch`` steps, in the fields asked for.

A column at a time: sacct lists every record of the day (100,000 queued jobs are 700,000 cells
in the default fields), and a call per cell cost more than the rest of the read. Each column is
one comprehension over the lines; the cells of a column repeat few values (names, partitions,
sizes, states, limits, times), so each distinct value is formatted and fitted to its width once
(:class:`_Texts`); only the job ids are made per line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from emulator.model.hostlist import compress
from emulator.model.job import (
    FINISHED_STATES,
    Job,
    Reason,
)
from emulator.model.platform import Platform
from emulator.slurm.formats.jobs import (
    _NO_INFO,
    CANCELLED,
    PENDING,
    STATE_LONG,
    JobInfo,
    _elapsed,
    _fit,
    _rows,
    _text,
    task_ranges,
)
from emulator.slurm.timefmt import (
    format_duration_long,
    format_timestamp,
)

SACCT_DEFAULT = ("JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode")
_SACCT_WIDTHS = {"JobID": 12, "ExitCode": 8, "NodeList": 15, "JobIDRaw": 12}
_LEFT = frozenset({"JobID", "JobIDRaw"})  # the fields sacct pads on the right
_NOT_ELIGIBLE = (
    Reason.HELD_USER,
    Reason.HELD_ADMIN,
    Reason.DEPENDENCY,
    Reason.DEPENDENCY_NEVER,
    Reason.BEGIN_TIME,
    Reason.ARRAY_TASK_LIMIT,
)

_Line = tuple[Job, JobInfo, bool]  # a line's job, its info, and whether it is the .batch step
_Fit = Callable[[str], str]  # a cell's text as the column shows it (padded or cut, or as is)
_Column = Callable[[list[_Line], _Fit], list[str]]  # a field's cells, fitted, one per line


def _listed_order(job: Job) -> tuple[int, int, int]:
    """By submission second, then plain jobs by id before array tasks by array and task id
    (slurmdbd's id_array_job is 0 for a plain job)."""
    array = job.request.array
    second = math.floor(job.submit)
    return (second, 0, job.id) if array is None else (second, array.array_id, array.task_id)


class _Texts(dict[Hashable, str]):
    """A column's fitted texts by value, each made on first use (:meth:`__missing__`)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[Any], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: Hashable) -> str:
        text = self[key] = self.make(key)
        return text


def _sacct_columns(
    platform: Platform, now: float, origin: float, ranges: Mapping[int, str]
) -> dict[str, _Column]:
    """How each sacct field (lower case) makes its column. ``ranges``: the pending tasks a
    job's line stands for, by job id."""
    default_partition = platform.clusters[0].default_partition.name
    cluster = platform.clusters[0].name  # sacct reads one cluster's records at a time

    def job_id(lines: list[_Line], fit: _Fit) -> list[str]:
        def text(job: Job, step: bool) -> str:
            array = job.request.array
            if array is None:
                shown = str(job.id)
            elif job.id in ranges:
                shown = f"{array.array_id}_[{ranges[job.id]}]"
            else:
                shown = f"{array.array_id}_{array.task_id}"
            return shown + ".batch" if step else shown

        return [
            fit(str(job.id) if job.request.array is None and not step else text(job, step))
            for job, _, step in lines
        ]

    def job_id_raw(lines: list[_Line], fit: _Fit) -> list[str]:
        def raw(job: Job) -> int:
            array = job.request.array
            return array.array_id if array is not None and job.id in ranges else job.id

        return [fit(f"{raw(job)}.batch" if step else str(raw(job))) for job, _, step in lines]

    def job_name(lines: list[_Line], fit: _Fit) -> list[str]:
        names, batch = _Texts(fit), fit("batch")
        return [batch if step else names[job.request.name] for job, _, step in lines]

    def partition(lines: list[_Line], fit: _Fit) -> list[str]:
        names, empty = _Texts(lambda name: fit(name or default_partition)), fit("")
        return [empty if step else names[job.request.partition] for job, _, step in lines]

    def account(lines: list[_Line], fit: _Fit) -> list[str]:
        names = _Texts(fit)
        return [names[job.request.account] for job, _, _ in lines]

    def user(lines: list[_Line], fit: _Fit) -> list[str]:
        names, empty = _Texts(fit), fit("")
        return [empty if step else names[job.request.user] for job, _, step in lines]

    def alloc_cpus(lines: list[_Line], fit: _Fit) -> list[str]:
        counts = _Texts(lambda count: fit(str(count)))
        return [
            counts[job.node_cores[0] if step else sum(job.node_cores)]
            if job.node_cores
            else counts[job.cores]
            for job, _, step in lines
        ]

    def state(lines: list[_Line], fit: _Fit) -> list[str]:
        states = _Texts(lambda state: fit(STATE_LONG[state]))
        cancelled = _Texts(lambda by: fit(f"CANCELLED by {by}"))
        return [
            cancelled[info.cancelled_by]
            if job.state is CANCELLED and not step
            else states[job.state]
            for job, info, step in lines
        ]

    def exit_code(lines: list[_Line], fit: _Fit) -> list[str]:
        codes = _Texts(lambda pair: fit(f"{pair[0]}:{pair[1]}"))
        return [codes[job.exit_code, info.exit_signal if step else 0] for job, info, step in lines]

    def elapsed(lines: list[_Line], fit: _Fit) -> list[str]:
        durations = _Texts(lambda seconds: fit(format_duration_long(seconds)))
        zero = durations[0.0]
        return [
            zero if job.state is PENDING else durations[_elapsed(job, now)] for job, _, _ in lines
        ]

    def node_list(lines: list[_Line], fit: _Fit) -> list[str]:
        lists = _Texts(lambda nodes: fit(compress([platform.nodes[i].name for i in nodes])))
        none = fit("None assigned")
        return [lists[job.nodes] if job.nodes else none for job, _, _ in lines]

    def node_count(lines: list[_Line], fit: _Fit) -> list[str]:
        counts = _Texts(lambda count: fit(str(count)))
        return [
            counts[len(job.nodes) if job.nodes else job.request.min_nodes or 1]
            for job, _, _ in lines
        ]

    def time_limit(lines: list[_Line], fit: _Fit) -> list[str]:
        limits, empty = _Texts(lambda limit: fit(format_duration_long(limit))), fit("")
        return [empty if step else limits[job.request.time_limit] for job, _, step in lines]

    def moments(pick: Callable[[Job], float]) -> _Column:
        def column(lines: list[_Line], fit: _Fit) -> list[str]:
            stamps = _Texts(lambda moment: fit(format_timestamp(moment, origin)))
            unknown = fit("Unknown")
            texts = []
            for job, _, _ in lines:
                moment = pick(job)
                texts.append(unknown if moment != moment else stamps[moment])  # NaN: unset
            return texts

        return column

    def end(job: Job) -> float:
        return job.end if job.state in FINISHED_STATES else float("nan")

    def constant(text: str) -> _Column:
        return lambda lines, fit: [fit(text)] * len(lines)

    return {
        "jobid": job_id,
        "jobidraw": job_id_raw,
        "jobname": job_name,
        "cluster": constant(cluster),
        "partition": partition,
        "account": account,
        "user": user,
        "alloccpus": alloc_cpus,
        "state": state,
        "exitcode": exit_code,
        "elapsed": elapsed,
        "nodelist": node_list,
        "nnodes": node_count,
        "timelimit": time_limit,
        "start": moments(lambda job: job.start),
        "end": moments(end),
        "submit": moments(lambda job: job.submit),
    }


def _sacct_field(spec: str) -> tuple[str, int]:
    name, percent, width = spec.partition("%")
    if percent and width.isdecimal():
        return name, int(width)
    return name, _SACCT_WIDTHS.get(name, 10)


def _fitter(width: int, left: bool) -> _Fit:
    """A cell as :func:`~emulator.slurm.formats.jobs._fit` lays it out, one at a time."""
    pad = str.ljust if left else str.rjust
    return lambda text: pad(text, width) if len(text) <= width else text[: width - 1] + "+"


def _as_is(text: str) -> str:
    return text


def _blank(lines: list[_Line], fit: _Fit) -> list[str]:
    """The column of a field the formatter does not know (the command refuses those)."""
    return [fit("")] * len(lines)


def sacct(
    jobs: Iterable[Job],
    platform: Platform,
    *,
    now: float,
    origin: float = 0.0,
    infos: Mapping[int, JobInfo] | None = None,
    fields: Sequence[str] = SACCT_DEFAULT,
    allocations: bool = False,
    parsable: str = "",
    header: bool = True,
) -> str:
    """sacct's stdout. ``fields`` accept ``Name%width``; ``allocations`` is ``-X``;
    ``parsable`` is ``""``, ``"p"`` (``-p``, trailing ``|``) or ``"P"`` (``-P``).

    Jobs are listed by submission second, then plain jobs by job id before array tasks by array
    id and task id (real sacct's order in the samples and every differential capture), each
    started job followed by its ``.batch`` step; an
    array's pending tasks are one line (``2_[3-4]``, JobIDRaw the array's id) at its first
    task's place. Pending jobs that are not yet eligible (held, dependency, begin time,
    throttled array tasks) are not listed, as in the samples.
    """
    columns = [_sacct_field(spec) for spec in fields]
    known = infos or {}
    lines: list[_Line] = []
    pending: dict[int, tuple[Job, list[int]]] = {}  # array id -> its first line, its tasks
    for job in sorted(jobs, key=_listed_order):
        if job.state is PENDING and job.reason in _NOT_ELIGIBLE:
            continue
        array = job.request.array
        if array is not None and job.state is PENDING:  # one line for an array's pending tasks
            if array.array_id in pending:
                pending[array.array_id][1].append(array.task_id)
                continue
            pending[array.array_id] = (job, [array.task_id])
        info = known.get(job.id, _NO_INFO)
        lines.append((job, info, False))
        if not allocations and job.start == job.start:  # started (a start time, not NaN)
            lines.append((job, info, True))
    ranges = {first.id: task_ranges(sorted(tasks)) for first, tasks in pending.values()}
    makers = _sacct_columns(platform, now, origin, ranges)
    out: list[str] = []
    if parsable:
        if header:
            out.append("|".join(name for name, _ in columns))
        texts = [makers.get(name.lower(), _blank)(lines, _as_is) for name, _ in columns]
        out.extend(map("|".join, _rows(texts, len(lines))))
        return _text(out, "|" if parsable == "p" else "")
    if header:
        out.append(" ".join(_fit([name], width, name in _LEFT)[0] for name, width in columns))
        out.append(" ".join("-" * width for _, width in columns))
    texts = [
        makers.get(name.lower(), _blank)(lines, _fitter(width, name in _LEFT))
        for name, width in columns
    ]
    out.extend(map(" ".join, _rows(texts, len(lines))))
    return _text(out, " " if columns else "")
