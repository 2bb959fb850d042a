"""The ``coalloc`` grid policy: an allocation strategy combined with a queue order (OAS paper §4.2).

Queue orders (models.md §4.2; the baselines of the paper's Fig. 4):

- ``fcfs`` arrival order; ``sjf`` fewest tasks first; ``bjf`` most tasks first; ``spt`` shortest
  base time first; ``lpt`` longest base time first. These keep a strict order: the first job that
  cannot start now blocks every job behind it. Ties go to the earlier submit time, then the lower
  job id (Slurm's FIFO priority), and a new arrival takes its place by its key at the next pass.
- ``fpfs`` (fit processors first served): in arrival order, every job that fits now starts; a job
  that does not fit is passed over, not waited for.

Each pass starts jobs on the grid queue's snapshot in that order and allocates each with
``alloc`` (:mod:`solvers.coalloc.allocation`): ``best`` (eq. 1–7 with the current link loads),
``single`` (one site only) or ``firstfit`` (cluster and node order). A job "fits" when its strategy
finds an allocation on the free nodes now; with ``best`` and ``firstfit`` that means τ free task
slots on the clusters it may use. Within a site, the lowest-numbered free nodes of each chosen speed
class are taken, as Slurm's select plugin would.

Choices the paper leaves open, made here:

- The base time Tb is ``request.communication.base_time``; a job without ``communication`` is
  treated as σ = 1, PTBW = 0 with its time limit as Tb (so ``spt``/``lpt`` order it by limit).
- A job may use the clusters its request names (all if none). Other placement constraints of the
  request (partition, ``-w``/``-x``, exclusive, tasks per node) are not applied by this policy.
- Nothing is reserved: a blocked job is explained (Slurm reason ``Resources``) and retried at the
  next pass, which comes with every arrival to the grid queue and every job end.
"""

from __future__ import annotations

import enum
import math
from bisect import insort
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import attrgetter, not_

from emulator.api import Decision, Explain, GridPolicy, GridView, Start
from emulator.model.job import Job, Reason
from emulator.model.platform import Platform
from solvers.coalloc.allocation import Allocation, Site, best, first_fit, single
from solvers.common.demand import base_time, demand_of
from solvers.common.orders import QueueOrder


class Strategy(enum.Enum):
    """How a job's tasks are placed (models.md §4.2)."""

    BEST = "best"
    SINGLE = "single"
    FIRSTFIT = "firstfit"


RankKey = tuple[float, float, int]

_RANK: dict[QueueOrder, Callable[[Job], RankKey]] = {
    QueueOrder.SJF: lambda job: (job.request.tasks, job.submit, job.id),
    QueueOrder.BJF: lambda job: (-job.request.tasks, job.submit, job.id),
    QueueOrder.SPT: lambda job: (base_time(job), job.submit, job.id),
    QueueOrder.LPT: lambda job: (-base_time(job), job.submit, job.id),
}


def ordered(queue: Sequence[Job], order: QueueOrder) -> list[Job]:
    """The queue in ``order``: fcfs and fpfs keep the queue's own order; the sorted orders break
    ties by submit time, then job id (Slurm's FIFO priority)."""
    key = _RANK.get(order)
    return list(queue) if key is None else sorted(queue, key=key)


_ID = attrgetter("id")


@dataclass(slots=True)
class _Ranking:
    """A sorted order kept from pass to pass, so that a pass costs O(Q) at C speed plus the
    insertion of new arrivals instead of a sort with Q Python key calls. Same result as
    :func:`ordered`: keys are fixed once a job is queued."""

    key: Callable[[Job], RankKey]
    jobs: list[Job] = field(default_factory=list)

    def update(self, queue: Sequence[Job]) -> list[Job]:
        present = set(map(_ID, queue))
        jobs = list(compress(self.jobs, map(present.__contains__, map(_ID, self.jobs))))
        if len(jobs) < len(present):
            known = set(map(_ID, jobs))
            for job in compress(queue, map(not_, map(known.__contains__, map(_ID, queue)))):
                insort(jobs, job, key=self.key)
        self.jobs = jobs
        return jobs


@dataclass(frozen=True, slots=True)
class _Cluster:
    """The static facts about one cluster that a pass needs."""

    name: str
    ids: tuple[int, ...]  # platform node id by local index
    speeds: tuple[float, ...]  # node speed by local index
    classes: tuple[tuple[float, tuple[int, ...]], ...]  # (speed, local indices), fastest first
    unit: bool  # every node has one core: free counts are 0 or 1


def _layout(platform: Platform) -> tuple[_Cluster, ...]:
    layout = []
    for cluster in platform.clusters:
        speeds = tuple(node.speed for node in cluster.nodes)
        classes = tuple(
            (speed, tuple(i for i, s in enumerate(speeds) if s == speed))
            for speed in sorted(set(speeds), reverse=True)
        )
        layout.append(
            _Cluster(
                cluster.name,
                tuple(node.id for node in cluster.nodes),
                speeds,
                classes,
                all(node.cores == 1 for node in cluster.nodes),
            )
        )
    return tuple(layout)


