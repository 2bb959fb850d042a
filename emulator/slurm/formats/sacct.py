"""sacct's output: jobs and their ``.batch`` steps, in the fields asked for."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache

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
    _cpus,
    _elapsed,
    _fit,
    _node_count,
    _node_names,
    _rows,
    _started,
    _text,
    task_ranges,
)
from emulator.slurm.timefmt import (
    format_duration_long,
    format_timestamp,
)

# --- sacct -----------------------------------------------------------------------------------

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


_SacctCell = Callable[[Job, JobInfo, bool], str]  # (job, its info, is it the .batch step)


def _listed_order(job: Job) -> tuple[int, int, int]:
    """By submission second, then plain jobs by id before array tasks by array and task id
    (slurmdbd's id_array_job is 0 for a plain job)."""
    array = job.request.array
    second = math.floor(job.submit)
    return (second, 0, job.id) if array is None else (second, array.array_id, array.task_id)


def _sacct_cells(
    platform: Platform, now: float, origin: float, ranges: Mapping[int, str]
) -> dict[str, _SacctCell]:
    """What each sacct field (lower case) shows for a job or its ``.batch`` step; durations and
    timestamps repeat across many records, so each distinct one is formatted once. ``ranges``:
    the pending tasks a job's line stands for, by job id."""
    default_partition = platform.clusters[0].default_partition.name
    cluster = platform.clusters[0].name  # sacct reads one cluster's records at a time
    duration = cache(format_duration_long)
    stamp = cache(lambda moment: format_timestamp(moment, origin))

    def job_id(job: Job, info: JobInfo, step: bool) -> str:
        array = job.request.array
        if array is None:
            text = str(job.id)
        elif job.id in ranges:
            text = f"{array.array_id}_[{ranges[job.id]}]"
        else:
            text = f"{array.array_id}_{array.task_id}"
        return text + ".batch" if step else text

    def job_id_raw(job: Job, info: JobInfo, step: bool) -> str:
        array = job.request.array
        raw = array.array_id if array is not None and job.id in ranges else job.id
        return f"{raw}.batch" if step else str(raw)

    def alloc_cpus(job: Job, info: JobInfo, step: bool) -> str:
        return str(job.node_cores[0]) if step and job.node_cores else str(_cpus(job))

    def state(job: Job, info: JobInfo, step: bool) -> str:
        if job.state is CANCELLED and not step:
            return f"CANCELLED by {info.cancelled_by}"
        return STATE_LONG[job.state]

    def nodes(job: Job, info: JobInfo, step: bool) -> str:
        return compress(_node_names(platform, job)) if job.nodes else "None assigned"

    def end(job: Job, info: JobInfo, step: bool) -> str:
        return stamp(job.end) if job.state in FINISHED_STATES else "Unknown"

    return {
        "jobid": job_id,
        "jobidraw": job_id_raw,
        "jobname": lambda job, info, step: "batch" if step else job.request.name,
        "cluster": lambda job, info, step: cluster,
        "partition": lambda job, info, step: (
            "" if step else job.request.partition or default_partition
        ),
        "account": lambda job, info, step: job.request.account,
        "user": lambda job, info, step: "" if step else job.request.user,
        "alloccpus": alloc_cpus,
        "state": state,
        "exitcode": lambda job, info, step: f"{job.exit_code}:{info.exit_signal if step else 0}",
        "elapsed": lambda job, info, step: duration(_elapsed(job, now)),
        "nodelist": nodes,
        "nnodes": lambda job, info, step: str(_node_count(job)),
        "timelimit": lambda job, info, step: "" if step else duration(job.request.time_limit),
        "start": lambda job, info, step: stamp(job.start),
        "end": end,
        "submit": lambda job, info, step: stamp(job.submit),
    }


def _no_sacct_cell(job: Job, info: JobInfo, step: bool) -> str:
    return ""


def _sacct_field(spec: str) -> tuple[str, int]:
    name, percent, width = spec.partition("%")
    if percent and width.isdecimal():
        return name, int(width)
    return name, _SACCT_WIDTHS.get(name, 10)


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
    records: list[tuple[Job, JobInfo, bool]] = []
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
        records.append((job, info, False))
        if not allocations and _started(job):
            records.append((job, info, True))
    ranges = {first.id: task_ranges(sorted(tasks)) for first, tasks in pending.values()}
    cells = _sacct_cells(platform, now, origin, ranges)
    texts = [
        [cell(job, info, step) for job, info, step in records]
        for cell in (cells.get(name.lower(), _no_sacct_cell) for name, _ in columns)
    ]
    lines: list[str] = []
    if parsable:
        end = "|" if parsable == "p" else ""
        if header:
            lines.append("|".join(name for name, _ in columns))
        lines.extend(map("|".join, _rows(texts, len(records))))
        return _text(lines, end)
    if header:
        lines.append(" ".join(_fit([name], width, name in _LEFT)[0] for name, width in columns))
        lines.append(" ".join("-" * width for _, width in columns))
    for column, (name, width) in zip(texts, columns, strict=True):
        column[:] = _fit(column, width, name in _LEFT)
    lines.extend(map(" ".join, _rows(texts, len(records))))
    return _text(lines, " " if columns else "")
