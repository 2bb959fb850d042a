"""Pure formatters: model jobs and platforms -> the text squeue, sinfo, scontrol and sacct print.

What the model does not hold (priority, uids, paths, scheduler bookkeeping) comes in a
:class:`JobInfo` per job id; defaults are what Slurm 22.05 prints for a default setup. Times are
simulated seconds; ``origin`` is the epoch second of simulated 0 (see :mod:`.timefmt`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from operator import attrgetter

from emulator.model.hostlist import compress
from emulator.model.job import (
    FINISHED_STATES,
    Dependencies,
    DependencyKind,
    Job,
    JobState,
    Reason,
)
from emulator.model.network import link_slowdown
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.slurm.timefmt import (
    format_ctime,
    format_duration_long,
    format_elapsed,
    format_minutes_limit,
    format_timestamp,
)

__all__ = [
    "REASON_SHOWN",
    "SHOWS_REASON",
    "SQUEUE_DEFAULT",
    "SQUEUE_LONG",
    "SQUEUE_START",
    "STATE_LONG",
    "JobInfo",
    "LinkInfo",
    "NodeInfo",
    "elapsed_seconds",
    "job_reason",
    "reason_shown",
    "sacct",
    "scontrol_show_config",
    "scontrol_show_job",
    "scontrol_show_link",
    "scontrol_show_node",
    "scontrol_show_partition",
    "shown_start",
    "sinfo",
    "squeue",
]

SQUEUE_DEFAULT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
SQUEUE_LONG = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
SQUEUE_START = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
BASIC_PRIORITY_TOP = 4294901760  # priority/basic: the first job gets this minus one
REASON_SHOWN = {reason: f"({reason.value})" for reason in Reason}  # squeue's %R of a waiting job


@dataclass(frozen=True, slots=True)
class JobInfo:
    """What Slurm shows about a job that the model does not record."""

    priority: int | None = None  # None: priority/basic from the job id (0 when held)
    uid: int = 0
    gid: int = 0
    group: str = ""  # "" = the user name
    qos: str = "normal"
    eligible: float | None = None  # None: derived from the job
    accrue: float | None = None
    last_sched_eval: float | None = None
    scheduler: str = "Main"  # "Main", "Backfill" or "Backfill:*"
    sched_nodes: str = ""  # backfill's planned nodes (squeue %Y, SchedNodeList=)
    alloc_node: str = "localhost"
    sid: int = 0
    work_dir: str = ""
    command: str = "(null)"  # "(null)" for --wrap
    stdout: str = ""  # "" = <work_dir>/slurm-%j.out expanded
    stderr: str = ""
    stdin: str = "/dev/null"
    exit_signal: int = 0  # the signal part of ExitCode (15 for a cancelled running job)
    cancelled_by: int = 0  # uid shown by sacct's "CANCELLED by N"


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """Host facts ``scontrol show node`` prints that the model does not have."""

    arch: str = "x86_64"
    os: str = "Linux"
    cpu_load: float = 0.0
    free_mem: int | None = None  # None: RealMemory - AllocMem
    boot_time: float | None = None
    slurmd_start_time: float | None = None
    last_busy_time: float | None = None
    port: int | None = None  # printed only if it differs from SlurmdPort
    version: str = "22.05.8"


_NO_INFO = JobInfo()


def _info(infos: Mapping[int, JobInfo] | None, job: Job) -> JobInfo:
    return (infos or {}).get(job.id, _NO_INFO)


def priority_of(job: Job, info: JobInfo) -> int:
    if info.priority is not None:
        return info.priority
    if job.request.held:
        return 0
    base = job.request.array.array_id if job.request.array else job.id
    return BASIC_PRIORITY_TOP - base


STATE_LONG = {
    JobState.PENDING: "PENDING",
    JobState.RUNNING: "RUNNING",
    JobState.COMPLETED: "COMPLETED",
    JobState.FAILED: "FAILED",
    JobState.TIMEOUT: "TIMEOUT",
    JobState.CANCELLED: "CANCELLED",
    JobState.NODE_FAIL: "NODE_FAIL",
    JobState.DEADLINE: "DEADLINE",
}


_STATE_SHORT = {state: state.value for state in JobState}
_ID = attrgetter("id")
# Read for every line of a long queue or accounting list, so bound once: on Python 3.11
# ``JobState.PENDING`` goes through EnumType.__getattr__'s slot, several times the cost of a
# global read, and ``state.finished`` reads two of them.
PENDING, CANCELLED = JobState.PENDING, JobState.CANCELLED


def job_reason(job: Job) -> str:
    """The reason Slurm prints: the model's, or the one a failed end implies."""
    return reason_shown(job.state, job.reason)[1:-1]