@dataclass
class CoAllocation(GridPolicy):
    """Co-allocation by the OAS performance model, in a queue order (OAS paper §4.2)."""

    name = "coalloc"
    default_local = "fcfs"

    alloc: Strategy = Strategy.BEST  # best | single | firstfit
    order: QueueOrder = QueueOrder.FCFS  # fcfs | sjf | bjf | spt | lpt | fpfs
    _platform: Platform | None = field(default=None, init=False, repr=False)
    _clusters: tuple[_Cluster, ...] = field(default=(), init=False, repr=False)
    _ranking: _Ranking | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        key = _RANK.get(self.order)
        self._ranking = None if key is None else _Ranking(key)

    def schedule(self, view: GridView) -> Iterator[Decision]:
        if view.platform is not self._platform:
            self._platform, self._clusters = view.platform, _layout(view.platform)
        clusters = view.clusters
        if not any(cluster.free_cores for cluster in clusters):
            return
        queue = view.queue
        if not queue:
            return
        skip_blocked = self.order is QueueOrder.FPFS
        sites: dict[tuple[int, tuple[str, ...]], list[Site]] = {}  # this pass, until a start
        for job in queue if self._ranking is None else self._ranking.update(queue):
            allocation = self._allocate(view, job, sites)
            if allocation is None:
                if job.reason is not Reason.RESOURCES:
                    yield Explain(job, Reason.RESOURCES, self._blocked(view, job))
                if skip_blocked:
                    continue
                return
            nodes, cores = self._place(view, allocation, job.request.cpus_per_task)
            yield Start(job, nodes=nodes, cores=cores, explanation=self._explain(allocation))
            sites.clear()
            if skip_blocked and not any(cluster.free_cores for cluster in clusters):
                return

    # --- allocation -------------------------------------------------------------------------
    def _allowed(self, job: Job) -> list[int]:
        names = job.request.clusters
        return [k for k, c in enumerate(self._clusters) if not names or c.name in names]

    def _allocate(
        self, view: GridView, job: Job, cache: dict[tuple[int, tuple[str, ...]], list[Site]]
    ) -> Allocation | None:
        allowed = self._allowed(job)
        if job.cores > sum(view.clusters[k].free_cores for k in allowed):
            return None  # the common case in a busy queue: no need to look further
        cpt = job.request.cpus_per_task
        key = (cpt, job.request.clusters)
        sites = cache.get(key)
        if sites is None:
            sites = cache[key] = self._sites(view, cpt, allowed)
        demand = demand_of(job)
        if self.alloc is Strategy.BEST:
            return best(sites, demand)
        if self.alloc is Strategy.SINGLE:
            return single(sites, demand)
        return first_fit(self._free_nodes(view, cpt, allowed), sites, demand)

    def _sites(self, view: GridView, cpt: int, allowed: list[int]) -> list[Site]:
        """Free task slots per speed class of each cluster (none where the job may not run)."""
        sites = []
        for k, (state, info) in enumerate(zip(view.clusters, self._clusters, strict=True)):
            capacity, load = state.cluster.link_capacity, view.link_load(k)
            if k not in allowed:
                sites.append(Site((), capacity, load))
                continue
            if cpt == 1 and len(info.classes) == 1:
                counts = [(info.classes[0][0], state.free_cores)]
            else:
                free = state.node_free
                counts = [
                    (speed, sum(free[i] // cpt for i in local)) for speed, local in info.classes
                ]
            sites.append(Site(tuple((s, n) for s, n in counts if n > 0), capacity, load))
        return sites

    def _free_nodes(
        self, view: GridView, cpt: int, allowed: list[int]
    ) -> Iterator[tuple[int, float, int]]:
        """``(cluster, speed, free task slots)`` of every node with room, in cluster/node order."""
        for k in allowed:
            speeds = self._clusters[k].speeds
            for i, free in enumerate(view.clusters[k].node_free):
                if free >= cpt:
                    yield k, speeds[i], free // cpt

    def _place(
        self, view: GridView, allocation: Allocation, cpt: int
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Node ids and cores: the lowest-numbered free nodes of each chosen speed class."""
        nodes: list[int] = []
        cores: list[int] = []
        for k in allocation.sites:
            info = self._clusters[k]
            wanted = {speed: count for site, speed, count in allocation.take if site == k}
            free = view.clusters[k].node_free
            need = sum(wanted.values())
            if info.unit and cpt == 1 and len(info.classes) == 1:
                # one task on each of the first free one-core nodes, found at C speed
                nodes.extend(islice(compress(info.ids, free), need))
                cores.extend(repeat(1, need))
                continue
            for i, room in enumerate(free):
                if room < cpt:
                    continue
                left = wanted.get(info.speeds[i], 0)
                if left:
                    count = min(room // cpt, left)
                    wanted[info.speeds[i]] = left - count
                    nodes.append(info.ids[i])
                    cores.append(count * cpt)
                    need -= count
                    if not need:
                        break
        return tuple(nodes), tuple(cores)

    # --- explanations -----------------------------------------------------------------------
    def _explain(self, allocation: Allocation) -> str:
        names = "+".join(self._clusters[k].name for k in allocation.sites)
        if len(allocation.sites) == 1:
            if math.isfinite(allocation.te):
                return f"single site {names}: predicted Te {allocation.te:.0f} s"
            return f"single site {names}: predicted slowdown {allocation.time_cost:.2f}"
        text = (
            f"co-allocated over {len(allocation.sites)} sites ({names}): "
            f"predicted slowdown {allocation.time_cost:.2f}"
        )
        if allocation.saturates:
            text += f", links saturated (SC {allocation.comm_slowdown:.2f})"
        return text

    def _blocked(self, view: GridView, job: Job) -> str:
        allowed = self._allowed(job)
        if self.alloc is Strategy.SINGLE:
            most = max((view.clusters[k].free_cores for k in allowed), default=0)
            return f"waits for {job.cores} free cores on one site (at most {most} free on any)"
        free = sum(view.clusters[k].free_cores for k in allowed)
        return f"waits for {job.cores} free cores ({free} free on its sites)"
