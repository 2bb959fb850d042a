"""The ``alp`` and ``amp`` grid policies: economic scheduling live in the emulator (Toporkov et
al., *Resource Selection Algorithms for Economic Scheduling in Distributed Systems*, ICCS 2011,
§2–3; models.md §4.7), e.g. ``batchlab replay jobs.csv -p teaching-3sites -s amp:objective=cost``.

Every ``cycle`` seconds (the paper's scheduling cycle) the jobs waiting in the grid queue form a
batch in queue order. The policy builds the slot list from the platform (one lane per core,
the node's ``speed`` as performance and ``price`` per core-second as price, free from now or
from a running job's expected end, busy during its own reservations:
:mod:`solvers.economic.lanes`), runs the multi-variant search with ALP or AMP, chooses one
window per job by the backward run of eq. 1 (:mod:`solvers.economic.batch`) and reserves it;
each job starts at its window's start on its window's nodes. A job's economic request comes
from ``sbatch --min-speed/--price-cap/--budget`` or the CSV columns ``min_speed``,
``price_cap``, ``budget`` (``Request.economic``); a job without one asks for any node at any
price.

Options: ``objective`` (``time``: minimise the batch's total time under the budget B* of eq. 3;
``cost``: minimise its total cost under the time limit T* of eq. 2), ``cycle`` (seconds between
two batches; 0: a batch at every pass), ``rounds`` (most rounds of the multi-variant search, so
most alternatives per job: 20 by default; 0: until a round finds no window, the paper's rule,
which live can mean thousands of windows for a short job beside long running ones).

Choices the paper leaves open, made here (see also :mod:`solvers.economic.lanes`):

- a job's task length t is its time limit (what a scheduler knows; the engine keeps the real run
  time), its N slots its cores (``-n`` × ``-c``, each core a slot, so a task's cores may sit on
  different nodes), its minimum performance ``--min-speed`` (0: any), its cap C ``--price-cap``
  per core-second (none: any price) and AMP's budget S ``--budget``, else S = C·t·N (§3);
- reservations are kept from one cycle to the next (a window chosen is a promise); the policy
  plans again from scratch, every waiting job with it, at the next cycle after a job ended
  before its expected end or a job with a reservation left the queue (the slots grew), and at
  once when a reserved node cannot take the job at its window's start (out of service): the
  re-plan may then move any reservation;
- the DP's time of a window is its run time t_i(s_i), not its end, as in the paper: under
  ``objective=time`` a later window on faster nodes can win over an earlier one;
- a batch whose jobs found no window leaves them waiting for the next cycle (the paper's cycle
  is dropped instead; live, the job stays); a job that could not run even on the empty platform
  (too few nodes fast enough, or ALP's cap under every such node's price, or AMP's budget under
  the cheapest window) is rejected, as is a job without a time limit (no t) or a moldable one
  (``--bpu``: these policies do not mold jobs);
- a job may use the nodes of the clusters ``-M`` names (all if none) in its partition (the
  cluster's default if none), minus ``--exclude``; other placement constraints are not applied.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from emulator.api import Decision, Explain, GridPolicy, GridView, Reject, Reserve, Start, Wake
from emulator.model.durations import format_duration
from emulator.model.hostlist import compress
from emulator.model.job import Job, Reason
from emulator.model.platform import Platform
from solvers.economic.batch import Goal, Option, budget_limit, choose, time_limit
from solvers.economic.lanes import Busy, Lane, horizon, slot_list
from solvers.economic.search import Algorithm, find_alternatives, find_window
from solvers.economic.slots import Hold, Request, Slot, Window


class Objective(enum.Enum):
    """What the batch choice minimises (§5's two experiments)."""

    TIME = "time"
    COST = "cost"


@dataclass(frozen=True, slots=True)
class _Plan:
    """A reserved window: the job starts at ``start`` with ``cores`` cores on each of ``nodes``."""

    start: float
    end: float
    nodes: tuple[int, ...]
    cores: tuple[int, ...]
    text: str


@dataclass(frozen=True, slots=True)
class _Ask:
    """A job's request as the scans see it, and the nodes it may use."""

    request: Request
    budget: float  # S for AMP, shown in the explanation
    cap: float  # C for ALP
    nodes: frozenset[int]


@dataclass
class _Economic(GridPolicy):
    """ALP or AMP windows for a batch each cycle, chosen by eq. 1, reserved and started."""

    algorithm: ClassVar[Algorithm]
    default_local = "fcfs"
    routes_all = True  # every job is planned in grid-queue order

    objective: Objective = Objective.TIME
    cycle: float = 60.0
    rounds: int = 20
    _platform: Platform | None = field(default=None, init=False, repr=False)
    _lanes: tuple[Lane, ...] = field(default=(), init=False, repr=False)
    _plans: dict[int, _Plan] = field(default_factory=dict, init=False, repr=False)
    _next: float = field(default=-math.inf, init=False, repr=False)  # the next cycle's instant
    _stale: bool = field(default=False, init=False, repr=False)  # plan again at the next cycle
    _woken: set[float] = field(default_factory=set, init=False, repr=False)
    # whether a request fits the empty platform on these nodes: asked of every waiting job at
    # every cycle, the same answer until the platform changes
    _possible: dict[tuple[Request, frozenset[int]], bool] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if not self.cycle >= 0 or math.isinf(self.cycle):
            raise ValueError(f"cycle must be finite seconds >= 0, not {self.cycle}")
        if self.rounds < 0:
            raise ValueError(f"rounds must be >= 0 (0: no limit), not {self.rounds}")

    @property
    def label(self) -> str:
        return self.algorithm.name

    def schedule(self, view: GridView) -> Iterator[Decision]:
        now = view.now
        if view.platform is not self._platform:
            self._platform = view.platform
            self._possible.clear()
            self._lanes = tuple(
                Lane(node.id, node.speed, node.price)
                for node in view.platform.nodes
                for _ in range(node.cores)
            )
            self._plans.clear()
        queued = {job.id: job for job in view.queue}
        plans = self._plans
        # the slots grew (a job ended early, a reserved one left): plan again at the next cycle
        for job_id in [job_id for job_id in plans if job_id not in queued]:
            del plans[job_id]
            self._stale = True
        if any(job.end < job.expected_end for job in view.ended):
            self._stale = True
        taken = False
        started: set[int] = set()
        for job_id, plan in sorted(plans.items(), key=lambda item: (item[1].start, item[0])):
            if plan.start > now:
                continue
            if not self._fits(view, plan):
                taken = True  # a reserved node was taken (out of service): plan again now
                continue
            started.add(job_id)
            yield Start(queued[job_id], plan.nodes, plan.cores, plan.text)
        for job_id in started:
            del plans[job_id]
        due = now >= self._next
        if due and self.cycle:
            self._next = (math.floor(now / self.cycle) + 1) * self.cycle
        replan = taken or (self._stale and due)
        if replan:
            plans.clear()
            self._stale = False
        waiting = [job for job in view.queue if job.id not in started and job.id not in plans]
        if waiting and (replan or due):
            yield from self._plan(view, waiting)
        yield from self._wakes(view, waiting)

    def _fits(self, view: GridView, plan: _Plan) -> bool:
        nodes = view.platform.nodes
        for node_id, cores in zip(plan.nodes, plan.cores, strict=True):
            node = nodes[node_id]
            if view.clusters[node.cluster].node_free[node.local] < cores:
                return False
        return True

    def _wakes(self, view: GridView, waiting: Sequence[Job]) -> Iterator[Wake]:
        """A wake at each reserved start, and at the next cycle while jobs wait unplanned and
        something can still change (a job runs or is reserved: with nothing either, only an
        arrival, which wakes the policy anyway, can help them)."""
        now = view.now
        times = {plan.start for plan in self._plans.values() if plan.start > now}
        unplanned = any(job.id not in self._plans for job in waiting) or (
            self._stale and bool(self._plans)
        )
        busy = self._plans or any(cluster.running for cluster in view.clusters)
        if self.cycle and unplanned and busy and self._next > now:
            times.add(self._next)
        self._woken = {time for time in self._woken if time > now}
        for time in sorted(times - self._woken):
            self._woken.add(time)
            yield Wake(time)

    # --- one cycle --------------------------------------------------------------------------------
    def _plan(self, view: GridView, waiting: Sequence[Job]) -> Iterator[Decision]:
        releases = _releases(view)
        # (a job without a limit is rejected below: it would put the horizon at infinity)
        longest = max(
            (job.time_limit for job in view.queue if job.time_limit < math.inf), default=0
        )
        busy = self._busy()
        end = horizon(self._lanes, releases, busy, view.now, longest)
        slots = slot_list(self._lanes, releases, busy, end)
        if slots is None:  # a reservation no longer fits: every waiting job is planned again
            self._plans.clear()
            waiting = list(view.queue)
            slots = slot_list(self._lanes, releases, (), end) or []
        batch: list[Job] = []
        asks: list[_Ask] = []
        for job in waiting:
            ask = self._ask(view, job)
            if isinstance(ask, str):
                yield Reject(job, ask)
                continue
            batch.append(job)
            asks.append(ask)
        lanes = self._lanes
        everywhere = len(view.platform.nodes)
        usable = [None if len(ask.nodes) == everywhere else _on(lanes, ask.nodes) for ask in asks]
        found = find_alternatives(
            slots,
            [ask.request for ask in asks],
            self.algorithm,
            hold=Hold.WINDOW,
            rounds=self.rounds,
            usable=usable,
        )
        with_windows = [i for i, windows in enumerate(found) if windows]
        picks = self._choose([found[i] for i in with_windows])
        chosen = dict(zip(with_windows, picks, strict=True))
        for i, job in enumerate(batch):
            if i not in chosen:
                text = f"{self.label}: no window of {job.cores} slots{self._terms(asks[i])} yet"
                if job.explanation != text or job.reason is not Reason.RESOURCES:
                    yield Explain(job, Reason.RESOURCES, text)
                if not math.isnan(job.planned_start):  # a promise dropped by a re-plan
                    yield Reserve(job, math.nan)
                continue
            window = found[i][chosen[i]]
            plan = self._reserve(window, asks[i], len(found[i]))
            if plan.start <= view.now:
                yield Start(job, plan.nodes, plan.cores, plan.text)
            else:
                self._plans[job.id] = plan
                yield Explain(job, Reason.RESOURCES)  # waits for its window's nodes
                yield Reserve(job, plan.start, plan.nodes, plan.text)

    def _busy(self) -> list[Busy]:
        return [
            Busy(node, cores, plan.start, plan.end)
            for plan in self._plans.values()
            for node, cores in zip(plan.nodes, plan.cores, strict=True)
        ]

    def _choose(self, found: Sequence[Sequence[Window]]) -> list[int]:
        """One alternative per job by eq. 1 (T* by eq. 2, B* by eq. 3)."""
        if not found:
            return []
        options = [[Option(w.time, w.cost) for w in windows] for windows in found]
        limit = time_limit(options)
        if self.objective is Objective.COST:
            choice = choose(options, Goal.MIN_COST, limit)
        else:
            budget = budget_limit(options, limit)
            choice = None if budget is None else choose(options, Goal.MIN_TIME, budget)
        if choice is None:  # not expected: T* admits the fastest combination, B* one within T*
            return [0] * len(found)
        return list(choice.picks)

    def _reserve(self, window: Window, ask: _Ask, alternatives: int) -> _Plan:
        lanes = self._lanes
        counts: dict[int, int] = {}
        for slot in window.sources:
            node = lanes[slot.node].node
            counts[node] = counts.get(node, 0) + 1
        nodes = tuple(sorted(counts))
        names = compress(self._platform_node_name(node) for node in nodes)
        where = f"{len(window.sources)} slots on {names} at {format_duration(window.start)}"
        aim = "minimising time" if self.objective is Objective.TIME else "minimising cost"
        text = (
            f"{self.label}: {where}, cost {window.cost:.1f}{self._within(ask)} "
            f"({_best_of(alternatives)}, {aim})"
        )
        return _Plan(
            window.start,
            window.start + window.time,
            nodes,
            tuple(counts[node] for node in nodes),
            text,
        )

    def _platform_node_name(self, node: int) -> str:
        assert self._platform is not None
        return self._platform.nodes[node].name

    # --- a job's request --------------------------------------------------------------------------
    def _ask(self, view: GridView, job: Job) -> _Ask | str:
        """The job's request and nodes, or why it can never run (the rejection's text)."""
        request = job.request
        length = job.time_limit
        if not 0 < length < math.inf:
            return f"{self.label} needs a time limit (the task length t of the paper)"
        if request.moldable is not None:
            return f"{self.label} does not mold jobs: a --bpu job is for the bpu scheduler"
        economic = request.economic
        floor = economic.min_speed if economic is not None else 0.0
        cap = math.inf
        if economic is not None and economic.price_cap is not None:
            cap = economic.price_cap
        nodes = job.cores
        budget = cap * length * nodes
        if economic is not None and economic.budget is not None:
            budget = economic.budget
        per_slot = cap if self.algorithm is Algorithm.ALP else _cap_for(budget, length, nodes)
        ask = _Ask(
            Request(nodes, length, floor, per_slot), budget, cap, _usable(view.platform, job)
        )
        if not self._fits_empty(ask.request, ask.nodes):
            return f"{self.label}: no {nodes} slots{self._terms(ask)} on the platform"
        return ask

    def _fits_empty(self, request: Request, nodes: frozenset[int]) -> bool:
        """Whether ``request`` finds a window on ``nodes`` of the empty platform."""
        key = (request, nodes)
        if key not in self._possible:
            empty = [
                Slot(i, 0.0, math.inf, lane.speed, lane.price)
                for i, lane in enumerate(self._lanes)
                if lane.node in nodes
            ]
            found = find_window(empty, request, self.algorithm, Hold.WINDOW)
            self._possible[key] = found is not None
        return self._possible[key]

    def _terms(self, ask: _Ask) -> str:
        """`` of speed >= 1.5 within budget 360.0``: what the job asked for."""
        parts = []
        if ask.request.min_performance > 0:
            parts.append(f" of speed >= {ask.request.min_performance:g}")
        return "".join(parts) + self._within(ask)

    def _within(self, ask: _Ask) -> str:
        if self.algorithm is Algorithm.ALP:
            return "" if math.isinf(ask.cap) else f" at most {ask.cap:g} per core-second each"
        return "" if math.isinf(ask.budget) else f" within budget {ask.budget:.1f}"


def _best_of(alternatives: int) -> str:
    return "the only alternative" if alternatives == 1 else f"best of {alternatives} alternatives"


def _cap_for(budget: float, length: float, nodes: int) -> float:
    """The per-slot C whose S = C·t·N (:attr:`Request.budget`) is ``budget`` or just above it:
    AMP is given S itself, with no rounding to refuse a window that costs exactly S."""
    cap = budget / (length * nodes)
    while 1.0 * cap * length * nodes < budget:
        cap = math.nextafter(cap, math.inf)
    return cap


def _usable(platform: Platform, job: Job) -> frozenset[int]:
    """The nodes the job may use: its clusters' (all if no -M), in its partition, not excluded."""
    request = job.request
    excluded = set(request.exclude)
    usable = []
    for cluster in platform.clusters:
        if request.clusters and cluster.name not in request.clusters:
            continue
        partition = (
            cluster.partition(request.partition) if request.partition else cluster.default_partition
        )
        if partition is None:
            continue
        for local in partition.nodes:
            node = cluster.nodes[local]
            if node.name not in excluded:
                usable.append(node.id)
    return frozenset(usable)


def _on(lanes: Sequence[Lane], nodes: frozenset[int]) -> Callable[[Slot], bool]:
    return lambda slot: lanes[slot.node].node in nodes


def _releases(view: GridView) -> dict[int, list[float]]:
    """When each usable core of each node comes back: now if free, else its job's expected end."""
    now = view.now
    releases: dict[int, list[float]] = {}
    for k, cluster in enumerate(view.platform.clusters):
        state = view.clusters[k]
        for node, free in zip(cluster.nodes, state.node_free, strict=True):
            releases[node.id] = [now] * free
        for job in state.running:
            for node_id, cores in zip(job.nodes, job.node_cores, strict=True):
                if view.platform.nodes[node_id].cluster == k:
                    releases[node_id].extend([job.expected_end] * cores)
    return releases


@dataclass
class Alp(_Economic):
    """ALP: the earliest windows of slots each within the job's price cap (§3)."""

    name = "alp"
    algorithm = Algorithm.ALP


@dataclass
class Amp(_Economic):
    """AMP: the earliest windows whose N cheapest slots fit the job's budget (§3)."""

    name = "amp"
    algorithm = Algorithm.AMP