# squeue's %R shows these jobs' reason, not their nodes
SHOWS_REASON = frozenset(
    (JobState.PENDING, JobState.FAILED, JobState.TIMEOUT, JobState.DEADLINE, JobState.NODE_FAIL)
)
_ENDED_REASON = {JobState.FAILED: "(NonZeroExitCode)", JobState.TIMEOUT: "(TimeLimit)"}


def reason_shown(state: JobState, reason: Reason) -> str:
    """squeue's ``(Reason)`` of a job in :data:`SHOWS_REASON`: the model's, or the one a failed
    end implies. The same string object for the same reason (a long queue shares them)."""
    if reason is Reason.NONE and state in _ENDED_REASON:
        return _ENDED_REASON[state]
    return REASON_SHOWN[reason]


def _node_names(platform: Platform, job: Job) -> list[str]:
    return [platform.nodes[index].name for index in job.nodes]


def _started(job: Job) -> bool:
    return not math.isnan(job.start) and job.state is not PENDING


def _elapsed(job: Job, now: float) -> float:
    return elapsed_seconds(job.state, job.start, job.end, now)


def elapsed_seconds(state: JobState, start: float, end: float, now: float) -> float:
    """squeue's TIME in seconds: how long the job has run (0 if it has not started)."""
    if math.isnan(start) or state is PENDING:
        return 0.0
    if state not in FINISHED_STATES or math.isnan(end):
        end = now
    return max(0.0, end - start)


def shown_start(state: JobState, start: float, planned_start: float) -> float:
    """squeue's START (``%S``): the planned start of a pending job, else when it started."""
    return planned_start if state is PENDING else start


def _node_count(job: Job) -> int:
    return len(job.nodes) if job.nodes else job.request.min_nodes or 1


def _cpus(job: Job) -> int:
    return sum(job.node_cores) if job.node_cores else job.cores


def _dependency_text(job: Job) -> str:
    deps: Dependencies | None = job.request.dependencies
    if deps is None or job.reason not in (Reason.DEPENDENCY, Reason.DEPENDENCY_NEVER):
        return "(null)"
    status = "(failed)" if job.reason is Reason.DEPENDENCY_NEVER else "(unfulfilled)"
    parts = []
    for term in deps.terms:
        if term.kind is DependencyKind.SINGLETON:
            parts.append(f"singleton{status}")
            continue
        delay = f"+{int(term.delay // 60)}" if term.delay else ""
        parts.append(f"{term.kind.value}:{term.job_id}{delay}{status}")
    return ("?" if deps.any_of else ",").join(parts)


# --- squeue ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Lines:
    """squeue's records, one line each: ``jobs`` in order, where a pending array's tasks are
    collapsed into the line of its first (``tasks``: that job -> the task ids; by identity, as
    all of them show the array's id). The jobs themselves are the lines, so that a queue of
    100,000 makes no object per line."""

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
        text = compress(f"t{task}" for task in tasks)[1:].strip("[]")
        if len(text) > 64:
            text = text[:61] + "..."
        throttle = f"%{array.max_running}" if array.max_running else ""
        return text + throttle


