"""The BPU paper's site and processor selection as pure functions over small data (models.md §4.4).

Kaur, Chhabra, Nancy and Kumar, "A Hybrid Algorithm For Moldable Jobs Scheduling in Heterogeneous
Multi-Cluster System" (IJATCSE 2013), "Scheduling Process", Figs. 3–6:

- ``build_table`` (Fig. 6): every site with its average unallocated BPUs (unallocated BPUs over
  the site's processors), in non-increasing order; :func:`site_table`;
- ``site_select`` (Fig. 4, "fastest first"): the first row of that table;
- ``processor_select`` (Fig. 5, "best fit with fastest first"): of the partitions of the site's
  free processors whose BPU sum is >= x_j, the one with the least excess, ties to the fewest
  processors; :func:`best_fit`. A site's processors come in few speed classes, so a partition is
  a count per class, not a subset;
- "if no single site has enough computing power then the job is co-allocated"; :func:`coallocate`.

Choices the paper leaves open, made here:

- a processor is a core, rated ``speed / slowest speed of the platform`` BPUs;
- equal averages in the table keep the platform's site order; among best fits with the same
  excess and processor count, the one with more processors of the faster classes wins;
- excess is compared rounded to 1e-9 BPU, so that sums of the same value in a different order
  tie (the comparison must not depend on float summation order);
- co-allocation walks the table in order, takes every free processor of each site whose free
  BPUs fall short of what is still needed, and best-fits the rest on the first site that can
  supply it. The job is co-allocated only when all free BPUs together suffice.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product

_ROUND = 9  # decimal places of BPU excess compared (see the module docstring)
_EPSILON = 10.0**-_ROUND


@dataclass(slots=True)
class SiteFree:
    """A site's free processors now: ``(BPU rating, free count)`` per speed class, fastest
    first, and its processors in total (the table's denominator). ``free_bpus`` and
    ``average`` (Fig. 6: unallocated BPUs per processor) are computed once, here: the table
    and every selection read them. Never changed once made (a start makes a new one), yet not
    frozen: the policy makes about two per job, and a frozen one costs a setattr per field."""

    index: int
    name: str
    processors: int
    classes: tuple[tuple[float, int], ...]
    free_bpus: float = field(init=False)
    average: float = field(init=False)

    def __post_init__(self) -> None:
        free = sum([rating * count for rating, count in self.classes])
        self.free_bpus = free
        self.average = free / self.processors if self.processors else 0.0


@dataclass(frozen=True, slots=True)
class Pick:
    """Processors chosen on one site: ``counts[i]`` of the site's class ``i``."""

    site: SiteFree
    counts: tuple[int, ...]

    @property
    def bpus(self) -> float:
        classes = self.site.classes
        return sum(rating * count for (rating, _), count in zip(classes, self.counts, strict=True))

    @property
    def processors(self) -> int:
        return sum(self.counts)


def site_table(sites: Sequence[SiteFree]) -> list[SiteFree]:
    """The sites by average unallocated BPUs, non-increasing; ties keep the given order."""
    return sorted(sites, key=lambda site: -site.average)


def best_fit(
    classes: Sequence[tuple[float, int]], need: float, available: float | None = None
) -> tuple[int, ...] | None:
    """Counts per class for ``need`` BPUs (:func:`_fit`); ``available``: the classes' BPU sum,
    if known."""
    if available is None:
        available = sum(rating * free for rating, free in classes)
    if available < need - _EPSILON:
        return None
    return _fit(tuple(classes), need)


@lru_cache(maxsize=1 << 16)
def _fit(classes: tuple[tuple[float, int], ...], need: float) -> tuple[int, ...] | None:
    """Counts per class whose BPU sum is >= ``need`` with the least excess, then the fewest
    processors, then the most of the faster classes (``classes`` fastest first); None if all of
    them together fall short: the first of :func:`_ranked` the free counts allow. Cached, as a
    site's few classes and small counts recur from job to job."""
    frees = tuple(free for _, free in classes)
    for counts in _ranked(tuple(rating for rating, _ in classes), need):
        if all(map(operator.le, counts, frees)):
            return counts
    return None


@lru_cache(maxsize=1 << 12)
def _ranked(ratings: tuple[float, ...], need: float) -> tuple[tuple[int, ...], ...]:
    """Every count tuple best fit may choose for ``need`` on classes of these ``ratings``
    (fastest first), best first: least excess, fewest processors, then lexicographically most
    of the faster classes. Each faster class counts up to ``ceil(need / rating)`` (one more
    processor of a class that alone covers ``need`` only adds excess); the slowest class's
    count is computed, not enumerated: the fewest that close the gap. Ranked once per
    platform and need, so a choice is a scan for the first that the free counts allow."""
    *faster, last_rating = ratings
    ranked = []
    for prefix in product(*(range(math.ceil(need / rating) + 1) for rating in faster)):
        partial = sum(rating * count for rating, count in zip(faster, prefix, strict=True))
        gap = need - partial
        last = max(0, math.ceil(round(gap / last_rating, _ROUND))) if gap > 0 else 0
        counts = (*prefix, last)
        excess = round(partial + last * last_rating - need, _ROUND)
        ranked.append(((excess, sum(counts), tuple(-c for c in counts)), counts))
    ranked.sort()
    return tuple(counts for _, counts in ranked)


def select(table: Sequence[SiteFree], need: float) -> Pick | None:
    """Fastest first: best fit on the first site of the table that can supply ``need`` alone;
    None if no single site can (the paper then co-allocates). The paper's ``site_select`` reads
    only the first row, yet co-allocates only "if no single site has enough computing power":
    a later row that suffices alone is taken, as that sentence says."""
    for site in table:
        counts = best_fit(site.classes, need, site.free_bpus)
        if counts is not None:
            return Pick(site, counts)
    return None


def coallocate(table: Sequence[SiteFree], need: float) -> list[Pick] | None:
    """Sites in table order: all free processors of each site that falls short, best fit of the
    rest on the first that does not; None if all free BPUs together fall short."""
    if sum(site.free_bpus for site in table) < need - _EPSILON:
        return None
    picks: list[Pick] = []
    left = need
    for site in table:
        if not site.free_bpus:
            continue
        counts = best_fit(site.classes, left, site.free_bpus)
        if counts is not None:
            picks.append(Pick(site, counts))
            return picks
        picks.append(Pick(site, tuple(free for _, free in site.classes)))
        left -= site.free_bpus
    return None  # only when rounding left less than 1e-9 BPU uncovered
