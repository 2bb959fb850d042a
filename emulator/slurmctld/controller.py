"""The controller: Slurm's slurmctld over an :class:`~emulator.engine.Engine`.

It keeps what Slurm knows and the engine does not: job ids as Slurm shows them (from 1, one id per
array; an array task gets its own id when it starts, the last one takes the array's), users and
uids, priorities (``priority/basic``: FIFO by submission, 0 when held, a new lower one on
release), scripts, working directories and output paths, and who cancelled what. Commands come in
as argv lists through :meth:`Controller.execute` and answer with a :class:`CommandResult`; a
command never raises: bad input gives Slurm's message on stderr and a non-zero exit.

Time is simulated. ``origin`` is the epoch second of simulated 0, so every timestamp is
deterministic. Commands run at :attr:`Controller.now`; jobs submitted at an instant are scheduled
when time next moves (:meth:`advance_to`, :meth:`wait`), as Slurm's scheduler runs a little after
a submission: ``squeue`` right after ``sbatch`` shows the job pending with reason ``None``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import PurePosixPath

from emulator.engine import Engine, Observer
from emulator.engine.eligibility import partition_problem
from emulator.model.job import Dependencies, Dependency, Job, JobState, Reason, Request
from emulator.model.node_state import NodeStatus
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.slurm.formats import BASIC_PRIORITY_TOP, JobInfo
from emulator.slurmctld.accounting import Accounting, JobRow

__all__ = [
    "DEFAULT_ORIGIN",
    "MIN_JOB_AGE",
    "VERSION",
    "CommandResult",
    "Context",
    "Controller",
    "JobRecord",
]

DEFAULT_ORIGIN = datetime(2026, 11, 22, tzinfo=UTC).timestamp()  # the samples' day, 00:00 UTC
MIN_JOB_AGE = 300.0  # seconds a finished job stays in squeue / scontrol (slurm.conf MinJobAge)
TASK_ID_BASE = 1 << 40  # engine ids of array tasks live above every Slurm id
VERSION = "slurm-wlm 22.05.8"
_FIXED_UIDS = {"root": 0, "nobody": 65534}
# Enum members read for every job of a long queue, bound once: on Python 3.11 ``JobState.PENDING``
# goes through EnumType.__getattr__'s slot, several times the cost of a global read (as in
# emulator/engine/engine.py).
PENDING, RUNNING = JobState.PENDING, JobState.RUNNING
NO_REASON, PRIORITY = Reason.NONE, Reason.PRIORITY
HELD_USER, HELD_ADMIN = Reason.HELD_USER, Reason.HELD_ADMIN


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command printed and its exit status."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    waits: tuple[int, ...] = ()  # engine ids an ``sbatch -W`` left to its host to wait for


@dataclass(slots=True)
class JobRecord:
    """Slurm's bookkeeping for one engine job (a plain job or one array task)."""

    engine_id: int
    slurm_id: int
    cluster: int
    user: str
    uid: int
    gid: int
    group: str
    work_dir: str
    command: str
    stdout: str
    stderr: str
    script: str
    priority: int
    exit_code: int  # what the script will exit with
    dependency: Dependencies | None  # as the user gave it, unknown ids dropped
    sid: int = 0
    cancelled_by: int = 0
    exit_signal: int = 0
    released_at: float = math.nan  # reason None until the next pass
    final_written: bool = False
    info: JobInfo | None = None  # the last view's JobInfo (see Controller.view)


@dataclass
class Context:
    """One command's caller."""

    user: str
    env: Mapping[str, str]
    stdin: str | None
    cwd: str


@dataclass
class _Users:
    """User names, uids and groups: root 0, nobody 65534, others from 1000 in order of use."""

    uids: dict[str, int] = field(default_factory=lambda: dict(_FIXED_UIDS))

    def uid(self, user: str) -> int:
        if user not in self.uids:
            self.uids[user] = 1000 + sum(1 for u in self.uids if u not in _FIXED_UIDS)
        return self.uids[user]

    def known(self, user: str) -> bool:
        return user in self.uids or (user.isdigit() and int(user) in self.uids.values())

    def name(self, user: str) -> str:
        if user.isdigit():
            for name, uid in self.uids.items():
                if uid == int(user):
                    return name
        return user

    @staticmethod
    def group(user: str) -> str:
        return "nogroup" if user == "nobody" else user