def _lines(jobs: Iterable[Job], infos: Mapping[int, JobInfo] | None, expand_arrays: bool) -> _Lines:
    """Collapse pending array tasks into one line (unless ``-r``)."""
    shown: list[Job] = []
    collapsed: dict[int, list[Job]] = {}  # array id -> its pending tasks, the first one shown
    for job in jobs:
        array = job.request.array
        if array is not None and job.state is JobState.PENDING and not expand_arrays:
            if array.array_id in collapsed:
                collapsed[array.array_id].append(job)
                continue
            collapsed[array.array_id] = [job]
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
    "i": "JOBID",
    "j": "NAME",
    "K": "ARRAY_TASK_ID",
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
    failed job, else the nodes). The codes of the standard formats are comprehensions, about
    twice as fast as a function call per line; the others call one per line. Time limits and
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
        "b": _each(lambda job: "N/A"),
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
    (callgrind: about half the instructions of ``str.format`` with the same widths)."""
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


def parse_states(text: str) -> frozenset[JobState] | None:
    """squeue ``-t``: a comma list of short or long state names, or ``all`` (``None``)."""
    if text.lower() == "all":
        return None
    states = set()
    for item in text.split(","):
        state = _STATE_FILTER.get(item.upper())
        if state is None:
            raise ValueError(f"Invalid job state specified: {item}")
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
    # tuple per line, which at 100,000 lines is markedly faster.
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


# --- sinfo -----------------------------------------------------------------------------------


def _used_cores(jobs: Iterable[Job]) -> dict[int, int]:
    used: dict[int, int] = {}
    for job in jobs:
        if job.state is JobState.RUNNING:
            cores = job.node_cores or tuple(job.cores // max(1, len(job.nodes)) for _ in job.nodes)
            for node, count in zip(job.nodes, cores, strict=False):
                used[node] = used.get(node, 0) + count
    return used


def _node_state(
    node: Node, used: Mapping[int, int], long: bool = False, status: NodeStatus | None = None
) -> str:
    """sinfo's state of a node: ``drng`` while a drained node still runs jobs."""
    busy = used.get(node.id, 0)
    if status is not None:
        if status.state is NodeState.DOWN:
            return "down"
        if busy:
            return "draining" if long else "drng"
        return "drained" if long else "drain"
    if busy >= node.cores:
        return "allocated" if long else "alloc"
    if busy:
        return "mixed" if long else "mix"
    return "idle"


def _show_node_state(node: Node, used: Mapping[int, int], status: NodeStatus | None) -> str:
    """scontrol's ``State=``: the base state, then ``+DRAIN`` for a drained node."""
    if status is not None and status.state is NodeState.DOWN:
        return "DOWN"
    base = _node_state(node, used, long=True).upper()
    return f"{base}+DRAIN" if status is not None else base


def _partition_nodes(cluster: Cluster, partition: Partition) -> list[Node]:
    return [cluster.nodes[index] for index in partition.nodes]


