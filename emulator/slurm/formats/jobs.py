"""What every formatter shares: the job and node facts the model does not hold (:class:`JobInfo`,
:class:`NodeInfo`), the state and reason texts, and the cells of a job several commands print."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
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
from emulator.model.platform import Platform

BASIC_PRIORITY_TOP = 4294901760  # priority/basic: the first job gets this minus one
REASON_SHOWN = {reason: f"({reason.value})" for reason in Reason}  # squeue's %R of a waiting job


@dataclass(frozen=True, slots=True)
class JobExtras:
    """What sbatch options beyond the model's request set, as ``scontrol show job`` prints it
    (Slurm 22.05's ``slurm_sprint_job_info``). The defaults are a job given none of them."""

    nice: int = 0
    # --requeue / --no-requeue; None: the cluster's JobRequeue=1 (the samples'), shown as 1,
    # though batchlab requeues a job a DOWN node killed only when it was given --requeue
    requeue: bool | None = None
    time_min: float | None = None  # seconds; None: TimeMin=N/A
    features: str = ""  # --constraint, as given
    mem_per_cpu: int = 0  # MiB; 0: MinMemoryNode is shown instead
    tmp_mb: int = 0
    tres_per_node: str = ""  # "gres:gpu:2" (--gres, --gpus-per-node)
    tres_per_job: str = ""  # "gres:gpu:4" (--gpus)
    tres_per_task: str = ""  # "gres:gpu:1" (--gpus-per-task)
    comment: str = ""
    qos: str = ""  # "" = normal
    reservation: str = ""
    licenses: str = ""
    mail_type: str = ""
    mail_user: str = ""
    wckey: str = ""
    contiguous: bool = False
    power: str = ""


NO_EXTRAS = JobExtras()


@dataclass(frozen=True, slots=True)
class JobInfo:
    """What Slurm shows about a job that the model does not record."""

    priority: int | None = None  # None: priority/basic from the job id (0 when held)
    uid: int = 0
    gid: int = 0
    group: str = ""  # "" = the user name
    qos: str = "normal"
    eligible: float | None = None  # None: derived from the job; inf: Unknown
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
    reallocated_from: tuple[str, ...] = ()  # clusters a grid policy moved it away from, in order
    cost: float | None = None  # on a priced platform: what it cost so far (emulator.model.cost)
    extras: JobExtras = NO_EXTRAS  # what sbatch's recorded options set


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


def task_ranges(tasks: Iterable[int]) -> str:
    """Array task ids as Slurm prints a pending range: ``3-5,7`` (no brackets)."""
    return compress(f"t{task}" for task in tasks)[1:].strip("[]")


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
        target = f"{term.job_id}_*" if term.whole_array else str(term.job_id)
        if term.task_id is not None:
            target = f"{term.job_id}_{term.task_id}"
        parts.append(f"{term.kind.value}:{target}{delay}{status}")
    return ("?" if deps.any_of else ",").join(parts)


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