class Controller(Observer):
    """slurmctld (and slurmdbd through :class:`Accounting`) for one emulated platform."""

    def __init__(
        self,
        platform: Platform,
        scheduler: str = "easy",
        *,
        origin: float = DEFAULT_ORIGIN,
        accounting: Accounting | None = None,
        operators: Iterable[str] = ("root",),
        alloc_node: str = "localhost",
    ) -> None:
        self.platform = platform
        self.origin = origin
        self.engine = Engine(platform, scheduler)
        self.accounting = accounting if accounting is not None else Accounting(origin=origin)
        self.accounting.origin = origin
        self.operators = frozenset(operators)
        self.alloc_node = alloc_node
        self.users = _Users()
        self.files: dict[str, str] = {}  # a virtual file system: path -> text (command files)
        # True: ``sbatch -W`` answers at once with CommandResult.waits, and the host (the
        # daemon, serving others meanwhile) waits; False: it runs the clock until the jobs end
        self.defer_waits = False
        self.records: dict[int, JobRecord] = {}  # by engine id
        self.arrays: dict[int, list[int]] = {}  # Slurm array id -> engine ids of its tasks
        self._next_id = self.accounting.max_job_id() + 1
        self._task_ids = itertools.count(TASK_ID_BASE)
        self._rank = 0
        self._platforms = [_cluster_platform(platform, c) for c in platform.clusters]
        self.engine.observe(self)

    # --- time ----------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.engine.now

    def advance_to(self, time: float) -> None:
        """Run the emulation up to simulated ``time`` (no-op if it is not later than now)."""
        if time > self.now:
            self.engine.run(until=time)

    def advance(self, seconds: float) -> None:
        self.advance_to(self.now + max(0.0, seconds))

    def wait(self, done: Callable[[], bool] | None = None) -> None:
        """Run until ``done()`` holds or nothing is left to happen (``None``: until idle)."""
        kernel = self.engine.kernel
        while done is None or not done():
            before = self.now
            next_time = kernel.next_time()
            if math.isinf(next_time):
                if not kernel.settle_pending:
                    break
                self.engine.run(until=self.now)  # a pass now may start jobs: look again
                continue
            self.engine.run(until=next_time)
            if self.now == before and math.isinf(kernel.next_time()):
                break

    def sync(self) -> None:
        """Write every accounting row not yet final, as it is now: what a reader (sacct) calls
        first, rather than writing at every event (:mod:`emulator.slurmctld.accounting`)."""
        rows = []
        for record in self.records.values():
            if record.final_written:
                continue
            row = self._describe_record(record)
            if row is not None:
                rows.append(row)
                if row.job.state.finished:
                    record.final_written = True
        self.accounting.write_all(rows)

    def close(self) -> None:
        """A clean stop: the rows not yet final are written, then the store is closed."""
        self.sync()
        self.accounting.close()

    # --- engine hooks --------------------------------------------------------------------------
    def job_started(self, job: Job) -> None:
        record = self.records.get(job.id)
        array = job.request.array
        if record is None or array is None:
            return
        tasks = self.arrays.get(array.array_id, [])
        unstarted = [
            eid
            for eid in tasks
            if eid != job.id
            and math.isnan(self.engine.jobs[eid].start)
            and self.engine.jobs[eid].state is JobState.PENDING
        ]
        if unstarted:  # it splits off the array record with an id of its own
            record.slurm_id = self._new_id()
        else:
            record.slurm_id = array.array_id

    def job_ended(self, job: Job) -> None:
        record = self.records.get(job.id)
        if record is None:
            return
        record.final_written = False

    # --- ids and lookups -----------------------------------------------------------------------
    @property
    def next_job_id(self) -> int:
        """The id the next submission gets (``scontrol show config``'s NEXT_JOB_ID)."""
        return self._next_id

    def _new_id(self) -> int:
        job_id = self._next_id
        self._next_id += 1
        return job_id

    def _new_priority(self) -> int:
        self._rank += 1
        return BASIC_PRIORITY_TOP - self._rank

    def record_ids(self, slurm_id: int) -> list[int]:
        """Engine ids behind a Slurm id: a plain job, a split-off task, or every array task."""
        if slurm_id in self.arrays:
            return list(self.arrays[slurm_id])
        return [eid for eid, r in self.records.items() if r.slurm_id == slurm_id]

    def resolve(self, spec: str) -> list[int] | None:
        """Engine ids for ``N``, ``N_T``, ``N_[a-b,c]`` (``N.step`` means the job); None if
        the text is not a job id."""
        match = re.fullmatch(r"(\d+)(?:_(\d+|\[[0-9,\-]+\]))?(?:\.\w+)?", spec)
        if match is None:
            return None
        base = int(match[1])
        if match[2] is None:
            return self.record_ids(base)
        tasks = self.arrays.get(base, [])
        if match[2].startswith("["):
            wanted: set[int] = set()
            for part in match[2][1:-1].split(","):
                low, _, high = part.partition("-")
                if not low.isdigit() or (high and not high.isdigit()):
                    return []
                wanted.update(range(int(low), int(high or low) + 1))
        else:
            wanted = {int(match[2])}
        return [eid for eid in tasks if _task_id(self.engine.jobs[eid]) in wanted]

    def visible(self, record: JobRecord) -> bool:
        """Still in the controller's memory (squeue, scontrol): live, or ended < MinJobAge ago."""
        job = self.engine.jobs[record.engine_id]
        return not job.state.finished or job.end >= self.now - MIN_JOB_AGE

    def is_operator(self, user: str) -> bool:
        return user in self.operators

    # --- views for the formatters ----------------------------------------------------------------
    def cluster_platform(self, index: int) -> Platform:
        """Cluster ``index`` alone, nodes renumbered from 0 (what the formatters expect)."""
        return self._platforms[index]

    def cluster_of(self, record: JobRecord) -> int:
        job = self.engine.jobs[record.engine_id]
        return job.cluster if job.cluster >= 0 else record.cluster

    def shown(self, k: int) -> Iterator[JobRecord]:
        """The records of cluster ``k`` still in memory (:meth:`visible`), in submission order:
        :meth:`cluster_of` and :meth:`visible` in one pass, as squeue needs for long queues."""
        jobs = self.engine.jobs
        oldest = self.now - MIN_JOB_AGE
        for record in self.records.values():
            job = jobs[record.engine_id]
            if (job.cluster if job.cluster >= 0 else record.cluster) == k and (
                job.state is PENDING or job.state is RUNNING or job.end >= oldest
            ):
                yield record

    def node_statuses(self, k: int) -> dict[int, NodeStatus]:
        """Cluster ``k``'s nodes out of service, by local index (the formatters' node ids)."""
        nodes = self.platform.nodes
        return {
            nodes[node_id].local: status
            for node_id, status in self.engine.node_status.items()
            if nodes[node_id].cluster == k
        }

    def running_views(self, k: int) -> list[Job]:
        """Views of the jobs running on cluster ``k`` (sinfo, scontrol show node)."""
        return [
            self.view(self.records[job.id])[0]
            for job in self.engine.clusters[k].running
            if job.cluster == k and job.id in self.records
        ]

    def view(self, record: JobRecord) -> tuple[Job, JobInfo]:
        """The job as Slurm shows it (Slurm id, cluster-local nodes) and its :class:`JobInfo`.

        Where that is the engine's job as it is (the common case on the first cluster), the
        engine's own :class:`Job` comes back, not a copy: callers must not change it. squeue
        builds 100,000 of these per call, so the common case does as little as it can.
        """
        job = self.engine.jobs[record.engine_id]
        nodes, node_cores = job.nodes, job.node_cores
        if nodes:  # the cluster's part, numbered from 0
            cluster = self.platform.clusters[job.cluster if job.cluster >= 0 else record.cluster]
            first = cluster.nodes[0].id
            count = len(cluster.nodes)
            if first or max(nodes) >= count:
                pairs = [
                    (n - first, c)
                    for n, c in zip(nodes, node_cores, strict=False)
                    if 0 <= n - first < count
                ]
                nodes = tuple(n for n, _ in pairs)
                node_cores = tuple(c for _, c in pairs)
        reason = self.shown_reason(record, job)
        request = job.request
        if request.dependencies != record.dependency:  # engine ids -> the ids the user gave
            request = replace(request, dependencies=record.dependency)
        view = job
        if (
            record.slurm_id != job.id
            or job.cluster != 0
            or nodes is not job.nodes
            or reason is not job.reason
            or request is not job.request
        ):
            view = Job(
                record.slurm_id,
                job.submit,
                request,
                state=job.state,
                reason=reason,
                cluster=0,
                start=job.start,
                end=job.end,
                expected_end=job.expected_end,
                nodes=nodes,
                node_cores=node_cores,
                planned_start=job.planned_start,
                explanation=job.explanation,
                exit_code=job.exit_code,
            )
        return view, self._info(record, job, reason)

    def unscheduled(self, record: JobRecord, job: Job) -> bool:
        """Whether the pending ``job`` waits for the pass that follows its submission or release
        (its reason changes when time moves, with no event of its own)."""
        return job.state is PENDING and (
            job.cluster < 0 or record.released_at == self.engine.kernel.now
        )

    def shown_reason(self, record: JobRecord, job: Job) -> Reason:
        """The reason squeue shows: the engine's, except for a job no pass has looked at yet,
        which shows ``None`` or what slurmctld decided at submission (a hold, a limit)."""
        reason = job.reason
        if (reason is PRIORITY or reason is NO_REASON) and self.unscheduled(record, job):
            reason = NO_REASON
            if math.isnan(record.released_at):
                cluster = self.platform.clusters[record.cluster if job.cluster < 0 else job.cluster]
                reason = self._submit_reason(job.request, cluster)
        return reason

    @staticmethod
    def shown_priority(record: JobRecord, reason: Reason) -> int:
        """The priority squeue shows: 0 while held."""
        return 0 if reason is HELD_USER or reason is HELD_ADMIN else record.priority

    def _info(self, record: JobRecord, job: Job, reason: Reason) -> JobInfo:
        """The record's :class:`JobInfo`, kept on the record while what it shows is unchanged."""
        if job.state is PENDING:
            scheduler = "Main" if math.isnan(job.planned_start) else "Backfill"
        else:
            scheduler = "Backfill" if "backfill" in job.explanation.lower() else "Main"
        priority = self.shown_priority(record, reason)
        info = record.info
        if (
            info is None
            or info.priority != priority
            or info.scheduler != scheduler
            or info.exit_signal != record.exit_signal
            or info.cancelled_by != record.cancelled_by
        ):
            info = record.info = JobInfo(
                priority=priority,
                uid=record.uid,
                gid=record.gid,
                group=record.group,
                alloc_node=self.alloc_node,
                sid=record.sid,
                work_dir=record.work_dir,
                command=record.command,
                stdout=record.stdout,
                stderr=record.stderr,
                exit_signal=record.exit_signal,
                cancelled_by=record.cancelled_by,
                scheduler=scheduler,
            )
        return info

    @staticmethod
    def _submit_reason(request: Request, cluster: Cluster) -> Reason:
        """What slurmctld decides at submission, before any pass: a hold, a partition limit."""
        if request.held:
            return Reason.HELD_USER
        problem = partition_problem(request, cluster)
        return Reason.NONE if problem is None else problem

    def _describe_record(self, record: JobRecord) -> JobRow | None:
        if record.engine_id not in self.engine.jobs:
            return None
        view, _ = self.view(record)
        return JobRow(
            self.platform.clusters[self.cluster_of(record)].name,
            record.engine_id,
            view,
            record.uid,
            record.exit_signal,
            record.cancelled_by,
            record.work_dir,
        )

    # --- submitting (used by sbatch) -------------------------------------------------------------
    def add_workload_job(self, request: Request, runtime: float) -> JobRecord:
        """A workload's job (a trace's, a generated one's), recorded as if its user had
        ``sbatch``-ed it now: a Slurm id, a record, a priority, so squeue and sacct show it."""
        return self.add_job(
            request,
            runtime,
            ctx_user=request.user,
            work_dir="/",
            stdout="",
            stderr="",
            script="",
            command="(null)",
            exit_code=0,
            cluster=0,
            job_id=self._new_id(),
            dependency=None,
        )

    def add_job(
        self,
        request: Request,
        runtime: float,
        *,
        ctx_user: str,
        work_dir: str,
        stdout: str,
        stderr: str,
        script: str,
        command: str,
        exit_code: int,
        cluster: int,
        job_id: int,
        dependency: Dependencies | None,
        engine_id: int | None = None,
    ) -> JobRecord:
        uid = self.users.uid(ctx_user)
        group = _Users.group(ctx_user)
        priority = 0 if request.held else self._array_priority(request)
        eid = job_id if engine_id is None else engine_id
        record = JobRecord(
            engine_id=eid,
            slurm_id=job_id,
            cluster=cluster,
            user=ctx_user,
            uid=uid,
            gid=65534 if ctx_user == "nobody" else uid,
            group=group,
            work_dir=work_dir,
            command=command,
            stdout=stdout,
            stderr=stderr,
            script=script,
            priority=priority,
            exit_code=exit_code,
            dependency=dependency,
            sid=1000 + uid % 1000,
        )
        self.records[eid] = record
        self.engine.submit(request, runtime, job_id=eid, exit_code=exit_code)
        return record

    def _array_priority(self, request: Request) -> int:
        array = request.array
        if array is not None:
            for eid in self.arrays.get(array.array_id, []):
                record = self.records.get(eid)
                if record is not None and record.priority:
                    return record.priority
        return self._new_priority()

    def engine_dependencies(self, dependency: Dependencies | None) -> Dependencies | None:
        """The dependency in engine ids: an array id stands for all its tasks."""
        if dependency is None:
            return None
        terms: list[Dependency] = []
        for term in dependency.terms:
            if term.job_id == 0:
                terms.append(term)
                continue
            terms.extend(replace(term, job_id=eid) for eid in self.record_ids(term.job_id))
        return Dependencies(tuple(terms), dependency.any_of) if terms else None

    def known_id(self, slurm_id: int) -> bool:
        return bool(self.record_ids(slurm_id))

    # --- commands --------------------------------------------------------------------------------
    def execute(
        self,
        argv: list[str],
        *,
        user: str = "root",
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        cwd: str = "/",
    ) -> CommandResult:
        """Run one command line (``argv[0]`` is the command). Never raises."""
        from emulator.slurmctld import commands

        if not argv:
            return CommandResult()
        self.users.uid(user)
        ctx = Context(user, env or {}, stdin, cwd)
        name = argv[0] if "/" not in argv[0] else PurePosixPath(argv[0]).name
        handler = commands.COMMANDS.get(name)
        if handler is None:
            return CommandResult("", f"batchlab: {name}: command not found\n", 127)
        try:
            result = handler(self, argv[1:], ctx)
        except Exception as error:  # a bug must not take the controller down
            return CommandResult("", f"{name}: error: internal error: {error!r}\n", 1)
        return result

    def read_file(self, path: str, cwd: str) -> str | None:
        """A script: from the virtual file system, else from disk; None if there is none."""
        full = str(PurePosixPath(cwd) / path)
        for key in (full, path):
            if key in self.files:
                return self.files[key]
        try:
            with open(full, encoding="utf-8") as handle:
                return handle.read()
        except OSError:
            return None


def _task_id(job: Job) -> int:
    array = job.request.array
    return array.task_id if array is not None else -1


def _cluster_platform(platform: Platform, cluster: Cluster) -> Platform:
    nodes = tuple(
        Node(
            id=node.local,
            name=node.name,
            cluster=0,
            local=node.local,
            cores=node.cores,
            speed=node.speed,
            memory_mb=node.memory_mb,
            price=node.price,
        )
        for node in cluster.nodes
    )
    partitions = tuple(
        Partition(p.name, p.nodes, p.default, p.max_time, p.default_time)
        for p in cluster.partitions
    )
    alone = Cluster(cluster.name, 0, nodes, partitions, cluster.link_capacity)
    return Platform(cluster.name, (alone,), platform.bandwidth_unit)
