"""The ``oas`` grid policy: plan a batch of waiting jobs with the OAS MIP and carry the plan out
(Blanco et al., "OAS: a MIP model for ordering and allocating parallel jobs on multi-cluster
systems", §3 and §4; models.md §4.3).

Spec: ``oas[:model=fast|paper,solver=highs|glpk,batch=8,slot=0.5,time_limit=none,
starts=continuous|slots]``.

A plan takes the first ``batch`` jobs of the grid queue, in queue order, and solves their order
and allocation together (:func:`solvers.oas.solve`), with the jobs already running as fixed
occupancy (:class:`~solvers.oas.problem.Occupancy`). The plan is left-shifted (the MIP minimises
the makespan only, so a job off the critical path may sit later than its resources require;
:mod:`solvers.oas.shift`) and carried out on the planned nodes, keeping the plan's order:
``Reserve(job, start, nodes)`` announces each planned start, and

- ``starts=continuous`` (default): a job starts as soon as every job planned before it on any of
  its cores has started, its planned cores are free and no link it loads would go over MBW_k
  with the jobs running then. The plan rounds every run time up to whole slots while jobs really
  run Te (eq. 1-3), so this start is never later than the planned one unless a link is busier
  than planned (a job planned later on other cores may run early and still hold the link); the
  job then waits until the link has room. The paper ran its plans in the GridSim simulator (§4)
  without saying when jobs started there; continuous starts are our reading, and they are how
  the heuristics it compares with run.
- ``starts=slots``: a job starts at its planned slot boundary (a ``Wake`` there), for runs that
  must reproduce the MIP's slotted schedule.

Jobs beyond the batch wait for the next plan. A new plan is made when

- the plan is used up (every job of it has started) and jobs wait;
- a job arrives in the grid queue while the plan holds fewer than ``batch`` jobs;
- a job ends before its predicted end (``GridView.ended``): its resources free up early;
- a planned job left the queue (cancelled, held) or its planned nodes are not free when it is
  due (another policy took them, or a job ran past its prediction).

Choices where the paper is silent, made here:

- Slot size η: ``slot`` × the mean base time of the jobs being planned, default 0.5: §4.1 found
  the makespan stable from 50 % down (models.md §4.3), and §4.2 used "a near-optimal" size.
  θ: the best slotted queue-order schedule with the running jobs in place (a valid deadline).
  A plan starts at the time it is made: slot t covers ``[now + (t-1)·η, now + t·η)``.
- Resources are cores (one task per core, as in the BSP workloads); a job asking more than one
  CPU per task, or with neither a base time nor a time limit, is rejected. So is a job that has
  no allocation even on the idle platform: more tasks than the clusters it may use have cores,
  or every allocation loads some link over MBW_k. The MIP forbids saturation (constraint 22,
  SC_j = 1), so such a job has no feasible plan; ``coalloc`` would run it on a saturated link as
  a last resort, with the slowdown of eq. 6-7, but OAS is a model without that slowdown, and a
  plan for the rest of the batch is worth more than a guess for it. The reason names the job's
  tasks, per-task bandwidth and the links. Γ^r is the node's
  speed over the fastest node's (Γ ≤ 1, §3.1), and a job's Tb and σ are rescaled so that its
  Te (eq. 1–3) on every node is unchanged. A job without BSP parameters is σ = 1, PTBW = 0 with
  its time limit as Tb, as in ``coalloc``; a job may use the clusters its request names (all if
  none). Its other placement options (partition, ``-w``/``-x``, exclusive) are not applied.
- A running job is predicted to end at start + Te on its nodes (SC = 1), capped by its time
  limit; one still running past its prediction holds its nodes until its limit.
- Deterministic: by default every solve runs to optimality, so the schedule depends only on the
  workload. ``time_limit`` bounds each solve instead, and then the schedule depends on the
  machine's speed. When a solve returns no plan (GLPK, which gets no MIP start, stopped before
  finding one), the best slotted queue-order schedule is carried out instead.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from emulator.api import Decision, Explain, GridPolicy, GridView, Reject, Reserve, Start, Wake
from emulator.model.job import Job, Reason
from emulator.model.network import link_bandwidth, time_cost
from emulator.model.platform import Platform
from solvers.common.demand import demand_of
from solvers.common.links import fits_link
from solvers.oas.heuristics import allocate, best_slotted_plan
from solvers.oas.problem import (
    JobPlacement,
    OasJob,
    OasProblem,
    OasResource,
    Occupancy,
    SolveStatus,
)
from solvers.oas.shift import left_shift
from solvers.oas.solve import SolverUnavailable, require_solver, solve

#: Slack when comparing simulated times that were computed along different paths.
_TIME_NOISE = 1e-6


class Model(enum.Enum):
    """Which formulation a plan solves (both give the same optimum)."""

    FAST = "fast"
    PAPER = "paper"


class Solver(enum.Enum):
    HIGHS = "highs"
    GLPK = "glpk"


class Starts(enum.Enum):
    """When a planned job starts: as soon as the plan allows, or at its planned slot boundary."""

    CONTINUOUS = "continuous"
    SLOTS = "slots"


@dataclass(frozen=True, slots=True)
class PlanRecord:
    """One plan as made: when, why, for which jobs, and how the solve ended."""

    time: float
    reason: str
    job_ids: tuple[int, ...]
    slot_size: float
    slot_count: int
    status: SolveStatus
    objective: float  # makespan of the plan carried out, from ``time``
    bound: float | None


@dataclass(frozen=True, slots=True)
class _Planned:
    """A job of the current plan that has not started yet."""

    job: Job
    start: float
    nodes: tuple[int, ...]
    cores: tuple[int, ...]
    text: str
    after: frozenset[int]  # jobs planned to start earlier on one of its cores
    loads: tuple[float, ...]  # its load on each cluster's link (eq. 4)


@dataclass(frozen=True, slots=True)
class _Layout:
    """The platform as OAS resources: one per core, the cores of a node consecutive."""

    resources: tuple[OasResource, ...]
    node_of: tuple[int, ...]  # platform node id of each resource
    first: tuple[int, ...]  # index of each platform node's first resource
    links: tuple[float, ...]
    top_speed: float


def _layout(platform: Platform) -> _Layout:
    top = max(node.speed for node in platform.nodes)
    resources: list[OasResource] = []
    node_of: list[int] = []
    first: list[int] = []
    for node in platform.nodes:
        first.append(len(resources))
        for core in range(node.cores):
            name = node.name if node.cores == 1 else f"{node.name}/{core}"
            resources.append(OasResource(name, node.cluster, node.speed / top))
            node_of.append(node.id)
    links = tuple(cluster.link_capacity for cluster in platform.clusters)
    return _Layout(tuple(resources), tuple(node_of), tuple(first), links, top)


def oas_job(job: Job, platform: Platform, top_speed: float) -> OasJob:
    """The job as OAS sees it when Γ^r = speed / ``top_speed``.

    Tb and σ are rescaled so that Te on a node of speed s stays Tb·(σ/s + 1 - σ) (eq. 1-2):
    Tb' = Tb·(σ/top + 1 - σ) is the time on the fastest node, σ' its computing share.
    """
    demand = demand_of(job)
    fastest = time_cost(demand.sigma, top_speed)
    names = [cluster.name for cluster in platform.clusters]
    clusters = tuple(sorted(names.index(n) for n in job.request.clusters if n in names))
    base = max(demand.base_time, _TIME_NOISE)  # a job of base time 0 still holds one slot
    return OasJob(
        job.id,
        demand.tasks,
        base * fastest,
        demand.sigma / top_speed / fastest,
        demand.task_bw,
        clusters,
    )


def predicted_end(job: Job, platform: Platform) -> float:
    """When a running job should end: start + Te on its nodes (eq. 1–3, SC = 1), or its limit."""
    demand = demand_of(job)
    slowest = min(platform.nodes[n].speed for n in job.nodes)
    return min(job.start + demand.base_time * time_cost(demand.sigma, slowest), job.expected_end)


@dataclass
class Oas(GridPolicy):
    """OAS: order and allocate a batch of waiting jobs by a MIP (Blanco et al. §3.2)."""

    name = "oas"
    default_local = "fcfs"

    model: Model = Model.FAST  # fast | paper
    solver: Solver = Solver.HIGHS  # highs | glpk
    batch: int = 8  # jobs per plan
    slot: float = 0.5  # η as a fraction of the batch's mean base time
    time_limit: float | None = None  # seconds per solve; none: to optimality (deterministic)
    starts: Starts = Starts.CONTINUOUS  # continuous | slots
    plans: list[PlanRecord] = field(default_factory=list, init=False, repr=False)
    _layout: _Layout | None = field(default=None, init=False, repr=False)
    _platform: Platform | None = field(default=None, init=False, repr=False)
    _planned: dict[int, _Planned] = field(default_factory=dict, init=False, repr=False)
    _size: int = field(default=0, init=False, repr=False)  # jobs in the current plan
    _wakes: set[float] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError(f"batch must be at least 1 job, got {self.batch}")
        if not (self.slot > 0 and math.isfinite(self.slot)):
            raise ValueError(
                f"slot must be a positive fraction of the mean base time, got {self.slot}"
            )
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"time_limit must be positive seconds or none, got {self.time_limit}")
        try:
            require_solver(self.solver.value)
        except SolverUnavailable as error:  # a bad spec for this machine: say what to install
            raise ValueError(str(error)) from None

    def schedule(self, view: GridView) -> Iterator[Decision]:
        if view.platform is not self._platform:
            self._platform, self._layout = view.platform, _layout(view.platform)
        now = view.now
        self._wakes = {t for t in self._wakes if t > now}
        for job in view.queue:
            problem = _unplannable(job)
            if problem:
                yield Reject(job, problem)
        queue = view.queue
        reason = self._replan_reason(view, queue)
        while True:
            if reason is not None:
                yield from self._replan(view, queue, reason)
            yield from self._start_due(view)
            queue = view.queue
            if self._planned or not queue:
                break
            reason = "every job of the plan has started"
        if self.starts is Starts.CONTINUOUS:
            return  # the ends that free the planned cores call the policy
        for start in sorted({p.start for p in self._planned.values()} - self._wakes):
            if start > now:
                self._wakes.add(start)
                yield Wake(start)

    # --- when to plan -------------------------------------------------------------------------
    def _replan_reason(self, view: GridView, queue: Sequence[Job]) -> str | None:
        """Why the current plan must be replaced, or None. Forgets planned jobs that left."""
        waiting = {job.id for job in queue}
        gone = [job_id for job_id in self._planned if job_id not in waiting]
        for job_id in gone:
            del self._planned[job_id]
        if not queue:
            return None
        if gone:
            return f"planned job {gone[0]} left the queue"
        if not self._planned:
            return "jobs wait and no plan holds them"
        if view.arrived and self._size < self.batch:
            return f"job {view.arrived[0].id} arrived"
        assert self._platform is not None
        for job in view.ended:
            if job.end < predicted_end(job, self._platform) - _TIME_NOISE:
                return f"job {job.id} ended early"
        for planned in self._planned.values():
            if planned.start <= view.now + _TIME_NOISE and not _free(view, planned):
                return f"the nodes of job {planned.job.id} are not free at its planned start"
        return None

    # --- making a plan ------------------------------------------------------------------------
    def _replan(self, view: GridView, queue: Sequence[Job], reason: str) -> Iterator[Decision]:
        now = view.now
        assert self._layout is not None
        batch: list[Job] = []
        for job in queue:
            if len(batch) == self.batch:
                break
            refusal = _unplaceable(job, view.platform, self._layout)
            if refusal:
                yield Reject(job, refusal)
            else:
                batch.append(job)
        chosen = {job.id for job in batch}
        rest = [job for job in view.queue if job.id not in chosen]
        if not batch:
            self._planned, self._size = {}, 0
            return
        problem = self._problem(view, batch)
        result = solve(
            problem,
            model=self.model.value,
            solver=self.solver.value,
            time_limit=self.time_limit,
        )
        plan, status = result.plan, result.status
        how = f"{self.model.value} model, {self.solver.value} {status.value}"
        if plan is None:
            plan, how = best_slotted_plan(problem), f"queue-order heuristic ({how})"
        plan = left_shift(problem, plan)
        self.plans.append(
            PlanRecord(
                now,
                reason,
                tuple(job.id for job in batch),
                problem.slot_size,
                problem.slot_count,
                status,
                plan.makespan,
                result.bound,
            )
        )
        withdrawn = [p.job for p in self._planned.values() if p.job in rest]
        for job in withdrawn:  # pushed out of the batch (a job came back ahead of it)
            yield Reserve(job, math.nan)
        self._planned = {}
        self._size = len(batch)
        eta, theta = problem.slot_size, problem.slot_count
        for job, placement in zip(batch, plan.placements, strict=True):
            nodes, cores = self._nodes(placement)
            slot = placement.start_slot or 0
            text = f"OAS plan at {now:g}: slot {slot} of {theta} (η = {eta:.4g} s), {how}"
            after = frozenset(
                other.job_id
                for other in plan.placements
                if (other.start_slot or 0) < slot
                and not set(other.resources).isdisjoint(placement.resources)
            )
            loads = _link_loads(view.platform, job, nodes, cores)
            self._planned[job.id] = _Planned(
                job, now + slot * eta, nodes, cores, text, after, loads
            )
            if slot:
                yield Reserve(job, now + slot * eta, nodes, text)
                if job.reason is not Reason.RESOURCES:
                    yield Explain(job, Reason.RESOURCES, text)
        text = f"waits for the next OAS plan (batch of {self.batch})"
        for job in rest:
            if job.explanation != text:
                yield Explain(job, Reason.PRIORITY, text)

    def _problem(self, view: GridView, batch: Sequence[Job]) -> OasProblem:
        assert self._layout is not None
        layout = self._layout
        jobs = [oas_job(job, view.platform, layout.top_speed) for job in batch]
        mean = sum(job.base_time for job in jobs) / len(jobs)
        return OasProblem.create(
            layout.resources,
            layout.links,
            jobs,
            slot_size=self.slot * mean,
            occupied=self._occupied(view),
        )

    def _occupied(self, view: GridView) -> list[Occupancy]:
        """The running jobs, each on the first free cores of its nodes (cores are alike)."""
        assert self._layout is not None and self._platform is not None
        layout, platform, now = self._layout, self._platform, view.now
        running = {job.id: job for cluster in view.clusters for job in cluster.running}
        taken = [0] * len(platform.nodes)
        occupied = []
        for job_id in sorted(running):
            job = running[job_id]
            end = predicted_end(job, platform)
            if end <= now + _TIME_NOISE:  # ran past its prediction: until its limit
                end = job.expected_end
            resources: list[int] = []
            for node, count in zip(job.nodes, job.node_cores, strict=True):
                start = layout.first[node] + taken[node]
                resources += range(start, start + count)
                taken[node] += count
            loads = _link_loads(platform, job, job.nodes, job.node_cores)
            occupied.append(Occupancy(job.id, tuple(resources), end - now, loads))
        return occupied

    def _nodes(self, placement: JobPlacement) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Platform node ids and cores per node of a placement's resources."""
        assert self._layout is not None
        counts: dict[int, int] = {}
        for r in placement.resources:
            node = self._layout.node_of[r]
            counts[node] = counts.get(node, 0) + 1
        nodes = tuple(sorted(counts))
        return nodes, tuple(counts[n] for n in nodes)

    # --- carrying it out ----------------------------------------------------------------------
    def _start_due(self, view: GridView) -> Iterator[Decision]:
        if self.starts is Starts.SLOTS:
            due = [p for p in self._planned.values() if p.start <= view.now + _TIME_NOISE]
            for planned in sorted(due, key=lambda p: (p.start, p.job.id)):
                del self._planned[planned.job.id]
                yield Start(planned.job, planned.nodes, planned.cores, planned.text)
            return
        assert self._platform is not None
        load = _running_link_loads(view, self._platform)
        capacity = [cluster.link_capacity for cluster in self._platform.clusters]
        for planned in sorted(self._planned.values(), key=lambda p: p.start):  # stable: batch order
            if planned.after & self._planned.keys() or not _free(view, planned):
                continue
            added = [a + b for a, b in zip(load, planned.loads, strict=True)]
            loaded = zip(added, planned.loads, capacity, strict=True)
            if not all(fits_link(total, cap) for total, own, cap in loaded if own):
                continue
            load = added
            del self._planned[planned.job.id]
            yield Start(planned.job, planned.nodes, planned.cores, planned.text)