def sinfo(
    platform: Platform,
    jobs: Iterable[Job] = (),
    *,
    mode: str = "default",
    now: float = 0.0,
    origin: float = 0.0,
    partitions: Sequence[str] | None = None,
    statuses: Mapping[int, NodeStatus] | None = None,
) -> str:
    """sinfo's stdout. ``mode``: ``default``, ``summary`` (-s), ``nodes`` (-N), ``nodes-long``
    (-N -l), ``long`` (-l) or ``reasons`` (-R). ``statuses``: the nodes out of service, by node
    id; -R lists them, one row per reason, user and time."""
    cluster = platform.clusters[0]
    used = _used_cores(jobs)
    statuses = statuses or {}
    chosen = [p for p in cluster.partitions if partitions is None or p.name in partitions]
    out: list[str] = []
    if mode in ("long", "nodes-long"):
        out.append(format_ctime(now, origin))
    if mode == "reasons":
        out.append(f"{'REASON':<20} {'USER':<9} {'TIMESTAMP':<19} NODELIST")
        reasons: dict[tuple[str, str, float], list[str]] = {}  # the printed fields group nodes
        for node in cluster.nodes:
            status = statuses.get(node.id)
            if status is not None:
                key = (status.reason, status.user, status.since)
                reasons.setdefault(key, []).append(node.name)
        for (reason, user, since), names in reasons.items():
            stamp = format_timestamp(since, origin)
            out.append(f"{reason[:20]:<20} {user[:9]:<9} {stamp:<19} {compress(names)}")
        return "".join(line + "\n" for line in out)
    if mode in ("nodes", "nodes-long"):
        width = max(9, *(len(node.name) for node in cluster.nodes))
        if mode == "nodes":
            out.append(f"{'NODELIST':<{width}} {'NODES':>6} {'PARTITION':>9} {'STATE':<6}")
        else:
            out.append(
                f"{'NODELIST':<{width}} {'NODES':>6} {'PARTITION':>9} {'STATE':>11} CPUS "
                f"{'S:C:T':>8} MEMORY TMP_DISK WEIGHT AVAIL_FE {'REASON':<20}"
            )
        for node in cluster.nodes:
            for partition in chosen:
                if node.local not in partition.nodes:
                    continue
                name = partition.name + ("*" if partition.default else "")
                status = statuses.get(node.id)
                if mode == "nodes":
                    state = _node_state(node, used, status=status)
                    out.append(f"{node.name:<{width}} {1:>6} {name:>9} {state:<6}")
                else:
                    state = _node_state(node, used, long=True, status=status)
                    sct = f"1:{node.cores}:1"
                    reason = status.reason[:20] if status is not None else "none"
                    out.append(
                        f"{node.name:<{width}} {1:>6} {name:>9} {state:>11} {node.cores:<4} "
                        f"{sct:>8} {node.memory_mb:>6} {0:>8} {1:>6} {'(null)':>8} {reason:<20}"
                    )
        return "".join(line + "\n" for line in out)
    name_width = max(9, *(len(p.name) + int(p.default) for p in cluster.partitions))
    if mode == "summary":
        out.append(f"{'PARTITION':<{name_width}} AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST")
    elif mode == "long":
        out.append(
            f"{'PARTITION':<{name_width}} AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS "
            " NODES       STATE NODELIST"
        )
    else:
        out.append(f"{'PARTITION':<{name_width}} AVAIL  TIMELIMIT  NODES  STATE NODELIST")
    for partition in chosen:
        name = partition.name + ("*" if partition.default else "")
        limit = format_minutes_limit(partition.max_time)
        nodes = _partition_nodes(cluster, partition)
        head = f"{name:<{name_width}} {'up':>5} {limit:>10}"
        if mode == "summary":  # allocated (draining ones too) / idle / other (drained, down)
            busy = other = 0
            for node in nodes:
                status = statuses.get(node.id)
                if used.get(node.id, 0) and (status is None or status.state is NodeState.DRAIN):
                    busy += 1
                elif status is not None:
                    other += 1
            counts = f"{busy}/{len(nodes) - busy - other}/{other}/{len(nodes)}"
            out.append(f"{head} {counts:>16} {compress(n.name for n in nodes)}")
            continue
        groups: dict[str, list[Node]] = {}
        for node in nodes:
            state = _node_state(node, used, long=mode == "long", status=statuses.get(node.id))
            groups.setdefault(state, []).append(node)
        for state, members in sorted(groups.items(), key=lambda item: item[0], reverse=True):
            hostlist = compress(n.name for n in members)
            if mode == "long":
                out.append(
                    f"{head} {'1-infinite':>10} {'no':>4} {'NO':>8} {'all':>10} "
                    f"{len(members):>6} {state:>11} {hostlist}"
                )
            else:
                out.append(f"{head} {len(members):>6} {state:>6} {hostlist}")
    return "".join(line + "\n" for line in out)


# --- scontrol --------------------------------------------------------------------------------


def _eligible(job: Job, info: JobInfo) -> float | None:
    if info.eligible is not None:
        return info.eligible
    if job.reason in (
        Reason.HELD_USER,
        Reason.HELD_ADMIN,
        Reason.DEPENDENCY,
        Reason.DEPENDENCY_NEVER,
        Reason.ARRAY_TASK_LIMIT,
    ):
        return None
    return max(job.submit, job.request.begin)


