"""The broker grid policies ``ml``, ``mpl``, ``mlb``, ``mct`` and their admissible variants
``ml-a``, ``mpl-a``, ``mlb-a``, ``mct-a`` (Tchernykh et al., *Two Level Job-Scheduling Strategies
for a Computational Grid*, §2.2 and §3; models.md §4.5), over the local policy ``lsf`` by default
(``mct-a+easy`` and the like are allowed).

The rules themselves are the pure functions of :mod:`solvers.brokers.rules`; this module feeds them
the engine's state. Choices the paper leaves open, made here:

- **Online.** The paper routes one batch given at time 0. Here each job is routed when it reaches
  the grid queue (all jobs at time 0 is that batch: one pass routes them in queue order). With
  ``batch=SECONDS`` arrivals are collected and routed together at the next multiple of
  ``SECONDS`` (a job arriving on a multiple is routed at once).
- **Counters** (ML, MPL, MLB) cover the jobs on a site that have not ended, waiting or running,
  whoever sent them there (a job requeued, or queued before this broker took over, loads its site
  too). They are kept as jobs are queued, leave, start and end
  (:attr:`emulator.api.GridView.changes`), never recomputed from the queues; a broker that takes
  over a running platform counts what it finds once. ML counts jobs, MPL adds their sizes.
- **MLB** is the lower bound of the completion time of the assigned jobs: their remaining work per
  processor, with the user's estimate (the time limit on the site) for the unknown run time: a
  waiting job counts ``size x limit``, a running one ``size x (expected end - now)``, kept as two
  sums so that time passing costs nothing.
- **MCT** asks each candidate site's local policy for the job's expected completion
  (:meth:`emulator.api.GridView.estimate`; with ``lsf``, LSF's own list schedule). Routes made
  earlier in the same pass are in the sites' queues, so they count.
- Ties go to the lowest position in the size order (the smallest site, then the first declared);
  see :mod:`solvers.brokers.rules`.
- Every job goes through the broker, in the order of the grid queue (submit time, then id),
  even one that only one site can take (which the engine would otherwise queue there at once,
  ahead of the jobs routed in the same pass): the paper's list order, on which its worst cases
  depend.
- A job that names clusters (``sbatch -M``) or a partition is routed among the candidates that
  admit it (:meth:`emulator.api.GridView.allowed`). If no admissible site does, an ``-a`` variant
  chooses among the available sites that do (the user's -M wins over the rule's restriction);
  a job that no site large enough admits (a time limit over every partition's) is rejected.
- A job larger than every site is rejected, the reason saying so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from emulator.api import (
    Decision,
    GridPolicy,
    GridView,
    Reject,
    Route,
    SiteChange,
    Wake,
)
from emulator.model.durations import format_duration
from emulator.model.job import Job
from solvers.brokers.rules import (
    Rule,
    Sites,
    available,
    candidates,
    counter_increment,
    select,
    sort_sites,
)

QUEUED, DEPARTED, STARTED, ENDED = SiteChange


@dataclass
class Counters:
    """The per-site counters of ML, MPL or MLB, by position in the size order.

    ``waiting[p]``: what the jobs queued at ``p`` add (ML: 1 each, MPL: size, MLB: size x limit).
    For MLB the running jobs count apart, as ``end_work[p] - now * run_cores[p]`` (the sum of
    size x expected end, less now times their sizes); for ML and MPL a running job keeps counting
    what it counted waiting. ``held`` maps a counted job's id to its position, whether it runs,
    and what it added.
    """

    rule: Rule
    waiting: list[float]
    end_work: list[float]
    run_cores: list[int]
    jobs: list[int]
    held: dict[int, tuple[int, bool, float]] = field(default_factory=dict)

    @classmethod
    def empty(cls, rule: Rule, sites: int) -> Counters:
        return cls(rule, [0.0] * sites, [0.0] * sites, [0] * sites, [0] * sites)

    def queued(self, job: Job, position: int, walltime: float) -> None:
        if job.id in self.held:
            if self.held[job.id][0] == position:
                return  # routed here by this broker: counted already
            self.left(job)
        added = counter_increment(self.rule, job.cores, walltime)
        self.held[job.id] = (position, False, added)
        self.waiting[position] += added
        self.jobs[position] += 1

    def started(self, job: Job) -> None:
        entry = self.held.get(job.id)
        if entry is None or entry[1] or self.rule is not Rule.MLB:
            if entry is not None:
                self.held[job.id] = (entry[0], True, entry[2])
            return
        position, _, added = entry
        self.waiting[position] -= added
        self.end_work[position] += job.cores * job.expected_end
        self.run_cores[position] += job.cores
        self.held[job.id] = (position, True, job.cores * job.expected_end)

    def left(self, job: Job) -> None:
        """The job ended, or left the queue unstarted: it no longer loads its site."""
        entry = self.held.pop(job.id, None)
        if entry is None:
            return
        position, running, added = entry
        if running and self.rule is Rule.MLB:
            self.end_work[position] -= added
            self.run_cores[position] -= job.cores
        else:
            self.waiting[position] -= added
        self.jobs[position] -= 1
        if self.jobs[position] == 0:  # an empty site counts zero exactly, whatever the rounding
            self.waiting[position] = self.end_work[position] = 0.0
            self.run_cores[position] = 0

    def figures(self, now: float) -> list[float]:
        """The counters as the rule compares them (before the division by the site's size)."""
        if self.rule is not Rule.MLB:
            return self.waiting
        return [
            w + e - now * c
            for w, e, c in zip(self.waiting, self.end_work, self.run_cores, strict=True)
        ]


@dataclass
class Broker(GridPolicy):
    """A two-level grid broker: routes each grid job to one site by its rule."""

    rule: ClassVar[Rule]
    admissible_only: ClassVar[bool]
    default_local = "lsf"
    routes_all = True  # jobs only one site can take come in list order too

    batch: float = 0.0  # seconds between routing rounds; 0 routes each arrival at once
    _sites: Sites | None = field(default=None, init=False, repr=False)
    _position: list[int] = field(default_factory=list, init=False, repr=False)
    _counters: Counters | None = field(default=None, init=False, repr=False)
    _names: list[str] = field(default_factory=list, init=False, repr=False)  # by position
    _plain_sites: bool = field(default=False, init=False, repr=False)
    _wake: float = field(default=math.nan, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.batch >= 0 or math.isinf(self.batch):
            raise ValueError(f"batch must be a finite number of seconds >= 0, not {self.batch}")

    @property
    def _kind(self) -> str:
        return "admissible" if self.admissible_only else "available"

    @property
    def label(self) -> str:
        return self.rule.name + ("-a" if self.admissible_only else "")

    def schedule(self, view: GridView) -> Iterator[Decision]:
        sites = self._sites
        if sites is None:
            sites = self._start_counting(view)
        elif self._counters is not None:
            self._follow(view)
        queue = view.queue
        if not queue:
            return
        if self.batch:
            due = math.ceil(view.now / self.batch) * self.batch
            if due > view.now:
                if due != self._wake:
                    self._wake = due
                    yield Wake(due)
                return
        for job in queue:
            yield self._route(view, sites, job)

    def _start_counting(self, view: GridView) -> Sites:
        """First pass: sort the sites, and count what they already hold (once)."""
        sizes = [cluster.cores for cluster in view.platform.clusters]
        sites = self._sites = sort_sites(sizes)
        clusters = view.platform.clusters
        self._names = [clusters[k].name for k in sites.order]
        # every site's default partition spans it with no time limit: a plain request without
        # -M is admitted by every site large enough (no need to ask GridView.allowed)
        self._plain_sites = all(
            len(c.default_partition.nodes) == len(c.nodes)
            and math.isinf(c.default_partition.max_time)
            for c in clusters
        )
        self._position = [0] * len(sizes)
        for position, cluster in enumerate(sites.order):
            self._position[cluster] = position
        if self.rule.counted:
            counters = self._counters = Counters.empty(self.rule, len(sizes))
            for cluster_view in view.clusters:
                position = self._position[cluster_view.cluster.index]
                for job in cluster_view.queue:
                    counters.queued(job, position, cluster_view.walltime(job))
                for job in cluster_view.running:
                    counters.queued(job, position, cluster_view.walltime(job))
                    counters.started(job)
        return sites

    def _follow(self, view: GridView) -> None:
        """Bring the counters up to date with what happened on the sites since the last pass."""
        counters = self._counters
        assert counters is not None
        clusters, position = view.clusters, self._position
        for change, job, cluster in view.changes:
            if change is QUEUED:
                counters.queued(job, position[cluster], clusters[cluster].walltime(job))
            elif change is STARTED:
                counters.started(job)
            else:
                counters.left(job)

    def _route(self, view: GridView, sites: Sites, job: Job) -> Decision:
        positions: Sequence[int] = candidates(sites, job.cores, self.admissible_only)
        if not positions:
            largest = view.platform.clusters[sites.order[-1]]
            return Reject(
                job,
                f"{self.label}: job needs {job.cores} cores, more than any site has "
                f"(the largest, {largest.name}, has {largest.cores})",
            )
        allowed = positions
        request = job.request
        clusters = (  # what -M names and partitions admit (within the available sites)
            None
            if self._plain_sites and request.plain and not request.clusters
            else view.allowed(job)
        )
        if clusters is not None and len(clusters) < len(sites) - positions[0]:
            admitted = set(clusters)
            allowed = [p for p in positions if sites.order[p] in admitted]
            if not allowed and self.admissible_only:  # the user's -M over the rule's restriction
                wider = available(sites, job.cores)
                allowed = [p for p in wider if sites.order[p] in admitted]
            if not allowed:
                return Reject(
                    job,
                    f"{self.label}: no site large enough admits it "
                    "(its -M clusters, partition or time limit)",
                )
        counters = self._counters
        if counters is None:
            figures = [math.inf] * len(sites)
            for p in allowed:
                figures[p] = view.estimate(job, sites.order[p]).end
        else:
            figures = counters.figures(view.now)
        span = range(allowed[0], allowed[-1] + 1)
        chosen = select(self.rule, sites, span, _only(allowed, figures))
        cluster = sites.order[chosen]
        explanation = self._explain(view, sites, positions, allowed, figures, chosen)
        if counters is not None:
            counters.queued(job, chosen, view.clusters[cluster].walltime(job))
        return Route(job, cluster, explanation)

    def _explain(
        self,
        view: GridView,
        sites: Sites,
        positions: Sequence[int],
        allowed: Sequence[int],
        figures: Sequence[float],
        chosen: int,
    ) -> str:
        """The rule's figures, e.g. ``MCT-a: admissible north..east (first north, r east); ECT
        north 1:00:00, east 1:10:00 -> north`` (ECTs from now; loads per processor, MLB's in
        whole seconds)."""
        name = self._names.__getitem__
        first, last = name(positions[0]), name(positions[-1])
        span = f"{self._kind} {first}..{last} (first {first}"
        span += f", r {last})" if self.admissible_only else ")"
        if len(allowed) != len(positions):
            span += f", allowed {','.join(name(p) for p in allowed)}"
        if self.rule is Rule.MCT:
            now = view.now
            values = ", ".join(f"{name(p)} {_duration(figures[p] - now)}" for p in allowed)
            return f"{self.label}: {span}; ECT {values} -> {name(chosen)}"
        sizes = sites.sizes
        if self.rule is Rule.MLB:  # core-seconds per processor: whole seconds say enough
            values = ", ".join(f"{name(p)} {round(figures[p] / sizes[p])}" for p in allowed)
        else:
            values = ", ".join(f"{name(p)} {figures[p] / sizes[p]:.4g}" for p in allowed)
        measure = {Rule.ML: "jobs", Rule.MPL: "cores", Rule.MLB: "work"}[self.rule]
        return f"{self.label}: {span}; {measure}/proc {values} -> {name(chosen)}"


def _only(allowed: Sequence[int], figures: Sequence[float]) -> Sequence[float]:
    """The figures with every position outside ``allowed`` out of the running."""
    if isinstance(allowed, range):
        return figures
    kept = [math.inf] * len(figures)
    for p in allowed:
        kept[p] = figures[p]
    return kept


def _duration(seconds: float) -> str:
    return "never" if math.isinf(seconds) else format_duration(max(seconds, 0.0))


@dataclass
class MinLoad(Broker):
    """ML: route to the site with the fewest jobs per processor (broker paper §2.2)."""

    name = "ml"
    rule = Rule.ML
    admissible_only = False


@dataclass
class MinLoadAdmissible(Broker):
    """ML-a: the fewest jobs per processor among the admissible sites (broker paper §2.2)."""

    name = "ml-a"
    rule = Rule.ML
    admissible_only = True


@dataclass
class MinParallelLoad(Broker):
    """MPL: route to the site with the least sum of job sizes per processor (broker paper §2.2)."""

    name = "mpl"
    rule = Rule.MPL
    admissible_only = False


@dataclass
class MinParallelLoadAdmissible(Broker):
    """MPL-a: the least sum of job sizes per processor among the admissible sites (§2.2)."""

    name = "mpl-a"
    rule = Rule.MPL
    admissible_only = True


@dataclass
class MinLowerBound(Broker):
    """MLB: route to the site with the least remaining work per processor (broker paper §2.2)."""

    name = "mlb"
    rule = Rule.MLB
    admissible_only = False


@dataclass
class MinLowerBoundAdmissible(Broker):
    """MLB-a: the least work per processor among the admissible sites (broker paper §3.5)."""

    name = "mlb-a"
    rule = Rule.MLB
    admissible_only = True


@dataclass
class MinCompletionTime(Broker):
    """MCT: route to the site whose own schedule completes the job first (broker paper §2.2)."""

    name = "mct"
    rule = Rule.MCT
    admissible_only = False


@dataclass
class MinCompletionTimeAdmissible(Broker):
    """MCT-a: the earliest completion among the admissible sites (broker paper §3.3)."""

    name = "mct-a"
    rule = Rule.MCT
    admissible_only = True
