"""Jobs: what a user asked for (:class:`Request`) and what became of it (:class:`Job`).

A policy sees a job's request and state but never its actual duration: the emulator keeps that
apart (models.md §2), so schedulers work from time limits exactly as real ones do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum


class JobState(Enum):
    """Slurm job states; ``value`` is the squeue compact code."""

    PENDING = "PD"
    RUNNING = "R"
    COMPLETED = "CD"
    FAILED = "F"
    TIMEOUT = "TO"
    CANCELLED = "CA"
    NODE_FAIL = "NF"
    DEADLINE = "DL"

    # members are singletons: hash by identity, in C (Enum's own hash is a Python call)
    __hash__ = object.__hash__

    @property
    def finished(self) -> bool:
        return self in FINISHED_STATES


class Reason(Enum):
    """Why a job waits (Slurm's reason codes, printed as ``value``)."""

    NONE = "None"
    PRIORITY = "Priority"
    RESOURCES = "Resources"
    DEPENDENCY = "Dependency"
    DEPENDENCY_NEVER = "DependencyNeverSatisfied"
    BEGIN_TIME = "BeginTime"
    HELD_USER = "JobHeldUser"
    HELD_ADMIN = "JobHeldAdmin"
    ARRAY_TASK_LIMIT = "JobArrayTaskLimit"
    PARTITION_TIME_LIMIT = "PartitionTimeLimit"
    PARTITION_NODE_LIMIT = "PartitionNodeLimit"
    PARTITION_CONFIG = "PartitionConfig"
    BAD_CONSTRAINTS = "BadConstraints"  # a FAILED job refused at submission (engine/refused.py)

    __hash__ = object.__hash__  # as JobState's: dicts keyed by reason hash in C


# the states a job ends in; a set, so that a test reads no member (a slow read on Python 3.11)
FINISHED_STATES = frozenset(JobState) - {JobState.PENDING, JobState.RUNNING}


class DependencyKind(Enum):
    AFTER = "after"
    AFTER_ANY = "afterany"
    AFTER_OK = "afterok"
    AFTER_NOT_OK = "afternotok"
    AFTER_CORR = "aftercorr"
    SINGLETON = "singleton"


@dataclass(frozen=True, slots=True)
class Dependency:
    """One ``type:id[_task][+min]`` term of ``sbatch -d``."""

    kind: DependencyKind
    job_id: int = 0
    delay: float = 0.0  # seconds, for after:id+min
    whole_array: bool = False  # job_id is an array's: every task (Slurm shows ``ID_*``)
    task_id: int | None = None  # one task of the array job_id (``ID_T``)


@dataclass(frozen=True, slots=True)
class Dependencies:
    """All terms of ``-d``: every term must hold (``,``), or any may (``?``)."""

    terms: tuple[Dependency, ...]
    any_of: bool = False


@dataclass(frozen=True, slots=True)
class ArrayTask:
    """Position of a job in an array (``%A_%a``) and the array's running-task cap (``%N``)."""

    array_id: int
    task_id: int
    max_running: int = 0  # 0 = no cap


@dataclass(frozen=True, slots=True)
class Communication:
    """Bulk-synchronous parallel job (OAS paper, §3.1): base time on dedicated speed-1 nodes,
    computation weight σ and per-task bandwidth PTBW in the platform's bandwidth unit."""

    base_time: float
    sigma: float = 1.0
    task_bw: float = 0.0


@dataclass(frozen=True, slots=True)
class Moldable:
    """Moldable job (BPU paper): asks for a computing power in BPUs instead of a task count."""

    power: float
    serial_fraction: float = 0.0


@dataclass(frozen=True, slots=True)
class Economic:
    """Economic job (ALP/AMP paper, models.md §4.7): its N slots are its cores and its task
    length t its time limit; it asks for nodes of speed >= ``min_speed``, each core at most
    ``price_cap`` per core-second (C, ALP) and the whole window within ``budget`` (S, AMP;
    None: S = C·t·N)."""

    min_speed: float = 0.0
    price_cap: float | None = None
    budget: float | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """What the user submitted. Immutable: an update makes a new request."""

    tasks: int = 1
    cpus_per_task: int = 1
    time_limit: float = math.inf
    name: str = "job"
    user: str = "user"
    account: str = ""
    partition: str = ""  # "" = the cluster's default partition
    clusters: tuple[str, ...] = ()  # () = any cluster
    min_nodes: int = 0  # 0 = as few as fit
    # sbatch -N MIN-MAX: as many nodes as are free at start, up to this (0 = exactly min_nodes);
    # policies plan with MIN, the job gets up to MAX (the sbatch man page: "as many nodes as
    # possible within the range specified and without delaying the initiation of the job")
    max_nodes: int = 0
    # -N MIN-MAX without -n: ``tasks_per_node`` (default 1) tasks on each node it gets (``tasks``
    # counts MIN's)
    tasks_follow_nodes: bool = False
    tasks_per_node: int = 0  # 0 = no cap
    memory_mb: int = 0
    # sbatch -C: node feature names joined by & (all) and | (any); "" = any node
    features: str = ""
    # GPUs it takes on each of its nodes (sbatch --gres=gpu:N): the cluster's placement gives
    # it only nodes with that many free, and holds them until it ends
    gpus_per_node: int = 0
    exclusive: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    begin: float = 0.0
    deadline: float = math.inf
    dependencies: Dependencies | None = None
    held: bool = False
    # the queue's order key beside FIFO (higher first, then by submission): 0 for a FIFO job;
    # a controller gives a job with a priority of its own (an operator's, a release's lowest)
    # that priority relative to the top of priority/basic's FIFO band (Controller.reorder)
    priority: int = 0
    # ``--time-min`` (seconds, at most time_limit; 0: none): Slurm's backfill may start the job
    # with a limit down to this one, to end before a later job's reservation
    time_min: float = 0.0
    array: ArrayTask | None = None
    communication: Communication | None = None
    moldable: Moldable | None = None
    economic: Economic | None = None
    # the job's home site (BPU paper: a job arrives at a local site and tries it first); a hint
    # for grid policies, not a restriction ("" = none): ``clusters`` restricts
    origin: str = ""
    plain: bool = field(init=False, repr=False, compare=False)
    # plain, rigid, for any cluster, with nothing to wait for but cores and its begin time: what
    # most trace jobs are
    simple: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # "Any free core can take any task": no shape, placement or partition constraint. Known
        # once here, because the engine asks on every placement.
        plain = (
            self.cpus_per_task == 1
            and not self.partition
            and not self.min_nodes
            and not self.tasks_per_node
            and not self.exclusive
            and not self.include
            and not self.exclude
            and not self.features
            and not self.gpus_per_node
        )
        object.__setattr__(self, "plain", plain)
        simple = (
            plain
            and not self.clusters
            and not self.held
            and self.dependencies is None
            and self.array is None
            and self.communication is None
            and self.moldable is None
            and self.economic is None
        )
        object.__setattr__(self, "simple", simple)

    @property
    def cores(self) -> int:
        return self.tasks * self.cpus_per_task


@dataclass(slots=True, eq=False)
class Job:
    """A submitted job and its life so far. Policies read it; only the engine writes it."""

    id: int
    submit: float
    request: Request
    state: JobState = JobState.PENDING
    reason: Reason = Reason.NONE
    cluster: int = -1  # cluster whose queue holds it or that runs it; -1 = grid queue
    start: float = math.nan
    end: float = math.nan
    expected_end: float = math.inf  # start + time limit on its nodes: what policies plan with
    nodes: tuple[int, ...] = ()  # platform node ids while running / after
    node_cores: tuple[int, ...] = ()  # cores used on each of ``nodes``
    planned_start: float = math.nan  # the latest reservation a policy made
    planned_nodes: tuple[int, ...] = ()  # and its nodes, when the policy named them
    explanation: str = ""  # the scheduler's last word on it
    exit_code: int = 0
    slowdown_max: float = 1.0  # worst communication slowdown SC_j it ran under (OAS eq. 7)
    slowdown_mean: float = 1.0  # SC_j averaged over its run time
    moved_from: tuple[int, ...] = ()  # clusters a grid policy reallocated it away from, in order
    # copied from the request, because every scheduling decision reads them: a backfilling scan
    # of a long queue that read them through the request touched two objects per job, not one
    cores: int = field(init=False)  # request.cores
    time_limit: float = field(init=False)  # request.time_limit

    def __post_init__(self) -> None:
        self.cores = self.request.tasks * self.request.cpus_per_task
        self.time_limit = self.request.time_limit

    @property
    def wait(self) -> float:
        return self.start - self.submit

    def forget_run(self) -> None:
        """Pending again, as before its first start (``scontrol requeue``): same id and request;
        a moldable job or a node range is sized afresh at its next start."""
        self.state = JobState.PENDING
        self.start = self.end = math.nan
        self.expected_end = math.inf
        self.nodes = self.node_cores = ()
        self.cores = self.request.cores
        self.exit_code = 0
        self.slowdown_max = self.slowdown_mean = 1.0


@dataclass(frozen=True, slots=True)
class Submission:
    """A job as a workload delivers it: who submits what, when, and how long it really runs.

    ``runtime`` is the actual duration on speed-1 nodes without contention (for a BSP job, its base
    time). Only the engine sees it; policies plan with ``request.time_limit``.
    """

    job_id: int
    submit: float
    request: Request
    runtime: float