def _std_path(pattern: str, job: Job, info: JobInfo) -> str:
    array = job.request.array
    text = pattern or ("slurm-%A_%a.out" if array else "slurm-%j.out")
    base = str(array.array_id) if array else str(job.id)
    text = (
        text.replace("%A", base)
        .replace("%a", str(array.task_id) if array else "4294967294")
        .replace("%j", str(job.id))
        .replace("%x", job.request.name)
        .replace("%u", job.request.user)
    )
    if info.work_dir and not text.startswith("/"):
        return f"{info.work_dir}/{text}"
    return text


def scontrol_show_job(
    job: Job,
    platform: Platform,
    *,
    now: float,
    origin: float = 0.0,
    info: JobInfo = _NO_INFO,
    task_id: int | None = None,
    one_liner: bool = False,
) -> str:
    """``scontrol show job`` for one job (22.05 layout, ending ``Power=``, three spaces, blank).

    For a pending array meta-record asked as ``4_5``, pass the task in ``task_id``.
    """
    request = job.request
    cluster = platform.clusters[0]
    array = request.array
    pending = job.state is JobState.PENDING
    started = _started(job)
    group = info.group or request.user
    head = f"JobId={array.array_id if array and pending else job.id}"
    if array is not None:
        shown_task = task_id if task_id is not None else array.task_id
        head += f" ArrayJobId={array.array_id} ArrayTaskId={shown_task}"
        if array.max_running:
            head += f" ArrayTaskThrottle={array.max_running}"
    eligible = _eligible(job, info)
    accrue = info.accrue if info.accrue is not None else eligible
    if started:
        start_time: float | None = job.start
        end_time = job.end if job.state.finished else job.start + request.time_limit
    elif eligible is not None and not math.isnan(job.planned_start):
        start_time = job.planned_start
        end_time = job.planned_start + request.time_limit
    else:
        start_time = end_time = None
    deadline = "N/A" if math.isinf(request.deadline) else format_timestamp(request.deadline, origin)
    sched_eval = info.last_sched_eval
    if sched_eval is None:
        sched_eval = job.start if started else job.submit
    nodes = compress(_node_names(platform, job))
    node_count = _node_count(job)
    cpus = _cpus(job)
    partition = request.partition or cluster.default_partition.name
    node_line = f"NodeList={nodes}" if started else "NodeList="
    if not started and info.sched_nodes:
        node_line += f" SchedNodeList={info.sched_nodes}"
    if started:
        tres = f"cpu={cpus},node={node_count},billing={cpus}"
    else:
        memory = request.memory_mb or max((n.memory_mb for n in cluster.nodes), default=0)
        tres = f"cpu={cpus},mem={memory}M,node={node_count},billing={cpus}"
    min_cpus = request.tasks_per_node * request.cpus_per_task if request.tasks_per_node else 1
    stdout = _std_path(info.stdout, job, info)
    stderr = _std_path(info.stderr, job, info) if info.stderr else stdout
    if array is not None and pending and task_id is not None:
        stdout = stdout.replace(f"_{array.task_id}.", f"_{task_id}.")
        stderr = stderr.replace(f"_{array.task_id}.", f"_{task_id}.")
    exit_code = f"{job.exit_code}:{info.exit_signal}"
    lines = [
        f"{head} JobName={request.name}",
        f"UserId={request.user}({info.uid}) GroupId={group}({info.gid}) MCS_label=N/A",
        f"Priority={priority_of(job, info)} Nice=0 Account={request.account or '(null)'} "
        f"QOS={info.qos}",
        f"JobState={STATE_LONG[job.state]} Reason={job_reason(job).replace(' ', '_')} "
        f"Dependency={_dependency_text(job)}",
        f"Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode={exit_code}",
        f"RunTime={format_duration_long(_elapsed(job, now))} "
        f"TimeLimit={format_duration_long(request.time_limit)} TimeMin=N/A",
        f"SubmitTime={format_timestamp(job.submit, origin)} "
        f"EligibleTime={format_timestamp(eligible, origin)}",
        f"AccrueTime={format_timestamp(accrue, origin)}",
        f"StartTime={format_timestamp(start_time, origin)} "
        f"EndTime={format_timestamp(end_time, origin)} Deadline={deadline}",
        f"SuspendTime=None SecsPreSuspend=0 LastSchedEval={format_timestamp(sched_eval, origin)}"
        f" Scheduler={info.scheduler}",
        f"Partition={partition} AllocNode:Sid={info.alloc_node}:{info.sid}",
        f"ReqNodeList={compress(request.include) if request.include else '(null)'} "
        f"ExcNodeList={compress(request.exclude) if request.exclude else '(null)'}",
        node_line,
    ]
    if started:
        lines.append(f"BatchHost={_node_names(platform, job)[0]}")
    lines += [
        f"NumNodes={node_count} NumCPUs={cpus} NumTasks={request.tasks} "
        f"CPUs/Task={request.cpus_per_task} ReqB:S:C:T=0:0:*:*",
        f"TRES={tres}",
        f"Socks/Node=* NtasksPerN:B:S:C={request.tasks_per_node}:0:*:* CoreSpec=*",
        f"MinCPUsNode={min_cpus} MinMemoryNode={request.memory_mb} MinTmpDiskNode=0",
        "Features=(null) DelayBoot=00:00:00",
        f"OverSubscribe={'NO' if request.exclusive else 'OK'} Contiguous=0 Licenses=(null) "
        "Network=(null)",
        f"Command={info.command}",
        f"WorkDir={info.work_dir}",
        f"StdErr={stderr}",
        f"StdIn={info.stdin}",
        f"StdOut={stdout}",
        "Power=",
    ]
    if one_liner:
        return " ".join(lines) + " \n"
    return lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "   \n\n"


