"""Slurm 22.05's ``sched/backfill`` with its default parameters (models.md §4.1's conservative
backfilling, on nodes; the ``lab`` daemon's default).

Slurm runs two schedulers (``src/slurmctld/job_scheduler.c``, ``src/plugins/sched/backfill/
backfill.c``; the defaults from the slurm.conf man page):

* The *main* scheduler, at every event (a submission, an end): the pending jobs in priority
  order, each started on the select plugin's nodes if it fits now. The first job of a partition
  that does not fit waits for ``Resources``; the later jobs of that partition are not tried and
  wait for ``Priority``.
* The *backfill* cycle, every ``bf_interval`` (30 s): the pending jobs in priority order, each
  given the earliest time at which its time limit fits on *specific nodes*, given the running
  jobs' expected ends and the nodes already promised to the jobs ahead of it. If that time is
  now it starts there (``Scheduler=Backfill``); otherwise those nodes are promised to it, whole
  (backfill's node-space map holds nodes, not cores), over ``[start, start + limit)``. So a
  small job starts at once on a node outside every earlier job's reservation, even where a
  count of cores says it delays one (EASY), and never where it would delay an earlier job.

Nodes are chosen by :class:`~emulator.model.node_choice.NodeChoice`, the select plugin's rule
the engine uses. Choices where Slurm's behaviour rests on what the emulation does not model:

* When the cycles run: ``backfill_agent`` starts with the controller, sleeps ``bf_interval``,
  then runs a cycle if ``_more_work``; if not, it looks again every second and runs at the
  first look after a change. On the lab's real Slurm (``sdiag``'s "Last cycle when"), cycles
  followed 30 s apart while jobs waited, with nothing else changing; with no job waiting they
  stopped, and the next ran within a second of a submission. Its controller log shows the
  first cycle 30.6 s after ``slurmctld`` started, and every differential capture's first
  command 7.0 s after that start (``up.sh``/``reset.sh`` wait ``LAB_SETTLE``, 7 s). So the
  session's clock puts the controller's start at ``controller_start`` (-7 s by default; the
  samples' scenario gives its own) and the first cycle 30.6 s later; the next one 30 s after
  the last if jobs wait or something changed, else at the first look after a change.
* Candidate start times are now and every running job's or reservation's expected end;
  ``bf_resolution`` (60 s) rounding is not applied. Reasons are the main scheduler's: a cycle
  leaves them as they are.
* ``bf_max_job_test`` (500): jobs past the 500th in the queue get no plan in a cycle;
  ``bf_window`` (one day): a job that cannot start within it gets no reservation. A cycle is
  skipped when nothing changed since the last one (Slurm's ``_more_work``).
* ``--time-min``: the cycle plans such a job with ``time_min`` as its limit; started now, its
  limit is cut to the first promise on its nodes (whole minutes), at least ``time_min``
  (``_reset_job_time_limit``); the main scheduler starts it with its own limit.
* A node range (``-N MIN-MAX``) the cycle starts takes the engine's nodes (up to MAX) when they
  are the planned ones; beside reservations it waits for the main scheduler.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from emulator.api import ClusterView, Decision, Explain, LocalPolicy, Reserve, Start, Wake
from emulator.model.job import Job, JobState, Reason
from emulator.model.node_choice import NodeChoice, Placement
from emulator.model.platform import Cluster

MAX_JOB_TEST = 500  # bf_max_job_test's default in Slurm 22.05
BACKFILLED = "backfill: started on nodes no job of higher priority is promised"
BF_INTERVAL = 30.0  # bf_interval's default (seconds)
BF_WINDOW = 86400.0  # bf_window's default (1440 minutes): how far ahead jobs are planned
CONTROLLER_START = -7.0  # slurmctld's start on the session's clock (see the module's docstring)
AGENT_START = 0.6  # from slurmctld's start to its backfill thread's first sleep (the lab's log)
BF_POLL = 1.0  # backfill_agent's short sleep while nothing has changed


@dataclass(frozen=True, slots=True)
class _Block:
    """Nodes (local indices) promised, whole, to one job over ``[start, end)``."""

    start: float
    end: float
    nodes: tuple[int, ...]


@dataclass
class _Plan:
    """The cluster's nodes over time during one pass: free cores now, what running jobs give
    back and when, and the nodes reserved for the jobs planned so far."""

    now: float
    free: list[int]
    releases: list[tuple[float, int, int]]  # (expected end, local node, cores), sorted
    blocks: list[_Block] = field(default_factory=list)

    def times(self) -> list[float]:
        """Candidate start times: now, then every release and every reservation's end."""
        later = {end for end, _, _ in self.releases} | {block.end for block in self.blocks}
        return [self.now, *sorted(t for t in later if t > self.now)]

    def free_over(self, start: float, length: float) -> list[int]:
        """Cores free on each node over all of ``[start, start + length)``: running jobs only
        give cores back, so what they hold is least at ``start``; a node promised to a job
        for any part of the interval has none (a promise holds the whole node)."""
        free = list(self.free)
        for end, node, cores in self.releases:
            if end > start:
                break
            free[node] += cores
        end = start + length
        for block in self.blocks:
            if block.start < end and block.end > start:
                for node in block.nodes:
                    free[node] = 0
        return free

    def reserve(
        self, start: float, length: float, placement: Placement, choice: NodeChoice
    ) -> None:
        """Promise the placement's nodes, whole (backfill's node-space map holds nodes, not
        cores), over ``[start, start + length)``."""
        first = choice.first_id
        nodes = tuple(node - first for node in placement[0])
        self.blocks.append(_Block(start, start + length, nodes))


