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

The records it keeps are in :mod:`emulator.slurmctld.records`, and how it shows a job (Slurm ids,
cluster-local nodes, reasons, priorities) in :mod:`emulator.slurmctld.job_views`; ``Controller``
is the facade over both.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import PurePosixPath

from emulator.engine import Engine, Observer
from emulator.engine.queue_priority import set_priority
from emulator.engine.refused import record_refused
from emulator.model.job import (
    FINISHED_STATES,
    Dependencies,
    Dependency,
    DependencyKind,
    Job,
    JobState,
    Request,
)
from emulator.model.node_state import NodeStatus
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.slurm.formats import BASIC_PRIORITY_TOP, NO_EXTRAS, JobExtras
from emulator.slurmctld.accounting import Accounting, JobRow
from emulator.slurmctld.job_views import PENDING, RUNNING, JobViews
from emulator.slurmctld.records import JobRecord, _Users

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


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command printed and its exit status."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    waits: tuple[int, ...] = ()  # engine ids an ``sbatch -W`` left to its host to wait for


@dataclass
class Context:
    """One command's caller."""

    user: str
    env: Mapping[str, str]
    stdin: str | None
    cwd: str


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
        self.views = JobViews(self.engine, platform, alloc_node, self.dependency_targets)
        self.users = _Users()
        self.files: dict[str, str] = {}  # a virtual file system: path -> text (command files)
        # True: ``sbatch -W`` answers at once with CommandResult.waits, and the host (the
        # daemon, serving others meanwhile) waits; False: it runs the clock until the jobs end
        self.defer_waits = False
        self.records: dict[int, JobRecord] = {}  # by engine id
        self.records_made = 0  # every record ever made (records shrinks when a task is forgotten)
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

    def accounted(self, k: int) -> list[JobRow]:
        """Cluster ``k``'s accounting records as ``sacct`` shows them, by raw job id. A read
        writes nothing: the rows stored final, and every other record described as it is now
        (the store holds only what :meth:`sync` wrote; a row it holds for a record not final
        any more, requeued say, is stale and skipped). A finished job's row is kept on its
        record (:attr:`JobRecord.final_row`) and described once, not at every read."""
        name = self.platform.clusters[k].name
        rows = []
        for row in self.accounting.rows(name):
            record = self.records.get(row.engine_id)
            if record is None or record.final_written:
                rows.append(row)
        jobs, describe = self.engine.jobs, self.views.describe_record
        for record in self.records.values():
            if record.final_written:
                continue
            described = record.final_row
            if described is not None:  # kept while the engine's job is as it was described
                job, kept = jobs.get(record.engine_id), described.job
                if job is None or job.state is not kept.state or job.end != kept.end:
                    described = None
            if described is None:
                described = describe(record)
                if described is None:
                    continue
                if described.job.state in FINISHED_STATES:
                    record.final_row = described
            if described.cluster == name:
                rows.append(described)
        rows.sort(key=lambda row: (row.job.id, row.engine_id))
        return rows

    def sync(self) -> None:
        """Write every accounting row not yet final, as it is now, so that the store is whole
        for other readers (:meth:`close` calls it; ``sacct`` reads :meth:`accounted`)."""
        rows = []
        for record in self.records.values():
            if record.final_written:
                continue
            row = self.views.describe_record(record)
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
        record.changed()

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

    def reorder(self, eid: int, priority: int) -> None:
        """Job ``eid`` got Slurm priority ``priority`` otherwise than by FIFO (an operator's, a
        release's lowest): the engine's queue order key is relative to the top of the FIFO band
        (``Request.priority``: FIFO jobs are 0 and keep submission order), so a priority above
        every FIFO one goes first and one below goes after them. (Within the narrow FIFO band
        itself the place is approximate: after every FIFO job.)"""
        set_priority(self.engine, eid, priority - BASIC_PRIORITY_TOP)

    def forget_task(self, eid: int) -> None:
        """A pending array task cancelled on its own leaves no trace: Slurm takes it out of the
        array's pending range (``7_[3-6%2]`` becomes ``7_[3-5%2]``), so ``scontrol show job
        7_6`` does not find it and neither ``squeue -t all`` nor ``sacct`` lists it."""
        record = self.records.pop(eid)
        job = self.engine.jobs[eid]
        assert job.request.array is not None
        self.arrays[job.request.array.array_id].remove(eid)
        self.accounting.forget(self.platform.clusters[self.views.cluster_of(record)].name, eid)

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
                if not low.isdecimal() or (high and not high.isdecimal()):
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

    def shown(self, k: int) -> Iterator[JobRecord]:
        """The records of cluster ``k`` still in memory (:meth:`visible`), in submission order:
        ``views.cluster_of`` and :meth:`visible` in one pass, as squeue needs for long queues."""
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
            self.views.view(self.records[job.id])[0]
            for job in self.engine.clusters[k].running
            if job.cluster == k and job.id in self.records
        ]

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
        extras: JobExtras = NO_EXTRAS,
        refused: bool = False,
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
            extras=extras,
        )
        self.records[eid] = record
        self.records_made += 1
        if refused:  # slurmctld recorded it, then found no node configuration to run it
            record_refused(self.engine, request, eid)
        else:
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

    def engine_dependencies(
        self, dependency: Dependencies | None, task_id: int | None = None
    ) -> Dependencies | None:
        """The dependency in engine ids: an array id stands for all its tasks, except that
        ``aftercorr`` of array task ``task_id`` names the other array's task of the same id
        (none: the term is dropped, as slurmctld clears it)."""
        if dependency is None:
            return None
        terms: list[Dependency] = []
        for term in dependency.terms:
            if term.job_id == 0:
                terms.append(term)
                continue
            if term.kind is DependencyKind.AFTER_CORR and task_id is not None and term.whole_array:
                term = replace(term, task_id=task_id)
            terms.extend(
                replace(term, job_id=eid, task_id=None) for eid in self.dependency_targets(term)
            )
        return Dependencies(tuple(terms), dependency.any_of) if terms else None

    def dependency_targets(self, term: Dependency) -> list[int]:
        """Engine ids a term names: a job, every task of an array, or one task (``1_1``)."""
        if term.task_id is not None:
            return self.resolve(f"{term.job_id}_{term.task_id}") or []
        return self.record_ids(term.job_id)

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