def scontrol_show_node(
    platform: Platform,
    jobs: Iterable[Job] = (),
    *,
    names: Sequence[str] | None = None,
    origin: float = 0.0,
    infos: Mapping[str, NodeInfo] | None = None,
    statuses: Mapping[int, NodeStatus] | None = None,
) -> str:
    """``scontrol show node [name]``; an unknown name prints ``Node X not found``. A node out
    of service (``statuses``, by node id) shows ``+DRAIN`` or ``DOWN`` and a ``Reason=`` line."""
    cluster = platform.clusters[0]
    used = _used_cores(jobs)
    statuses = statuses or {}
    out: list[str] = []
    by_name = {node.name: node for node in cluster.nodes}
    for name in names if names is not None else list(by_name):
        node = by_name.get(name)
        if node is None:
            out.append(f"Node {name} not found\n")
            continue
        info = (infos or {}).get(node.name, NodeInfo())
        alloc = used.get(node.id, 0)
        status = statuses.get(node.id)
        state = _show_node_state(node, used, status)
        parts = ",".join(p.name for p in cluster.partitions if node.local in p.nodes)
        free = info.free_mem if info.free_mem is not None else node.memory_mb
        port = f" Port={info.port}" if info.port is not None else ""
        alloc_tres = f"cpu={alloc}" if alloc else ""
        lines = [
            f"NodeName={node.name} Arch={info.arch} CoresPerSocket={node.cores} ",
            f"CPUAlloc={alloc} CPUEfctv={node.cores} CPUTot={node.cores} "
            f"CPULoad={info.cpu_load:.2f}",
            "AvailableFeatures=(null)",
            "ActiveFeatures=(null)",
            "Gres=(null)",
            f"NodeAddr={node.name} NodeHostName={node.name}{port} Version={info.version}",
            f"OS={info.os} ",
            f"RealMemory={node.memory_mb} AllocMem=0 FreeMem={free} Sockets=1 Boards=1",
            f"State={state} ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A",
            f"Partitions={parts} ",
            f"BootTime={format_timestamp(info.boot_time, origin, 'None')} "
            f"SlurmdStartTime={format_timestamp(info.slurmd_start_time, origin, 'None')}",
            f"LastBusyTime={format_timestamp(info.last_busy_time, origin, 'None')}",
            f"CfgTRES=cpu={node.cores},mem={node.memory_mb}M,billing={node.cores}",
            f"AllocTRES={alloc_tres}",
            "CapWatts=n/a",
            "CurrentWatts=0 AveWatts=0",
            "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s",
        ]
        if status is not None:
            stamp = format_timestamp(status.since, origin)
            lines.append(f"Reason={status.reason} [{status.user}@{stamp}]")
        out.append(lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "\n")
    return "".join(out)