@dataclass
class SlurmBackfill(LocalPolicy):
    """Slurm's two schedulers: the main one at every event, in priority order, up to the first
    job of a partition that does not fit; the backfill cycle every 30 s, which starts a job now
    or reserves specific nodes for it."""

    name = "backfill"
    interval: float = BF_INTERVAL
    controller_start: float = CONTROLLER_START  # on the session's clock
    _choice: NodeChoice | None = field(default=None, init=False, repr=False)
    _last_cycle: float = field(default=-math.inf, init=False, repr=False)
    _seen: int = field(default=-1, init=False, repr=False)  # the version a cycle began at
    _woken_for: float = field(default=math.nan, init=False, repr=False)
    # a cycle due while no job waits: it changes nothing but when the next look falls, so it
    # is not woken for; (its time, the version then) are taken as run when time passes it
    _idle: tuple[float, int] = (math.inf, -1)
    _waiting: bool = field(default=False, init=False, repr=False)  # jobs waited at the last pass
    # nodes of the jobs that ended at this instant (local indices), and the instant
    _completing: tuple[float, frozenset[int]] = (math.nan, frozenset())

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        yield from self._main(view, self._still_completing(view))
        now = view.now
        if self._idle[0] <= now:
            self._last_cycle, self._seen = self._idle
            self._idle = (math.inf, -1)
        look = self._next_look(now, view.version)
        self._waiting = bool(view.queue)
        if look is None:
            return
        if now == self._woken_for:
            look = now  # the look woken for (jobs may have come to wait since it was set)
        if look <= now:
            self._last_cycle = now
            self._seen = view.version  # its own starts change it: work for the next look
            started = yield from self._backfill(view)
            if not started:  # the same state, the same plan: later cycles run in thought
                return  # (every 30 s while jobs wait) until something changes
            look = now + self.interval
        if not view.queue:
            self._idle = (look, view.version)
            return
        self._idle = (math.inf, -1)  # a job waits: the cycle is woken for, and runs
        if look != self._woken_for:
            self._woken_for = look
            yield Wake(look)

    def first_cycle(self) -> float:
        """backfill_agent's first look: one ``bf_interval`` after its thread started."""
        return self.controller_start + AGENT_START + self.interval

    def _next_look(self, now: float, version: int) -> float | None:
        """When ``backfill_agent`` runs its next cycle that can change anything, as far as is
        known now: none until something changes since the last one began; then ``bf_interval``
        after it, or, later, at the next of its cycles 30 s apart if jobs waited all along
        (each one found work), else at its first look (once a second) after the change."""
        if self._last_cycle == -math.inf:
            return self.first_cycle()  # _more_work is true at the first look
        if version == self._seen:
            return None
        due = self._last_cycle + self.interval
        if now <= due:
            return due
        step = self.interval if self._waiting else BF_POLL
        return due + math.ceil((now - due) / step - 1e-9) * step

    def _still_completing(self, view: ClusterView) -> frozenset[int]:
        """Nodes a start at this pass avoids: those of jobs that ended at this instant, for
        every pass after the one their end brought. slurmctld schedules on an end once the
        node's epilog is done, but an allocation asked for meanwhile (``salloc`` right after
        ``srun`` returned) finds the node COMPLETING: real Slurm gave salloc's job node02
        while node01 finished srun's."""
        now, first = view.now, self._node_choice(view).first_id
        ended = {n - first for job in view.ended if job.end == now for n in job.nodes}
        if ended:
            self._completing = (now, frozenset(ended))
            return frozenset()
        return self._completing[1] if self._completing[0] == now else frozenset()

    def _main(self, view: ClusterView, completing: frozenset[int]) -> Iterator[Decision]:
        """Slurm's main scheduler: start each job that fits now, in priority order. The first
        job of a partition that does not fit waits for ``Resources``, and that partition's
        nodes are closed to the jobs after it, which wait for ``Priority`` where nothing else
        is open to them; the later tasks of an array whose task did not fit wait for
        ``Resources`` too (real Slurm 22.05.8 showed 2_3 and 2_4 so)."""
        choice = self._node_choice(view)
        cluster = view.cluster
        failed: set[str] = set()
        failed_arrays: set[int] = set()
        closed = bytearray(len(choice.capacity))
        for job in list(view.queue):
            partition = job.request.partition
            array = job.request.array
            if partition in failed:
                blocked_array = array is not None and array.array_id in failed_arrays
                yield from self._explain(
                    job, Reason.RESOURCES if blocked_array else Reason.PRIORITY
                )
                continue
            if not failed:
                if view.fits(job):
                    yield self._start_avoiding(view, choice, job, completing)
                    continue
            else:
                free = [0 if closed[i] else cores for i, cores in enumerate(view.node_free)]
                placement = choice.place(job.request, free, bytearray(map(bool, free)))
                if placement is not None and not job.request.max_nodes:
                    yield Start(job, placement[0], placement[1])
                    continue
                if placement is None and all(closed[i] for i in self._nodes_of(cluster, job)):
                    yield from self._explain(job, Reason.PRIORITY)
                    continue
            failed.add(partition)
            if array is not None:
                failed_arrays.add(array.array_id)
            for i in self._nodes_of(cluster, job):
                closed[i] = 1
            yield from self._explain(job, Reason.RESOURCES)

    @staticmethod
    def _start_avoiding(
        view: ClusterView, choice: NodeChoice, job: Job, completing: frozenset[int]
    ) -> Start:
        """Start a job that fits, off the completing nodes when it fits elsewhere."""
        if completing and not (job.request.max_nodes or job.request.exclusive):
            free = [0 if i in completing else c for i, c in enumerate(view.node_free)]
            placement = choice.place(job.request, free, bytearray(map(bool, free)))
            if placement is not None:
                return Start(job, placement[0], placement[1])
        return Start(job)

    @staticmethod
    def _nodes_of(cluster: Cluster, job: Job) -> tuple[int, ...]:
        """The local indices of the nodes of the job's partition."""
        name = job.request.partition
        partition = (cluster.partition(name) if name else None) or cluster.default_partition
        return partition.nodes

    def _node_choice(self, view: ClusterView) -> NodeChoice:
        choice = self._choice
        if choice is None or choice.cluster is not view.cluster:
            choice = self._choice = NodeChoice(view.cluster)
        return choice

    def _backfill(self, view: ClusterView) -> Generator[Decision, None, bool]:
        """One backfill cycle: in priority order, each job starts now on nodes no earlier job
        has been promised, or reserves the nodes of its earliest start. Whether it started
        any."""
        choice = self._node_choice(view)
        plan = self._plan(view, choice)
        started = False
        for rank, job in enumerate(list(view.queue)):
            if rank >= MAX_JOB_TEST:
                break
            length = view.walltime(job)
            request = job.request
            if request.time_min:  # planned with its shortest limit (Slurm: time_limit = time_min)
                length *= request.time_min / request.time_limit
            start, placement = self._earliest(plan, choice, job, length)
            if placement is None:
                continue  # never fits the nodes in service: no reservation
            if start == plan.now:
                limit = self._cut_limit(view, plan, choice, job, placement)
                yield from self._start(view, plan, choice, job, placement, limit)
                if job.state is JobState.RUNNING:
                    started = True
                    continue
            plan.reserve(start, length, placement, choice)
            nodes = placement[0]
            if job.planned_start != start or job.planned_nodes != nodes:
                yield Reserve(job, start, nodes)
        return started

    @staticmethod
    def _plan(view: ClusterView, choice: NodeChoice) -> _Plan:
        first, count = choice.first_id, len(choice.capacity)
        releases = []
        for job in view.running:
            for node, cores in zip(job.nodes, job.node_cores, strict=True):
                if first <= node < first + count:
                    releases.append((job.expected_end, node - first, cores))
        releases.sort()
        return _Plan(view.now, list(view.node_free), releases)

    @staticmethod
    def _earliest(
        plan: _Plan, choice: NodeChoice, job: Job, length: float
    ) -> tuple[float, Placement | None]:
        """The earliest candidate time at which the job's limit fits on nodes, and those nodes."""
        for start in plan.times():
            if start > plan.now + BF_WINDOW:
                break  # beyond bf_window: no reservation
            free = plan.free_over(start, length)
            has_free = bytearray(map(bool, free))
            placement = choice.place(job.request, free, has_free)
            if placement is not None:
                return start, placement
        return math.inf, None

    @staticmethod
    def _cut_limit(
        view: ClusterView, plan: _Plan, choice: NodeChoice, job: Job, placement: Placement
    ) -> float | None:
        """The limit a job with ``--time-min`` starts under now (backfill.c's
        ``_reset_job_time_limit``): up to the first promise on its nodes, in whole minutes, at
        least its ``time_min``; None for its own limit."""
        request = job.request
        if not request.time_min:
            return None
        nodes = {node - choice.first_id for node in placement[0]}
        begins = [b.start for b in plan.blocks if b.start > plan.now and nodes & set(b.nodes)]
        if not begins:
            return None
        scale = request.time_limit / view.walltime(job)  # (its nodes' seconds to the request's)
        minutes = math.floor((min(begins) - plan.now) * scale / 60)
        limit = max(request.time_min, minutes * 60.0)
        return limit if limit < request.time_limit else None

    @staticmethod
    def _start(
        view: ClusterView,
        plan: _Plan,
        choice: NodeChoice,
        job: Job,
        placement: Placement,
        limit: float | None = None,
    ) -> Iterator[Decision]:
        """Start the job now on the planned nodes (the engine's own choice when it is the
        same, so that a node range gets its MAX), and take them from the plan."""
        first = choice.first_id
        unreserved = choice.place(
            job.request, view.node_free, bytearray(1 if c else 0 for c in view.node_free)
        )
        if unreserved is not None and unreserved[0] == placement[0] and view.fits(job):
            yield Start(job, explanation=BACKFILLED, time_limit=limit)
        elif job.request.max_nodes or job.request.moldable is not None:
            return  # a range beside reservations: planned like any waiting job
        else:
            yield Start(job, placement[0], placement[1], explanation=BACKFILLED, time_limit=limit)
        for node, cores in zip(job.nodes, job.node_cores, strict=True):
            if first <= node < first + len(plan.free):
                plan.free[node - first] -= cores
        plan.releases.extend(
            (job.expected_end, node - first, cores)
            for node, cores in zip(job.nodes, job.node_cores, strict=True)
            if first <= node < first + len(plan.free)
        )
        plan.releases.sort()

    @staticmethod
    def _explain(job: Job, reason: Reason) -> Iterator[Decision]:
        if job.reason is not reason:
            text = (
                "backfill: first job of its partition that cannot start"
                if reason is Reason.RESOURCES
                else "backfill: waits behind a job of higher priority"
            )
            yield Explain(job, reason, text)