def _unplannable(job: Job) -> str:
    """Why OAS can never plan ``job`` ("" if it can)."""
    if job.request.cpus_per_task != 1:
        return "oas plans one task per core: --cpus-per-task must be 1"
    if not math.isfinite(demand_of(job).base_time):
        return "oas needs a base time (BSP job) or a time limit to plan a job"
    return ""


def _unplaceable(job: Job, platform: Platform, layout: _Layout) -> str:
    """Why ``job`` has no allocation even on the idle platform ("" if it has one)."""
    seen = oas_job(job, platform, layout.top_speed)
    usable = [r for r, res in enumerate(layout.resources) if seen.may_use(res.cluster)]
    if seen.tasks > len(usable):
        return (
            f"oas cannot place job {job.id}: {seen.tasks} tasks, and the clusters it may use "
            f"have {len(usable)} cores"
        )
    alone = OasProblem.create(layout.resources, layout.links, [seen], slot_size=1, slot_count=1)
    if allocate(alone, seen, usable, [0.0] * len(layout.links)) is not None:
        return ""
    links = ", ".join(f"{c.name} {c.link_capacity:g}" for c in platform.clusters)
    return (
        f"oas cannot place job {job.id} without saturating a link, even on the idle platform: "
        f"{seen.tasks} tasks at {seen.task_bw:g} per task; link capacities {links}"
    )