def scontrol_show_partition(platform: Platform, names: Sequence[str] | None = None) -> str:
    """``scontrol show partition [name]``; an unknown name prints ``Partition X not found``."""
    cluster = platform.clusters[0]
    out: list[str] = []
    for name in names if names is not None else [p.name for p in cluster.partitions]:
        partition = cluster.partition(name)
        if partition is None:
            out.append(f"Partition {name} not found\n")
            continue
        nodes = _partition_nodes(cluster, partition)
        cpus = sum(n.cores for n in nodes)
        memory = sum(n.memory_mb for n in nodes)
        default_time = (
            "NONE"
            if partition.default_time is None
            else format_duration_long(partition.default_time)
        )
        lines = [
            f"PartitionName={partition.name}",
            "AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL",
            f"AllocNodes=ALL Default={'YES' if partition.default else 'NO'} QoS=N/A",
            f"DefaultTime={default_time} DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO",
            f"MaxNodes=UNLIMITED MaxTime={format_duration_long(partition.max_time)} MinNodes=0 "
            "LLN=NO MaxCPUsPerNode=UNLIMITED",
            f"Nodes={compress(n.name for n in nodes)}",
            "PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO",
            "OverTimeLimit=NONE PreemptMode=OFF",
            f"State=UP TotalCPUs={cpus} TotalNodes={len(nodes)} SelectTypeParameters=NONE",
            "JobDefaults=(null)",
            "DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED",
            f"TRES=cpu={cpus},mem={memory}M,node={len(nodes)},billing={cpus}",
        ]
        out.append(lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "\n")
    return "".join(out)


def scontrol_show_config(
    settings: Sequence[tuple[str, str]], *, now: float, origin: float = 0.0, host: str = "localhost"
) -> str:
    """``scontrol show config``: ``Key = Value`` lines (keys padded to 23) between Slurm's
    header and its ``Slurmctld(primary) at HOST is UP`` footer."""
    lines = [f"Configuration data as of {format_timestamp(now, origin)}"]
    lines += [f"{key:<23} = {value}" for key, value in settings]
    lines += ["", f"Slurmctld(primary) at {host} is UP"]
    return "".join(line + "\n" for line in lines)


@dataclass(frozen=True, slots=True)
class LinkInfo:
    """One inter-cluster link (models.md §3): the named cluster's link to the central switch,
    its load now, and its load history summed up since simulated time 0."""

    cluster: str
    capacity: float  # MBW_k; math.inf = unlimited
    used: float  # ΣBW_j^k of the jobs running on it now
    jobs: tuple[tuple[int, float], ...]  # (job id, BW_j^k) of each job loading it now
    peak_used: float
    mean_used: float
    saturated_time: float  # seconds with demand over capacity


def _bandwidth(value: float, unit: str) -> str:
    return "UNLIMITED" if math.isinf(value) else f"{value:g}{unit}"


def scontrol_show_link(links: Sequence[LinkInfo], unit: str) -> str:
    """``scontrol show link`` (a batchlab addition), laid out as ``show partition``: each link's
    capacity, use, load (used / capacity), whether it is saturated, the slowdown SC_k it puts on
    communication (OAS eq. 5–6), the jobs that load it with their bandwidth, and its history."""
    out: list[str] = []
    for link in links:
        load = 0.0 if math.isinf(link.capacity) else 100.0 * link.used / link.capacity
        saturated = link.used > link.capacity
        slowdown = link_slowdown(link.capacity, link.used)
        ids = ",".join(str(job_id) for job_id, _ in link.jobs) or "(null)"
        shares = ",".join(f"{job_id}:{bw:g}{unit}" for job_id, bw in link.jobs) or "(null)"
        lines = [
            f"LinkName={link.cluster} Cluster={link.cluster}",
            f"Capacity={_bandwidth(link.capacity, unit)} Used={_bandwidth(link.used, unit)} "
            f"Load={load:.1f}% Saturated={'YES' if saturated else 'NO'} Slowdown={slowdown:g}",
            f"ActiveFlows={len(link.jobs)} JobIds={ids} JobBandwidth={shares}",
            f"PeakUsed={_bandwidth(link.peak_used, unit)} "
            f"MeanUsed={_bandwidth(link.mean_used, unit)} "
            f"SaturatedTime={format_duration_long(link.saturated_time)}",
        ]
        out.append(lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "\n")
    return "".join(out)


