"""Where a rigid BSP job should run now: pure allocation functions over small data.

The OAS paper's performance model (Blanco et al., §3.1, eq. 1–7; models.md §3) predicts the
execution time ``Te = Tb · (σ·SP + (1 − σ)·SC)`` of job j on a set of resources: ``SP`` is the
slowdown of the slowest node taken (eq. 3), and ``SC`` the worst slowdown of the links the job
loads, given the load already on them (eq. 4–7). Three strategies (models.md §4.2):

- :func:`best` minimises the predicted Te. It never creates or worsens the saturation of a link
  when some allocation does not (the paper's MIP forbids saturation outright, §3.2; we allow it
  only as a last resort, so that a job that cannot avoid it still runs, and then take the least
  Te, SC included). It spans sites only when that predicts a strictly smaller Te than the best
  single site (so never when σ = 0: speed cannot pay back the communication). Ties go to fewer
  sites, then less bandwidth on the links, then faster nodes, then earlier sites. (The offline
  list schedulers of :mod:`solvers.oas.heuristics` plan with a stricter rule: no saturation
  ever, and other ties.)
- :func:`single` keeps a job inside one site: the one where its τ fastest free nodes give the
  smallest Te (the fastest site that fits).
- :func:`first_fit` is unrestricted co-allocation: free cores in cluster and node order, whatever
  their speed or the links (the unrestricted co-allocation that [BE07], cited in the paper's §1,
  found wanting).

Nodes of equal speed in a site are interchangeable for eq. 1–7, so a site is described by its free
task slots per *speed class* and :func:`best` searches per-(site, class) counts, never node subsets.
Within a site it takes the fastest classes first. Across sites it enumerates the vertices of the
link-feasible region: every site but one takes an end of its range ``{0, lo, τ − lo, n}`` (``lo``
the most tasks whose eq. 4 bandwidth fits the link's headroom, ``τ − lo`` its mirror, ``n`` all it
has), the remaining site the rest. Eq. 4 is concave in the task count, so the least-bandwidth split
is at such a vertex. That is at most ``α · 4^(α−1)`` candidates per speed threshold (48 for three
sites): cheap for the paper's few-site platforms, and exact in Te (``tests/test_coalloc.py``
checks it against brute force). It grows fast with α: a platform of many sites would want a DP.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import product

from emulator.model.network import link_bandwidth, link_slowdown, time_cost
from solvers.common.demand import Demand
from solvers.common.links import fits_link


@dataclass(frozen=True, slots=True)
class Site:
    """One cluster as the allocator sees it now.

    ``free`` holds ``(speed, free task slots)`` per speed class, fastest first. ``load`` is the
    bandwidth already in use on the site's link to the switch, ``capacity`` its MBW_k.
    """

    free: tuple[tuple[float, int], ...] = ()
    capacity: float = math.inf
    load: float = 0.0

    @property
    def slots(self) -> int:
        return sum(count for _, count in self.free)


@dataclass(frozen=True, slots=True)
class Allocation:
    """Tasks per (site, speed class) and what eq. 1–7 predict for them with today's link loads."""

    take: tuple[tuple[int, float, int], ...]  # (site, speed, tasks): by site, fastest first
    slowest: float  # speed of the slowest node taken: SP = 1 / slowest (eq. 3)
    comm_slowdown: float  # SC (eq. 5–7)
    time_cost: float  # ct = σ·SP + (1 − σ)·SC (eq. 2)
    te: float  # Te = Tb · ct (eq. 1)
    bandwidth: tuple[float, ...]  # BW_j^k on each site's link (eq. 4)
    saturates: bool  # a link it loads would be over capacity

    @property
    def sites(self) -> tuple[int, ...]:
        """The sites used, in order."""
        return tuple(sorted({site for site, _, _ in self.take}))

    def tasks_on(self, site: int) -> int:
        return sum(count for k, _, count in self.take if k == site)


def predict(
    sites: Sequence[Site], demand: Demand, take: tuple[tuple[int, float, int], ...]
) -> Allocation:
    """Eq. 1–7 for ``take`` on top of the sites' current link loads."""
    per_site = [0] * len(sites)
    slowest = math.inf
    for site, speed, count in take:
        per_site[site] += count
        slowest = min(slowest, speed)
    bandwidth = tuple(link_bandwidth(t, demand.tasks, demand.task_bw) for t in per_site)
    slowdown, saturates = 1.0, False
    for link, extra in zip(sites, bandwidth, strict=True):
        if extra > 0:
            used = link.load + extra
            saturates = saturates or not fits_link(used, link.capacity)
            slowdown = max(
                slowdown, link_slowdown(link.capacity, used) if link.capacity > 0 else math.inf
            )
    cost = time_cost(demand.sigma, slowest, slowdown)
    return Allocation(take, slowest, slowdown, cost, demand.base_time * cost, bandwidth, saturates)


