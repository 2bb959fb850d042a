"""The engine: the one place where the emulated world changes.

It owns the kernel, the clusters' state and the jobs; it turns arrivals and completions into
scheduling passes, asks the policies for decisions, checks every decision and applies it. A pass
runs once per instant, after all completions and arrivals of that instant.

Its parts own their state: ``Queues`` (where eligible jobs wait, routing, the one way to ask for
a pass), ``Admission`` (holds and dependencies), ``NodeService`` (nodes out of service), the
clusters' ``ClusterState`` and the links' ``Network``. The engine runs the jobs' life: arrival,
the pass and its decisions, start, end, and the verbs that change a job (scancel, scontrol).
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Iterable, Iterator, Sequence

from emulator.api.decisions import (
    Decision,
    Explain,
    Reject,
    Reserve,
    Route,
    Start,
    Wake,
    Withdraw,
)
from emulator.api.policy import GridPolicy, LocalPolicy, PolicyError
from emulator.api.registry import SchedulerSpec, build, parse_spec
from emulator.api.view import Estimate, SiteChange
from emulator.engine.admission import Admission
from emulator.engine.errors import JobStateError, SubmitError
from emulator.engine.grid import GridState
from emulator.engine.network import Network
from emulator.engine.node_service import NodeService
from emulator.engine.nodes import ClusterState
from emulator.engine.observer import Observer, Subscribers
from emulator.engine.placement import (
    GRID,
    by_cluster,
    check_nodes,
    check_power,
    take_free,
    take_named,
)
from emulator.engine.queues import Queues
from emulator.engine.runtime import held_to_limit, run_times
from emulator.engine.scope import Scope
from emulator.kernel import EventKind, Handler, Kernel
from emulator.model.bpu import bpu_ratings
from emulator.model.job import Job, JobState, Reason, Request, Submission
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Platform

# The enum members read on every event, bound once: on Python 3.11 ``JobState.RUNNING`` goes
# through EnumType.__getattr__'s slot, over ten times the cost of a global read.
PENDING, RUNNING, COMPLETED = JobState.PENDING, JobState.RUNNING, JobState.COMPLETED
FAILED, TIMEOUT = JobState.FAILED, JobState.TIMEOUT
PRIORITY, NO_REASON = Reason.PRIORITY, Reason.NONE
ARRIVAL, JOB_END, TIMER = EventKind.ARRIVAL, EventKind.JOB_END, EventKind.TIMER
STARTED, ENDED = SiteChange.STARTED, SiteChange.ENDED  # what GridView.changes reports


class Engine:
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
        handlers: dict[EventKind, Handler] = {JOB_END: self._on_end, ARRIVAL: self._on_arrival}
        handlers[TIMER] = self._on_timer
        self.kernel = Kernel(handlers, settle=self._pass)
        self.clusters = [
            ClusterState(cluster, self.kernel, self._local_policy())
            for cluster in platform.clusters
        ]
        self.network = Network(platform)
        self.bpu_ratings = bpu_ratings(platform)  # per node id, for moldable jobs
        self.grid = GridState(platform, self.kernel, self.clusters, self.network)
        self.queues = Queues(self.kernel, self.clusters, self.grid)
        self.grid_policy = self._grid_policy(self.spec)
        self.jobs: dict[int, Job] = {}
        self.admission = Admission(self.jobs, self.kernel, self.queues)
        self.node_service = NodeService(platform, self.kernel, self.queues)
        # one cluster, one partition of all of it: a simple request that fits queues at once
        only = self.clusters[0]
        self._fast_cluster = only if len(self.clusters) == 1 and only.plain_partition else None
        self._end_events: dict[int, int] = {}  # kernel event ids of ends that may move
        self._subscribers = Subscribers()
        self.keep_finished = keep_finished
        self._runtime: dict[int, float] = {}  # the emulator's secret: actual durations
        self._exit_codes: dict[int, int] = {}  # and the non-zero exit statuses
        self._source: Iterator[Submission] | None = None
        self._source_last: Job | None = None  # the streamed job whose arrival pulls the next
        self._next_id = 1

    # --- the parts' state, as the engine's callers read it ----------------------------------
    @property
    def grid_policy(self) -> GridPolicy | None:
        return self.queues.grid_policy

    @grid_policy.setter
    def grid_policy(self, policy: GridPolicy | None) -> None:
        self.queues.grid_policy = policy

    @property
    def node_status(self) -> dict[int, NodeStatus]:
        """Nodes out of service (drained, down) and why."""
        return self.node_service.status

    # --- building --------------------------------------------------------------------------
    def observe(self, observer: Observer) -> None:
        """Subscribe ``observer`` to the hooks it overrides (the others cost nothing)."""
        self._subscribers.add(observer)

    def _local_policy(self) -> LocalPolicy:
        policy = build(self.spec.local)
        assert isinstance(policy, LocalPolicy)
        return policy

    @staticmethod
    def _grid_policy(spec: SchedulerSpec) -> GridPolicy | None:
        grid = build(spec.grid) if spec.grid else None
        assert grid is None or isinstance(grid, GridPolicy)
        return grid

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
        self.queues.forget_verdicts()
        self.grid_policy = self._grid_policy(spec)
        if self.grid_policy is None:  # nobody schedules the grid queue: route what waits there
            for job in list(self.grid.waiting.values()):
                self.admission.take_out(job)
                self.admission.left(job)
                self.admission.admit(job, readmitted=True)
        self.request_pass(self.grid)

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
        for notify in self._subscribers.submitted:
            notify(job)
        request = job.request
        fast = self._fast_cluster
        if (
            fast is not None
            and request.simple
            and request.tasks <= fast.capacity_total
            and request.begin <= self.kernel.now
            and job.id not in self.admission.holds
        ):  # what Admission.admit would conclude, known without asking
            self.queues.queue_on(job, 0)
            return
        self.admission.arrive(job)

    # --- planning ----------------------------------------------------------------------------
    def estimates(self, jobs: Iterable[Job], cluster: int) -> list[Estimate]:
        """The planning query for several jobs (see :meth:`GridView.estimates`)."""
        return self.grid.estimates(jobs, cluster)

    def estimate(self, job: Job, cluster: int) -> Estimate:
        """The planning query, answered by the cluster's local policy."""
        return self.grid.estimate(job, cluster)

    # --- scheduling passes ---------------------------------------------------------------------
    def request_pass(self, scope: Scope | None = None) -> None:
        """Ask for a pass at the end of this instant that looks at ``scope`` (the grid, a
        cluster; None: whatever is dirty): the one way to ask, see :mod:`emulator.engine.queues`."""
        self.queues.request_pass(scope)

    def _on_timer(self, payload: Job | int) -> None:
        if isinstance(payload, Job):  # a begin time, or a delayed dependency, has come
            self.admission.reconsider(payload)
            return
        self.request_pass(self.grid if payload == GRID else self.clusters[payload])

    def _pass(self) -> None:
        """One scheduling pass, after every completion and arrival of the instant."""
        grid = self.queues.grid_policy  # (not the property: a pass is hot)
        if grid is not None and self.grid.dirty:
            self.grid.dirty = False
            self._apply(GRID, grid.name, grid.schedule(self.grid))
            self.grid.passed()
        for state in self.clusters:
            if state.dirty:
                state.begin_pass()
                policy = state.policy
                self._apply(state.index, policy.name, policy.schedule(state))
                state.passed()

    def _apply(self, scope: int, policy: str, decisions: Iterable[Decision]) -> None:
        """Apply decisions as they come, so a generator policy sees the effect of each."""
        for decision in decisions:
            if isinstance(decision, Start):
                self._start(scope, policy, decision)
            elif isinstance(decision, Explain):
                job = self.queues.waiting_job(scope, policy, decision.job)
                job.reason = decision.reason
                job.explanation = decision.text
            elif isinstance(decision, Reserve):
                job = self.queues.waiting_job(scope, policy, decision.job)
                job.planned_start = decision.start
                job.planned_nodes = decision.nodes
                if decision.explanation:
                    job.explanation = decision.explanation
            elif isinstance(decision, Route):
                self.queues.route(scope, policy, decision)
            elif isinstance(decision, Withdraw):
                self.queues.withdraw(scope, policy, decision)
            elif isinstance(decision, Reject):
                job = self.queues.waiting_job(scope, policy, decision.job)
                self.queues.unqueue(job, started=False)
                self._finish(job, FAILED, decision.reason)
            elif isinstance(decision, Wake):
                if not decision.at > self.now:
                    raise PolicyError(f"policy {policy!r}: Wake at {decision.at} is not after now")
                self.kernel.at(decision.at, TIMER, scope)
            else:
                raise PolicyError(f"policy {policy!r} returned {decision!r}, not a decision")
            for notify in self._subscribers.decided:
                notify(policy, decision)

    def _start(self, scope: int, policy: str, decision: Start) -> None:
        job = held_to_limit(decision)
        if decision.nodes is None:  # the common case: the engine places the job in its cluster
            if scope == GRID:
                raise PolicyError(
                    f"policy {policy!r}: a grid start must name the nodes of job {job.id}"
                )
            state = self.clusters[scope]
            if state.waiting.get(job.id) is not job:
                self.queues.waiting_job(scope, policy, job)  # raises, naming the problem
            nodes, cores = take_free(state, policy, job)
            shares: tuple[tuple[ClusterState, int], ...] = ((state, job.cores),)
            slowest, bpus = state.uniform_speed, None
            if slowest is None:
                slowest = min(self.platform.nodes[n].speed for n in nodes)
        else:
            self.queues.waiting_job(scope, policy, job)
            nodes = decision.nodes
            cores = decision.cores or (job.request.cpus_per_task,) * len(nodes)
            slowest = check_nodes(self.platform, self.clusters, policy, job, scope, nodes, cores)
            bpus = check_power(self.bpu_ratings, policy, job, nodes, cores)
            # taken from a cluster's queue by the grid policy: it left that queue unstarted
            self.queues.unqueue(job, started=scope != GRID or job.cluster == GRID)
            shares = take_named(self.platform, self.clusters, job, nodes, cores, scope == GRID)
            job.cluster = shares[0][0].index
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
        if job.request.moldable is not None:
            job.cores = sum(cores)  # what it was given: jobs.csv, metrics and accounting count it
        duration, walltime = run_times(self.bpu_ratings, job, slowest, runtime, bpus)
        job.expected_end = expected_end = now + walltime
        for holder, share in shares:
            insort(holder.running_ends, (expected_end, job.id, share))
            holder.version += 1
        if self.queues.grid_policy is not None:  # (not the property: every start comes here)
            self.grid.changes.append((STARTED, job, job.cluster))
        if job.request.communication is not None and self.network.demand(job):
            for paced, end, killed in self.network.start(
                job, now, runtime, slowest, now + walltime
            ):
                self._move_end(paced, end, killed)
        else:
            timed_out = duration > walltime
            end = now + (walltime if timed_out else duration)
            self._end_events[job.id] = self.kernel.at(end, JOB_END, (job, timed_out, now))
        for notify in self._subscribers.started:
            notify(job)
        if job.id in self.admission.dependents:
            self.admission.started(job)

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
        self.admission.left(job)
        self.queues.request_pass()

    def _release(self, job: Job) -> None:
        """Give a running job's cores (and link bandwidth) back."""
        grid = self.queues.grid_policy is not None
        parts = by_cluster(self.platform, self.clusters, job.nodes, job.node_cores, job.cluster)
        for k, nodes, cores in parts:
            self.clusters[k].release(job, nodes, cores)
            if grid:
                self.grid.changes.append((ENDED, job, k))
        self._end_events.pop(job.id, None)  # every run's end event; the network's move
        if job.id in self.network.flows:
            for paced, end, killed in self.network.finish(job, self.kernel.now):
                self._move_end(paced, end, killed)
        if grid:
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
        for notify in self._subscribers.ended:
            notify(job)
        if not self.keep_finished:
            del self.jobs[job.id]
            del self._runtime[job.id]  # kept otherwise, for scontrol requeue
            self._exit_codes.pop(job.id, None)

    # --- job control (scancel, scontrol hold/release/requeue/update) ---------------------------
    def known_job(self, job_id: int) -> Job:
        """The job of ``job_id``, or Slurm's refusal of an unknown id."""
        job = self.jobs.get(job_id)
        if job is None:
            raise JobStateError(f"Invalid job id specified: {job_id}")
        return job

    def cancel(self, job_id: int) -> Job:
        """``scancel``: end a pending or running job now, CANCELLED."""
        job = self.known_job(job_id)
        if job.state.finished:
            raise JobStateError("Job/step already completing or completed")
        if job.state is RUNNING:
            self._release(job)
        else:
            self.admission.take_out(job)
        self._finish(job, JobState.CANCELLED)
        self.admission.left(job)
        self.request_pass()
        return job

    def hold(self, job_id: int, reason: Reason = Reason.HELD_USER) -> Job:
        """``scontrol hold``: keep a pending job from starting until released."""
        job = self.known_job(job_id)
        if job.state is not PENDING:
            raise JobStateError("Job is no longer pending execution")
        self.admission.hold(job, reason)
        self.request_pass()
        return job

    def release(self, job_id: int) -> Job:
        """``scontrol release``: undo a hold."""
        job = self.known_job(job_id)
        if not self.admission.release(job):
            raise JobStateError("Job is not held")
        return job

    def requeue(self, job_id: int) -> Job:
        """``scontrol requeue``: stop a running (or finished) job and queue it again, same id."""
        job = self.known_job(job_id)
        if job.state is PENDING:
            raise JobStateError("Job is pending execution")
        if job.id not in self._runtime:
            raise JobStateError("Job is no longer known in detail: it cannot be requeued")
        if job.state is RUNNING:
            self._release(job)
            self.admission.left(job)
        job.forget_run()
        self.admission.admit(job, readmitted=True)
        self.request_pass()
        return job

    def update(self, job_id: int, request: Request) -> Job:
        """``scontrol update``: change a pending job's request (it keeps its place by submit)."""
        job = self.known_job(job_id)
        if job.state is not PENDING:
            raise JobStateError("Job is no longer pending execution")
        self.admission.take_out(job)
        self.admission.left(job)
        job.request = request
        job.cores, job.time_limit = request.cores, request.time_limit
        self.admission.admit(job, readmitted=True)
        self.request_pass()
        return job

    # --- node states (scontrol update NodeName=... State=...) -----------------------------------
    def drain(self, node_ids: Sequence[int], reason: str, user: str = "root") -> None:
        """Take nodes out of service; their running jobs finish, no new job starts there."""
        self.node_service.check(node_ids)
        self.node_service.mark(node_ids, NodeState.DRAIN, reason, user)

    def down(self, node_ids: Sequence[int], reason: str, user: str = "root") -> list[Job]:
        """Take nodes out of service now: the jobs running on them end NODE_FAIL (returned)."""
        self.node_service.check(node_ids)
        killed = self.node_service.jobs_on(node_ids)
        for job in killed:
            names = self.node_service.names(job, node_ids)
            self._release(job)
            self._finish(job, JobState.NODE_FAIL, f"node {names} set DOWN: {reason}")
            self.admission.left(job)
        self.node_service.mark(node_ids, NodeState.DOWN, reason, user)
        return killed

    def resume(self, node_ids: Sequence[int]) -> None:
        """Put drained or down nodes back in service."""
        self.node_service.resume(node_ids)