# --- sacct -----------------------------------------------------------------------------------

SACCT_DEFAULT = ("JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode")
_SACCT_WIDTHS = {"JobID": 12, "ExitCode": 8, "NodeList": 15, "JobIDRaw": 12}
_NOT_ELIGIBLE = (
    Reason.HELD_USER,
    Reason.HELD_ADMIN,
    Reason.DEPENDENCY,
    Reason.DEPENDENCY_NEVER,
    Reason.BEGIN_TIME,
    Reason.ARRAY_TASK_LIMIT,
)


_SacctCell = Callable[[Job, JobInfo, bool], str]  # (job, its info, is it the .batch step)


def _sacct_cells(platform: Platform, now: float, origin: float) -> dict[str, _SacctCell]:
    """What each sacct field (lower case) shows for a job or its ``.batch`` step; durations and
    timestamps repeat across many records, so each distinct one is formatted once."""
    default_partition = platform.clusters[0].default_partition.name
    duration = cache(format_duration_long)
    stamp = cache(lambda moment: format_timestamp(moment, origin))

    def job_id(job: Job, info: JobInfo, step: bool) -> str:
        array = job.request.array
        text = f"{array.array_id}_{array.task_id}" if array else str(job.id)
        return text + ".batch" if step else text

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
        "jobidraw": lambda job, info, step: str(job.id) + (".batch" if step else ""),
        "jobname": lambda job, info, step: "batch" if step else job.request.name,
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
    if percent and width.isdigit():
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

    Jobs are listed by job id, each started job followed by its ``.batch`` step. Pending jobs
    that are not yet eligible (held, dependency, begin time, throttled array tasks) are not
    listed, as in the samples.
    """
    columns = [_sacct_field(spec) for spec in fields]
    known = infos or {}
    records: list[tuple[Job, JobInfo, bool]] = []
    for job in sorted(jobs, key=lambda j: j.id):
        if job.state is PENDING and job.reason in _NOT_ELIGIBLE:
            continue
        info = known.get(job.id, _NO_INFO)
        records.append((job, info, False))
        if not allocations and _started(job):
            records.append((job, info, True))
    cells = _sacct_cells(platform, now, origin)
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
        lines.append(" ".join(_fit([name], width, name == "JobID")[0] for name, width in columns))
        lines.append(" ".join("-" * width for _, width in columns))
    for column, (name, width) in zip(texts, columns, strict=True):
        column[:] = _fit(column, width, name == "JobID")
    lines.extend(map(" ".join, _rows(texts, len(records))))
    return _text(lines, " " if columns else "")


def _fit(texts: list[str], width: int, left: bool) -> list[str]:
    """sacct's cells: padded to ``width`` (on the right if ``left``), or cut to it, ending in
    "+". A comprehension, not a call per cell: sacct lays out hundreds of thousands."""
    pad = str.ljust if left else str.rjust
    return [pad(text, width) if len(text) <= width else text[: width - 1] + "+" for text in texts]


def _text(lines: list[str], end: str) -> str:
    """The lines, each followed by ``end`` and a newline."""
    if not lines:
        return ""
    separator = end + "\n"
    return separator.join(lines) + separator


def _rows(columns: list[list[str]], count: int) -> Iterable[tuple[str, ...]]:
    return zip(*columns, strict=True) if columns else [()] * count