def _link_loads(
    platform: Platform, job: Job, nodes: Sequence[int], cores: Sequence[int]
) -> tuple[float, ...]:
    """The job's load on each cluster's link (eq. 4) with ``cores[i]`` cores on ``nodes[i]``."""
    per_cluster = [0] * len(platform.clusters)
    for node, count in zip(nodes, cores, strict=True):
        per_cluster[platform.nodes[node].cluster] += count // job.request.cpus_per_task
    task_bw = demand_of(job).task_bw
    return tuple(link_bandwidth(n, job.request.tasks, task_bw) for n in per_cluster)


def _running_link_loads(view: GridView, platform: Platform) -> list[float]:
    """Each cluster's link load from the jobs running now (a job on several clusters once)."""
    running = {job.id: job for cluster in view.clusters for job in cluster.running}
    load = [0.0] * len(platform.clusters)
    for job in running.values():
        for k, add in enumerate(_link_loads(platform, job, job.nodes, job.node_cores)):
            load[k] += add
    return load


def _free(view: GridView, planned: _Planned) -> bool:
    """Are the planned cores free on every planned node?"""
    platform = view.platform
    for node, count in zip(planned.nodes, planned.cores, strict=True):
        where = platform.nodes[node]
        if view.clusters[where.cluster].node_free[where.local] < count:
            return False
    return True