def best(sites: Sequence[Site], demand: Demand) -> Allocation | None:
    """The allocation minimising the predicted Te (see the module docstring), or None if fewer
    than τ task slots are free."""
    tasks = demand.tasks
    if sum(site.slots for site in sites) < tasks:
        return None
    speeds = sorted({speed for site in sites for speed, n in site.free if n > 0}, reverse=True)
    chosen: Allocation | None = None
    chosen_key: tuple[object, ...] = ()
    for threshold in speeds:
        available = [sum(n for s, n in site.free if s >= threshold) for site in sites]
        if sum(available) < tasks:
            continue
        for counts in _splits(tasks, available, _all_ends(sites, available, demand, 1.0)):
            allocation = predict(sites, demand, _fastest(sites, counts, threshold))
            key = _key(allocation, counts)
            if chosen is None or key < chosen_key:
                chosen, chosen_key = allocation, key
        # With σ > 0 a slower threshold only adds allocations with a larger SP, so a larger Te.
        if chosen is not None and not chosen.saturates and demand.sigma > 0:
            break
    if chosen is not None and chosen.saturates:
        chosen = _least_saturating(sites, demand, speeds, chosen, chosen_key)
    return chosen


def _least_saturating(
    sites: Sequence[Site],
    demand: Demand,
    speeds: Sequence[float],
    chosen: Allocation,
    chosen_key: tuple[object, ...],
) -> Allocation:
    """When every allocation saturates a link: the least Te, with SC the worst link's level.

    Per speed threshold, the smallest level ``L`` (demand over capacity on the worst link used)
    at which some split fits every link's ``L · MBW_k`` is found by bisection over the levels
    eq. 4 can produce; the vertices at that level are then compared as usual. This is the rare
    path (the job cannot start now without saturating), so it may cost O(τ) per site.
    """
    tasks = demand.tasks
    for threshold in speeds:
        available = [sum(n for s, n in site.free if s >= threshold) for site in sites]
        if sum(available) < tasks:
            continue
        levels = sorted(
            {1.0}
            | {
                (site.load + link_bandwidth(t, tasks, demand.task_bw)) / site.capacity
                for site, n in zip(sites, available, strict=True)
                if 0 < site.capacity < math.inf
                for t in range(1, min(n, tasks - 1) + 1)
            }
        )
        low, high = 0, len(levels)  # levels[high] would be "none fits"
        while low < high:
            middle = (low + high) // 2
            if _fitting(sites, demand, available, levels[middle]):
                high = middle
            else:
                low = middle + 1
        if low == len(levels):
            continue  # only a link of no capacity could take the job's traffic
        for counts in _fitting(sites, demand, available, levels[low]):
            allocation = predict(sites, demand, _fastest(sites, counts, threshold))
            key = _key(allocation, counts)
            if key < chosen_key:
                chosen, chosen_key = allocation, key
    return chosen


def _fitting(
    sites: Sequence[Site], demand: Demand, available: Sequence[int], level: float
) -> list[tuple[int, ...]]:
    """The vertex splits whose every loaded link stays within ``level`` times its capacity."""
    fitting = []
    for counts in _splits(demand.tasks, available, _all_ends(sites, available, demand, level)):
        if all(
            fits_link(
                site.load + link_bandwidth(t, demand.tasks, demand.task_bw), level * site.capacity
            )
            for site, t in zip(sites, counts, strict=True)
            if 0 < t < demand.tasks and demand.task_bw > 0
        ):
            fitting.append(counts)
    return fitting


def single(sites: Sequence[Site], demand: Demand) -> Allocation | None:
    """The site whose τ fastest free task slots give the smallest Te, or None if none has τ."""
    chosen: Allocation | None = None
    chosen_key: tuple[object, ...] = ()
    for k, site in enumerate(sites):
        if site.slots < demand.tasks:
            continue
        counts = tuple(demand.tasks if i == k else 0 for i in range(len(sites)))
        allocation = predict(sites, demand, _fastest(sites, counts, 0.0))
        key = _key(allocation, counts)
        if chosen is None or key < chosen_key:
            chosen, chosen_key = allocation, key
    return chosen


