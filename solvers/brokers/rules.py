"""The broker paper's selection rules as pure functions over small data.

Tchernykh et al., *Two Level Job-Scheduling Strategies for a Computational Grid*, §2.2 (selection
strategies) and §3 (ML, MPL, MLB, MCT and their admissible variants); models.md §4.5.

Everything here works on *positions*: the sites (the paper's "nodes", our clusters) sorted by size,
``m_1 <= ... <= m_m``, numbered ``0..m-1`` (the paper counts from 1). :class:`Sites` keeps the
cluster index behind each position, so a caller converts with ``sites.order[position]``. Per-site
figures (counters, ECTs) handed to the selection functions are indexed by position too.

Choices the paper leaves open, made here (the worst-case families of §3 depend on them):

- Sites of equal size are ordered by cluster index (a stable sort), so "the lowest index" among
  equal sites is the cluster declared first.
- Every selection breaks ties to the lowest position: the smallest site, then the first declared.
  With this, §3.1's family (``m`` sites of width 1, rounds of ``m - 1`` short jobs then one long)
  sends every long job to the last site, which is the paper's worst case.
- The admissible boundary is inclusive: ``r`` is the smallest position with
  ``sum(m_first..m_r) >= sum(m_first..m_m) / 2`` (compared in integers as ``2 * cum >= total``).
- A job larger than every site has no ``first``: :func:`first` returns ``None`` and the candidate
  sets are empty; the policy rejects such a job.
"""

from __future__ import annotations

import enum
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate


class Rule(enum.Enum):
    """The broker's selection rule (§2.2). ``ML``, ``MPL`` and ``MLB`` keep a counter per site and
    pick the least counter per processor; ``MCT`` asks each site's schedule for a completion
    time."""

    ML = "ml"  # Min-Load: number of jobs / processors
    MPL = "mpl"  # Min-Parallel-Load: sum of job sizes / processors
    MLB = "mlb"  # Min-Lower-Bound: sum of job work (size x user estimate) / processors
    MCT = "mct"  # Min-Completion-Time: the site's own schedule's completion time for the job

    @property
    def counted(self) -> bool:
        """Whether the rule selects by a per-site counter (ML, MPL, MLB) rather than an ECT."""
        return self is not Rule.MCT


@dataclass(frozen=True, slots=True)
class Sites:
    """The sites sorted by size, with what every job's candidate sets need precomputed.

    ``order[p]`` is the cluster index at position ``p``; ``sizes[p]`` its processors
    (non-decreasing); ``admissible_end[f]`` is ``r + 1`` for a job whose ``first`` is ``f``
    (so ``range(f, admissible_end[f])`` is its admissible set). Build one with :func:`sort_sites`.
    """

    order: tuple[int, ...]
    sizes: tuple[int, ...]
    admissible_end: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.sizes)


def sort_sites(processors: Sequence[int]) -> Sites:
    """Sort sites by size, ties by index (``processors[i]`` = processors of cluster ``i``).

    >>> sort_sites([8, 2, 8, 4])
    Sites(order=(1, 3, 0, 2), sizes=(2, 4, 8, 8), admissible_end=(3, 3, 3, 4))
    """
    order = tuple(sorted(range(len(processors)), key=lambda i: (processors[i], i)))
    sizes = tuple(processors[i] for i in order)
    return Sites(order, sizes, tuple(_admissible_ends(sizes)))


def _admissible_ends(sizes: tuple[int, ...]) -> list[int]:
    """``r + 1`` for each ``first`` position, a forward scan from each first."""
    suffix = list(accumulate(reversed(sizes)))[::-1]  # suffix[f] = sum(sizes[f:])
    ends = []
    for f in range(len(sizes)):
        total, cumulative, r = suffix[f], 0, f
        while True:
            cumulative += sizes[r]
            if 2 * cumulative >= total:
                break
            r += 1
        ends.append(r + 1)
    return ends


def first(sites: Sites, cores: int) -> int | None:
    """first(j): the smallest position whose site has at least ``cores`` processors, or ``None``
    when the job is larger than every site."""
    position = bisect_left(sites.sizes, cores)
    return position if position < len(sites.sizes) else None


def available(sites: Sites, cores: int) -> range:
    """M-avail: positions ``first(j)..m`` (empty for a job larger than every site)."""
    f = first(sites, cores)
    return range(0) if f is None else range(f, len(sites.sizes))


def admissible(sites: Sites, cores: int) -> range:
    """M-admis: positions ``first(j)..r``, ``r`` the smallest position whose cumulative processors
    from ``first(j)`` reach half of all processors from ``first(j)`` to ``m`` (empty for a job
    larger than every site)."""
    f = first(sites, cores)
    return range(0) if f is None else range(f, sites.admissible_end[f])


def candidates(sites: Sites, cores: int, admissible_only: bool) -> range:
    """The positions a rule chooses among: the admissible set for the ``-a`` variants, else the
    available set."""
    return admissible(sites, cores) if admissible_only else available(sites, cores)


def counter_increment(rule: Rule, cores: int, walltime: float) -> float:
    """What one job adds to its site's counter: ML counts it, MPL adds its size, MLB its work
    (size x the user's estimate, the paper's stand-in for the unknown execution time)."""
    if rule is Rule.ML:
        return 1.0
    if rule is Rule.MPL:
        return float(cores)
    if rule is Rule.MLB:
        return cores * walltime
    raise ValueError("MCT keeps no counter: it asks each site for a completion time")


def least_per_processor(sites: Sites, positions: range, counters: Sequence[float]) -> int:
    """ML/MPL/MLB: the position in ``positions`` with the least ``counters[p] / sizes[p]``, ties to
    the lowest position. ``counters`` is indexed by position; ``positions`` must not be empty."""
    sizes = sites.sizes
    best = positions.start
    best_value = counters[best] / sizes[best]
    for p in positions[1:]:
        value = counters[p] / sizes[p]
        if value < best_value:
            best, best_value = p, value
    return best


def earliest_completion(positions: range, completions: Sequence[float]) -> int:
    """MCT: the position in ``positions`` with the earliest expected completion time, ties to the
    lowest position. ``completions`` is indexed by position; ``positions`` must not be empty."""
    best = positions.start
    best_value = completions[best]
    for p in positions[1:]:
        if completions[p] < best_value:
            best, best_value = p, completions[p]
    return best


def select(rule: Rule, sites: Sites, positions: range, figures: Sequence[float]) -> int:
    """The rule's choice among ``positions`` given its per-position ``figures`` (counters for
    ML/MPL/MLB, expected completion times for MCT)."""
    if rule is Rule.MCT:
        return earliest_completion(positions, figures)
    return least_per_processor(sites, positions, figures)
