"""The engine: the one place where the emulated world changes.

It owns the kernel, the clusters' state and the jobs; it turns arrivals and completions into
scheduling passes, asks the policies for decisions, checks every decision and applies it. A pass
runs once per instant, after all completions and arrivals of that instant.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence

from emulator.api.decisions import Decision, Explain, Reject, Reserve, Route, Start, Wake
from emulator.api.policy import Estimate, GridPolicy, LocalPolicy, PolicyError
from emulator.api.registry import SchedulerSpec, build, parse_spec
from emulator.api.view import SiteChange
from emulator.engine.control import JobControl
from emulator.engine.eligibility import partition_problem
from emulator.engine.grid import GridState
from emulator.engine.network import Network
from emulator.engine.node_control import NodeControl
from emulator.engine.nodes import ClusterState
from emulator.engine.observer import Observer
from emulator.engine.runtime import run_times
from emulator.kernel import EventKind, Kernel
from emulator.model.job import Job, JobState, Reason, Request, Submission
from emulator.model.node_state import NodeStatus
from emulator.model.platform import Platform

GRID = -1  # scope of the grid policy (cluster scopes are cluster indices)

# The enum members read on every event, bound once: on Python 3.11 ``JobState.RUNNING`` goes
# through EnumType.__getattr__'s slot, over ten times the cost of a global read (callgrind put
# about 6 % of a KTH-SP2 replay's instructions in that slot).
PENDING, RUNNING, COMPLETED = JobState.PENDING, JobState.RUNNING, JobState.COMPLETED
FAILED, TIMEOUT = JobState.FAILED, JobState.TIMEOUT
PRIORITY, NO_REASON = Reason.PRIORITY, Reason.NONE
ARRIVAL, JOB_END = EventKind.ARRIVAL, EventKind.JOB_END
QUEUED, DEPARTED, STARTED, ENDED = SiteChange  # what GridView.changes reports


class SubmitError(ValueError):
    """A submission the engine cannot accept (a job id already in use)."""


def _insert(queue: OrderedDict[int, Job], job: Job, readmitted: bool) -> None:
    """Append a new arrival; put a job that comes back (released, requeued, updated, no longer
    waiting on a dependency) where its submit time places it, as Slurm's FIFO priority does.
    (By rebuilding the queue, never by moving entries: see ``nodes.in_order``.)"""
    key = (job.submit, job.id)
    if not readmitted or not queue:
        queue[job.id] = job
        return
    last = next(reversed(queue.values()))
    if (last.submit, last.id) <= key:
        queue[job.id] = job
        return
    items = list(queue.values())
    queue.clear()
    placed = False
    for other in items:  # the last one sorts after the job, so it is placed before the end
        if not placed and (other.submit, other.id) > key:
            queue[job.id] = job
            placed = True
        queue[other.id] = other


class Engine(JobControl, NodeControl):
    """Emulates a platform under a scheduler spec. Deterministic: no wall clock, no randomness."""

    def __init__(
        self,
        platform: Platform,
        scheduler: SchedulerSpec | str = "fcfs",
        *,
        keep_finished: bool = True,
    ) -> None:
        self.platform = platform
        self.spec = parse_spec(scheduler) if isinstance(scheduler, str) else scheduler
        self.kernel = Kernel(
            {
                JOB_END: self._on_end,
                ARRIVAL: self._on_arrival,
                EventKind.TIMER: self._on_timer,
            },
            settle=self._pass,
        )
        self.clusters = [
            ClusterState(cluster, self.kernel, self._local_policy())
            for cluster in platform.clusters
        ]
        grid = build(self.spec.grid) if self.spec.grid else None
        assert grid is None or isinstance(grid, GridPolicy)
        self.grid_policy = grid
        self.grid = GridState(self)
        # one cluster whose default partition is all of it: a simple request (Request.simple)
        # that fits its size is queued on arrival with no further question
        only = self.clusters[0]
        self._fast_cluster = only if len(self.clusters) == 1 and only.plain_partition else None
        self.network = Network(platform)
        self._end_events: dict[int, int] = {}  # kernel event ids of ends that may move
        self._submitted: list[Callable[[Job], None]] = []
        self._started: list[Callable[[Job], None]] = []
        self._ended: list[Callable[[Job], None]] = []
        self._decided: list[Callable[[str, Decision], None]] = []
        self.jobs: dict[int, Job] = {}
        self.keep_finished = keep_finished
        self.reallocations = 0
        self._deferred: dict[int, Job] = {}  # accepted but not eligible: see _blocking
        self._holds: dict[int, Reason] = {}
        self._dependents: dict[int, list[int]] = {}  # job id -> ids of jobs depending on it
        self._array_active: dict[int, int] = {}  # array id -> tasks queued or running
        self._counted: set[int] = set()  # job ids counted in _array_active
        self._runtime: dict[int, float] = {}  # the emulator's secret: actual durations
        self._exit_codes: dict[int, int] = {}  # and the non-zero exit statuses
        self._source: Iterator[Submission] | None = None
        self._source_last: Job | None = None  # the streamed job whose arrival pulls the next
        self._next_id = 1
        self.node_status: dict[int, NodeStatus] = {}  # nodes out of service (drained, down)

    # --- building --------------------------------------------------------------------------
    def observe(self, observer: Observer) -> None:
        """Subscribe ``observer`` to the hooks it overrides (the others cost nothing)."""
        for hook, subscribers in (
            ("job_submitted", self._submitted),
            ("job_started", self._started),
            ("job_ended", self._ended),
            ("decided", self._decided),
        ):
            if getattr(type(observer), hook) is not getattr(Observer, hook):
                subscribers.append(getattr(observer, hook))

    def _local_policy(self) -> LocalPolicy:
        policy = build(self.spec.local)
        assert isinstance(policy, LocalPolicy)
        return policy

    def set_scheduler(self, scheduler: SchedulerSpec | str) -> None:
        """Switch policies; the next pass uses the new ones (queues and running jobs stay).

        What the old policies said of the waiting jobs (reason, explanation, reservation) goes:
        the new ones judge every job afresh rather than inherit words they did not say.
        """
        spec = parse_spec(scheduler) if isinstance(scheduler, str) else scheduler
        self.spec = spec
        for state in self.clusters:
            state.policy = self._local_policy()
            state.dirty = True
        for queue in (self.grid.waiting, *(state.waiting for state in self.clusters)):
            for job in queue.values():
                job.reason = PRIORITY
                job.explanation = ""
                job.planned_start = math.nan
                job.planned_nodes = ()
        grid = build(spec.grid) if spec.grid else None
        assert grid is None or isinstance(grid, GridPolicy)
        self.grid_policy = grid
        if grid is None:  # nobody schedules the grid queue any more: route what waits there
            for job in list(self.grid.waiting.values()):
                self._take_out(job)
                self._left(job)
                self._admit(job, readmitted=True)
        self.grid.dirty = True
        self._request_pass()

    # --- time ------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.kernel.now

    def step(self) -> bool:
        """Process one event; False when nothing is left to do."""
        return self.kernel.step()

    def run(self, until: float = math.inf, max_events: int | None = None) -> int:
        """Run events up to simulated time ``until``; returns how many were processed."""
        return self.kernel.run(until, max_events)

    @property
    def idle(self) -> bool:
        """No event left: everything that could run has run."""
        return self.kernel.next_time() == math.inf

    # --- submissions -----------------------------------------------------------------------
    def submit(
        self,
        request: Request,
        runtime: float,
        *,
        at: float | None = None,
        job_id: int | None = None,
        exit_code: int = 0,
    ) -> Job:
        """Accept a job now (it arrives at ``at``, default now) and return it.

        ``runtime`` and ``exit_code`` are what the emulated job will really do (run that long,
        then exit with that status: non-zero ends it FAILED); policies never see them.
        """
        if job_id is None:
            job_id = self._next_id
        if job_id in self.jobs:
            raise SubmitError(f"job id {job_id} is already in use")
        if job_id >= self._next_id:
            self._next_id = job_id + 1
        now = self.kernel.now
        time = now if at is None or at < now else at
        job = Job(job_id, time, request)
        self.jobs[job_id] = job
        self._runtime[job_id] = runtime
        if exit_code:
            self._exit_codes[job_id] = exit_code
        self.kernel.at(time, ARRIVAL, job)
        return job

    def feed(self, submissions: Iterable[Submission]) -> None:
        """Stream a workload: each arrival pulls the next one, so memory holds only live jobs."""
        self._source = iter(submissions)
        self._pull()

    def _pull(self) -> None:
        assert self._source is not None
        item = next(self._source, None)
        if item is None:
            self._source = self._source_last = None
            return
        self._source_last = self.submit(
            item.request, item.runtime, at=item.submit, job_id=item.job_id
        )

    def _on_arrival(self, job: Job) -> None:
        if job is self._source_last:
            self._pull()
        if job.state is not PENDING:
            return  # cancelled before it arrived
        for notify in self._submitted:
            notify(job)
        request = job.request
        fast = self._fast_cluster
        if (
            fast is not None
            and request.simple
            and request.tasks <= fast.capacity_total
            and request.begin <= self.kernel.now
            and job.id not in self._holds
        ):  # what _admit would conclude, known without asking
            self._queue_on(job, 0)
            return
        if request.held:
            self._holds[job.id] = Reason.HELD_USER
        if request.begin > self.now:
            self.kernel.at(request.begin, EventKind.TIMER, job)
        if request.dependencies is not None:
            for term in request.dependencies.terms:
                self._dependents.setdefault(term.job_id, []).append(job.id)
        self._admit(job)

    def _enqueue(self, job: Job, readmitted: bool = False) -> None:
        """Put an eligible job in the grid queue or a cluster queue."""
        array = job.request.array
        if array is not None and array.max_running:
            self._array_active[array.array_id] = self._array_active.get(array.array_id, 0) + 1
            self._counted.add(job.id)
        if len(self.clusters) == 1:
            self._queue_on(job, 0, readmitted)
            return
        allowed = self._allowed_clusters(job)
        if self.grid_policy is not None and (len(allowed) > 1 or not allowed):
            job.cluster = GRID
            job.reason = PRIORITY
            _insert(self.grid.waiting, job, readmitted)
            self.grid.arrived.append(job)
            self.grid.dirty = True
            self._request_pass()
            return
        target = allowed[0] if len(allowed) == 1 else self._earliest_cluster(job, allowed)
        self._queue_on(job, target, readmitted)

    def _fits_a_partition(self, job: Job) -> bool:
        """Can some allowed cluster's partition ever hold the job? (Checked on every arrival.)"""
        if len(self.clusters) == 1:
            state, request = self.clusters[0], job.request
            if state.plain_partition and request.plain and not request.clusters:
                return request.cores <= state.capacity_total
        return bool(self._allowed_clusters(job))

    def _grid_may_run(self, job: Job) -> bool:
        """Could a grid policy run the job across clusters? (One larger than any single cluster
        is queued for the grid policy, which may co-allocate it, rather than kept pending.)"""
        if self.grid_policy is None or len(self.clusters) == 1:
            return False
        names = job.request.clusters
        total = sum(s.capacity_total for s in self.clusters if not names or s.cluster.name in names)
        return job.cores <= total

    def _allowed_clusters(self, job: Job) -> list[int]:
        request = job.request
        names = request.clusters
        return [
            state.cluster.index
            for state in self.clusters
            if (not names or state.cluster.name in names)
            and (
                (state.plain_partition and request.plain and request.cores <= state.capacity_total)
                or partition_problem(request, state.cluster) is None
            )
        ]

    def _earliest_cluster(self, job: Job, allowed: list[int]) -> int:
        """With no grid policy, a multi-cluster job goes where it starts first (as sbatch -M)."""
        return min(allowed, key=lambda k: (self.estimate(job, k).start, k))

    def _queue_on(self, job: Job, cluster: int, readmitted: bool = False) -> None:
        state = self.clusters[cluster]
        job.cluster = cluster
        job.reason = PRIORITY
        _insert(state.waiting, job, readmitted)
        state.arrived.append(job)
        state.dirty = True
        if self.grid_policy is not None:
            self.grid.changes.append((QUEUED, job, cluster))
        self.kernel.settle_pending = True

    # --- planning ----------------------------------------------------------------------------
    def estimate(self, job: Job, cluster: int) -> Estimate:
        """The planning query, answered by the cluster's local policy."""
        state = self.clusters[cluster]
        return state.policy.estimate(job, state)

    def estimates(self, jobs: Iterable[Job], cluster: int) -> list[Estimate]:
        """The planning query for several jobs at once (see :meth:`GridView.estimates`)."""
        state = self.clusters[cluster]
        return state.policy.estimates(jobs, state)

    # --- scheduling passes ---------------------------------------------------------------------
    def _request_pass(self) -> None:
        self.kernel.settle_pending = True

    def _on_timer(self, payload: Job | int) -> None:
        if isinstance(payload, Job):  # a begin time, or a delayed dependency, has come
            self._reconsider(payload)
            return
        if payload == GRID:
            self.grid.dirty = True
        else:
            self.clusters[payload].dirty = True
        self._request_pass()

    def _pass(self) -> None:
        """One scheduling pass, after every completion and arrival of the instant."""
        grid = self.grid_policy
        if grid is not None and self.grid.dirty:
            self.grid.dirty = False
            self._apply(GRID, grid.name, grid.schedule(self.grid))
            self.grid.arrived.clear()
            self.grid.ended.clear()
            self.grid.changes.clear()
        for state in self.clusters:
            if state.dirty:
                state.dirty = False
                policy = state.policy
                self._apply(state.index, policy.name, policy.schedule(state))
                if state.arrived:
                    state.arrived.clear()
                if state.ended:
                    state.ended.clear()
                if state.departed:
                    state.departed.clear()
                if state.started_elsewhere:
                    state.started_elsewhere.clear()
                state.nodes_changed = False

    def _apply(self, scope: int, policy: str, decisions: Iterable[Decision]) -> None:
        """Apply decisions as they come, so a generator policy sees the effect of each."""
        for decision in decisions:
            if isinstance(decision, Start):
                self._start(scope, policy, decision)
            elif isinstance(decision, Explain):
                job = self._waiting_job(scope, policy, decision.job)
                job.reason = decision.reason
                job.explanation = decision.text
            elif isinstance(decision, Reserve):
                job = self._waiting_job(scope, policy, decision.job)
                job.planned_start = decision.start
                job.planned_nodes = decision.nodes
                if decision.explanation:
                    job.explanation = decision.explanation
            elif isinstance(decision, Route):
                self._route(scope, policy, decision)
            elif isinstance(decision, Reject):
                job = self._waiting_job(scope, policy, decision.job)
                self._unqueue(job, started=False)
                self._finish(job, FAILED, decision.reason)
            elif isinstance(decision, Wake):
                if not decision.at > self.now:
                    raise PolicyError(f"policy {policy!r}: Wake at {decision.at} is not after now")
                self.kernel.at(decision.at, EventKind.TIMER, scope)
            else:
                raise PolicyError(f"policy {policy!r} returned {decision!r}, not a decision")
            for notify in self._decided:
                notify(policy, decision)

    def _waiting_job(self, scope: int, policy: str, job: Job) -> Job:
        """The job, if the policy of ``scope`` may decide about it: a local policy about its own
        queue, the grid policy about any queue (to reallocate waiting jobs between clusters)."""
        home = job.cluster if scope == GRID else scope
        queue = self.grid.waiting if home == GRID else self.clusters[home].waiting
        if queue.get(job.id) is not job:
            where = (
                "any queue" if scope == GRID else f"cluster {self.clusters[scope].cluster.name!r}"
            )
            raise PolicyError(
                f"policy {policy!r}: job {job.id} is not waiting in {where} "
                f"(state {job.state.name})"
            )
        return job

    def _queued_in(self, job: Job) -> bool:
        """Is the job in a queue now (not aside, not running, not yet arrived)?"""
        if job.cluster == GRID:
            return self.grid.waiting.get(job.id) is job
        return job.cluster >= 0 and self.clusters[job.cluster].waiting.get(job.id) is job

    def _unqueue(self, job: Job, started: bool) -> None:
        if job.cluster == GRID:
            del self.grid.waiting[job.id]
            return
        state = self.clusters[job.cluster]
        del state.waiting[job.id]
        if not started:
            state.departed.append(job)
            state.dirty = True
            if self.grid_policy is not None:
                self.grid.changes.append((DEPARTED, job, job.cluster))

    def _route(self, scope: int, policy: str, decision: Route) -> None:
        job = self._waiting_job(scope, policy, decision.job)
        target = decision.cluster
        if not 0 <= target < len(self.clusters):
            raise PolicyError(f"policy {policy!r}: no cluster {target} to route job {job.id} to")
        if target not in self._allowed_clusters(job):
            raise PolicyError(
                f"policy {policy!r}: job {job.id} may not run on cluster "
                f"{self.clusters[target].cluster.name!r} (its size, partition or -M exclude it)"
            )
        if job.cluster == target:
            return
        if job.cluster != GRID:
            self.reallocations += 1
        self._unqueue(job, started=False)
        job.planned_start = math.nan
        if decision.explanation:
            job.explanation = decision.explanation
        self._queue_on(job, target)

    def _start(self, scope: int, policy: str, decision: Start) -> None:
        job = decision.job
        if decision.nodes is None:  # the common case: the engine places the job in its cluster
            if scope == GRID:
                raise PolicyError(
                    f"policy {policy!r}: a grid start must name the nodes of job {job.id}"
                )
            state = self.clusters[scope]
            if state.waiting.get(job.id) is not job:
                self._waiting_job(scope, policy, job)  # raises, naming the problem
            placement = state.allocate(job)
            if placement is None:
                raise PolicyError(
                    f"policy {policy!r}: job {job.id} ({job.cores} cores) does not fit the free "
                    f"nodes of cluster {state.cluster.name!r} ({state.free_cores} free cores)"
                )
            nodes, cores = placement
            del state.waiting[job.id]
            state.active[job.id] = job
            shares: tuple[tuple[ClusterState, int], ...] = ((state, job.cores),)
            slowest = state.uniform_speed
            if slowest is None:
                slowest = min(self.platform.nodes[n].speed for n in nodes)
        else:
            self._waiting_job(scope, policy, job)
            nodes = decision.nodes
            cores = decision.cores or (job.request.cpus_per_task,) * len(nodes)
            self._check_nodes(policy, job, scope, nodes, cores)
            # taken from a cluster's queue by the grid policy: it left that queue unstarted
            self._unqueue(job, started=scope != GRID or job.cluster == GRID)
            parts = self._by_cluster(nodes, cores)
            for k, part_nodes, part_cores in parts:
                holder = self.clusters[k]
                holder.take(part_nodes, part_cores)
                holder.active[job.id] = job
                if scope == GRID:  # its local policy did not start it: say so
                    holder.started_elsewhere.append(job)
                    holder.dirty = True
            shares = tuple((self.clusters[k], sum(part_cores)) for k, _, part_cores in parts)
            job.cluster = parts[0][0]
            slowest = min(self.platform.nodes[n].speed for n in nodes)
        now = self.kernel.now
        job.state = RUNNING
        job.reason = NO_REASON
        job.planned_nodes = ()
        job.start = now
        job.nodes = nodes
        job.node_cores = cores
        if decision.explanation:
            job.explanation = decision.explanation
        runtime = self._runtime[job.id]
        duration, walltime = run_times(self.platform, job, slowest, runtime)
        job.expected_end = expected_end = now + walltime
        for holder, share in shares:
            insort(holder.running_ends, (expected_end, job.id, share))
            holder.version += 1
        if self.grid_policy is not None:
            self.grid.changes.append((STARTED, job, job.cluster))
        if job.request.communication is not None and self.network.demand(job):
            for paced, end, killed in self.network.start(
                job, now, runtime, slowest, now + walltime
            ):
                self._move_end(paced, end, killed)
        else:
            timed_out = duration > walltime
            end = now + (walltime if timed_out else duration)
            self.kernel.at(end, JOB_END, (job, timed_out, now))
        for notify in self._started:
            notify(job)
        if job.id in self._dependents:  # after:<id> dependencies count from the start
            for waiting_id in self._dependents[job.id]:
                waiting = self.jobs.get(waiting_id)
                if waiting is not None:
                    self._reconsider(waiting)

    def _by_cluster(
        self, nodes: Sequence[int], cores: Sequence[int], hint: int = -1
    ) -> list[tuple[int, Sequence[int], Sequence[int]]]:
        """Split an allocation by cluster, in cluster order (``hint``: the job's first cluster)."""
        if len(self.clusters) == 1:
            return [(0, nodes, cores)]
        if hint >= 0:
            state = self.clusters[hint]
            low, high = state.first_id, state.first_id + len(state.free)
            if all(low <= node < high for node in nodes):
                return [(hint, nodes, cores)]
        platform_nodes = self.platform.nodes
        split: dict[int, tuple[list[int], list[int]]] = {}
        for node, count in zip(nodes, cores, strict=True):
            mine = split.setdefault(platform_nodes[node].cluster, ([], []))
            mine[0].append(node)
            mine[1].append(count)
        return [(k, *split[k]) for k in sorted(split)]

    def _check_nodes(
        self, policy: str, job: Job, scope: int, nodes: Sequence[int], cores: Sequence[int]
    ) -> None:
        if len(nodes) != len(cores) or len(set(nodes)) != len(nodes):
            raise PolicyError(f"policy {policy!r}: job {job.id}: nodes and cores do not pair up")
        if job.request.moldable is None and sum(cores) != job.cores:
            raise PolicyError(
                f"policy {policy!r}: job {job.id} needs {job.cores} cores, got {sum(cores)}"
            )
        for node_id, count in zip(nodes, cores, strict=True):
            if not 0 <= node_id < len(self.platform.nodes):
                raise PolicyError(f"policy {policy!r}: job {job.id}: no node {node_id}")
            node = self.platform.nodes[node_id]
            if scope != GRID and node.cluster != scope:
                raise PolicyError(
                    f"policy {policy!r}: job {job.id}: node {node.name} is not in this cluster"
                )
            state = self.clusters[node.cluster]
            if count <= 0 or state.free[node.local] < count:
                raise PolicyError(
                    f"policy {policy!r}: job {job.id} wants {count} cores on {node.name}, "
                    f"{state.free[node.local]} are free"
                )

    # --- completions ---------------------------------------------------------------------------
    def _on_end(self, payload: tuple[Job, bool, float]) -> None:
        job, timed_out, started = payload
        if job.state is not RUNNING or job.start != started:
            return  # this run was cancelled or requeued: the event is stale
        self._release(job)
        if timed_out:
            self._finish(job, TIMEOUT)
        else:
            job.exit_code = self._exit_codes.get(job.id, 0)
            self._finish(job, FAILED if job.exit_code else COMPLETED)
        self._left(job)
        self.kernel.settle_pending = True

    def _release(self, job: Job) -> None:
        """Give a running job's cores (and link bandwidth) back."""
        for k, nodes, cores in self._by_cluster(job.nodes, job.node_cores, job.cluster):
            state = self.clusters[k]
            state.give_back(job.id, nodes, cores)
            del state.active[job.id]
            ends = state.running_ends
            del ends[bisect_left(ends, (job.expected_end, job.id))]
            state.ended.append(job)
            state.dirty = True
            if self.grid_policy is not None:
                self.grid.changes.append((ENDED, job, k))
        if job.id in self.network.flows:
            del self._end_events[job.id]
            for paced, end, killed in self.network.finish(job, self.kernel.now):
                self._move_end(paced, end, killed)
        if self.grid_policy is not None:
            self.grid.ended.append(job)
            self.grid.dirty = True

    def _move_end(self, job: Job, end: float, killed: bool) -> None:
        """(Re)schedule the end of a job paced by the network."""
        previous = self._end_events.get(job.id)
        if previous is not None:
            self.kernel.cancel(previous)
        self._end_events[job.id] = self.kernel.at(end, JOB_END, (job, killed, job.start))

    def _finish(self, job: Job, state: JobState, explanation: str = "") -> None:
        job.state = state
        job.end = self.kernel.now
        if explanation:
            job.explanation = explanation
        job.reason = NO_REASON
        for notify in self._ended:
            notify(job)
        if not self.keep_finished:
            del self.jobs[job.id]
            del self._runtime[job.id]  # kept otherwise, for scontrol requeue
            self._exit_codes.pop(job.id, None)