def first_fit(
    nodes: Iterable[tuple[int, float, int]], sites: Sequence[Site], demand: Demand
) -> Allocation | None:
    """The first τ free task slots of ``nodes`` ``(site, speed, free slots)``, in the order given
    (cluster and node order), or None if there are fewer. ``sites`` gives the link loads."""
    remaining = demand.tasks
    counts: dict[tuple[int, float], int] = {}
    for site, speed, free in nodes:
        if free <= 0:
            continue
        count = min(free, remaining)
        counts[site, speed] = counts.get((site, speed), 0) + count
        remaining -= count
        if not remaining:
            break
    if remaining:
        return None
    take = tuple(
        (site, speed, count)
        for (site, speed), count in sorted(
            counts.items(), key=lambda item: (item[0][0], -item[0][1])
        )
    )
    return predict(sites, demand, take)


# --- the search behind best() ---------------------------------------------------------------------
def _key(allocation: Allocation, counts: Sequence[int]) -> tuple[object, ...]:
    """Order of preference: no saturation, Te, one site, less bandwidth, faster, earlier sites."""
    spans = sum(1 for count in counts if count) > 1
    speed = sum(speed * count for _, speed, count in allocation.take)
    return (
        allocation.saturates,
        allocation.time_cost,
        spans,
        sum(allocation.bandwidth),
        -speed,
        tuple(-count for count in counts),
    )


def _all_ends(
    sites: Sequence[Site], available: Sequence[int], demand: Demand, level: float
) -> list[tuple[int, ...]]:
    return [_ends(site, n, demand, level) for site, n in zip(sites, available, strict=True)]


def _ends(site: Site, available: int, demand: Demand, level: float) -> tuple[int, ...]:
    """Task counts at the ends of the ranges where the site's link carries at most ``level``
    times its capacity: 0, lo, τ − lo and all it has."""
    tasks = demand.tasks
    top = min(available, tasks)
    if top == 0:
        return (0,)
    values = {0, top}
    if demand.task_bw > 0 and tasks > 1 and math.isfinite(site.capacity):
        low = _most_tasks_within(site, demand, level * site.capacity)
        if low < tasks // 2:  # otherwise every count fits the link: no inner end
            values.update(v for v in (low, tasks - low) if v <= top)
    return tuple(sorted(values))


def _most_tasks_within(site: Site, demand: Demand, limit: float) -> int:
    """The largest ``t <= τ/2`` with ``load + BW(t) <= limit`` (eq. 4), or 0 if t = 1 exceeds it."""
    tasks, half = demand.tasks, demand.tasks // 2
    per = demand.task_bw / (tasks - 1)  # BW(t) = per · t · (τ − t)
    headroom = limit - site.load
    discriminant = tasks * tasks - 4 * headroom / per if headroom > 0 else tasks * tasks
    low = half if discriminant <= 0 else min(half, int((tasks - math.sqrt(discriminant)) / 2))
    low = max(low, 0)
    while low < half and fits_link(site.load + per * (low + 1) * (tasks - low - 1), limit):
        low += 1
    while low > 0 and not fits_link(site.load + per * low * (tasks - low), limit):
        low -= 1
    return low


def _splits(
    tasks: int, available: Sequence[int], ends: Sequence[tuple[int, ...]]
) -> Iterator[tuple[int, ...]]:
    """Task counts per site summing to ``tasks``: every site but one at one of its ``ends``."""
    active = [k for k, n in enumerate(available) if n > 0]
    seen: set[tuple[int, ...]] = set()
    for rest_site in active:
        others = [k for k in active if k != rest_site]
        for combo in product(*(ends[k] for k in others)):
            rest = tasks - sum(combo)
            if not 0 <= rest <= available[rest_site]:
                continue
            counts = [0] * len(available)
            counts[rest_site] = rest
            for k, count in zip(others, combo, strict=True):
                counts[k] = count
            split = tuple(counts)
            if split not in seen:
                seen.add(split)
                yield split


def _fastest(
    sites: Sequence[Site], counts: Sequence[int], threshold: float
) -> tuple[tuple[int, float, int], ...]:
    """Each site's count taken from its fastest classes of at least ``threshold``."""
    take = []
    for k, count in enumerate(counts):
        remaining = count
        for speed, free in sites[k].free:
            if not remaining or speed < threshold:
                break
            if free:
                n = min(free, remaining)
                take.append((k, speed, n))
                remaining -= n
    return tuple(take)
