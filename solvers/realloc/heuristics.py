"""The reallocation paper's six heuristics and its two algorithms' rules, as pure functions over
a table of expected completion times (ECTs) per waiting job and cluster.

Caniou, Charrier, Desprez, *Analysis of Tasks Reallocation in a Dedicated Grid Environment*
(task-reallocation-grid.txt), §2.2.1 (algorithms 1 and 2) and §2.2.2 (heuristics); models.md §4.6.

A :class:`Candidate` is one waiting job: its ECT on every cluster (``inf`` where it may not go),
the cluster it waits in (``None`` once withdrawn, as in algorithm 2) and its *reference* ECT, the
one a gain is measured from. Choices the paper leaves open, made here:

- **Best cluster.** The least ECT; ties go to the smaller cluster, then the one declared first
  (``rank``: the broker's size order, :func:`solvers.brokers.rules.sort_sites`), as ``mct`` does.
- **MinMin / MaxMin** compare each job's best ECT over every cluster, its own included.
- **Gain** (MaxGain, MaxRelGain) is the reference ECT less the ECT on the job's target: the best
  *other* cluster while the job waits somewhere (algorithm 1; the reference is its ECT where it
  stands), the best cluster once withdrawn (algorithm 2; the reference is its ECT where it stood
  before the withdrawal). MaxRelGain divides it by the job's processors.
- **Sufferage** is the second-best ECT less the best, over every cluster; a job only one cluster
  can take suffers without bound (it goes first, as nothing else could take it).
- **Ties between jobs** go to the earlier submission (submit time, then id): the MCT heuristic
  is exactly that order.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass


class Heuristic(enum.Enum):
    """Which waiting job the reallocation takes next (§2.2.2)."""

    MCT = "mct"  # submission order
    MINMIN = "minmin"  # the smallest best ECT first
    MAXMIN = "maxmin"  # the largest best ECT first
    MAXGAIN = "maxgain"  # the largest gain first
    MAXRELGAIN = "maxrelgain"  # the largest gain per processor first
    SUFFERAGE = "sufferage"  # the largest gap between the best and second-best ECT first


@dataclass(frozen=True, slots=True)
class Candidate:
    """One waiting job as the heuristics see it.

    ``ects[k]``: its ECT on cluster ``k`` (``inf`` where it may not go); ``current``: the cluster
    whose queue holds it (``None`` once withdrawn); ``reference``: the ECT its gain is measured
    from; ``order``: ``(submit, id)``, the submission order.
    """

    order: tuple[float, int]
    cores: int
    ects: tuple[float, ...]
    current: int | None
    reference: float


def best_cluster(ects: Sequence[float], rank: Sequence[int], skip: int | None = None) -> int:
    """The cluster with the least ECT (other than ``skip``), ties to the lowest ``rank``; -1 if
    there is no other cluster."""
    best, best_key = -1, (math.inf, math.inf)
    for k, ect in enumerate(ects):
        if k == skip:
            continue
        key = (ect, rank[k])
        if key < best_key:
            best, best_key = k, key
    return best


def target(candidate: Candidate, rank: Sequence[int]) -> int:
    """Where the job would go: the best cluster other than the one it waits in (algorithm 1),
    the best of all once withdrawn (algorithm 2); -1 on a single cluster."""
    return best_cluster(candidate.ects, rank, candidate.current)


def gain(candidate: Candidate, rank: Sequence[int]) -> float:
    """The reference ECT less the ECT on the job's target (MaxGain's measure)."""
    k = target(candidate, rank)
    return -math.inf if k < 0 else _difference(candidate.reference, candidate.ects[k])


def sufferage(candidate: Candidate) -> float:
    """The second-best ECT less the best, over every cluster (Sufferage's measure)."""
    first = second = math.inf
    for ect in candidate.ects:
        if ect < first:
            first, second = ect, first
        elif ect < second:
            second = ect
    return _difference(second, first)


def _difference(later: float, earlier: float) -> float:
    """``later - earlier``, with ``inf - inf`` (no ECT at all) as no difference."""
    if math.isinf(later) and math.isinf(earlier):
        return 0.0 if later == earlier else later - earlier
    return later - earlier


def score(heuristic: Heuristic, candidate: Candidate, rank: Sequence[int]) -> float:
    """What the heuristic maximises (every job scores alike under MCT: the order decides)."""
    if heuristic is Heuristic.MCT:
        return 0.0
    if heuristic is Heuristic.MINMIN:
        return -min(candidate.ects)
    if heuristic is Heuristic.MAXMIN:
        return maxmin_score(min(candidate.ects))
    if heuristic is Heuristic.MAXGAIN:
        return gain(candidate, rank)
    if heuristic is Heuristic.MAXRELGAIN:
        return gain(candidate, rank) / candidate.cores
    return sufferage(candidate)


def maxmin_score(least: float) -> float:
    """MaxMin's score of a job whose best ECT is ``least``: that ECT; a job with no ECT (every
    cluster it may use out of service) comes last."""
    return -math.inf if math.isinf(least) else least


def choose(heuristic: Heuristic, candidates: Sequence[Candidate], rank: Sequence[int]) -> int:
    """The index of the job the heuristic takes next among ``candidates`` (not empty): the
    highest score, ties to the earliest submission."""
    scores = [score(heuristic, candidate, rank) for candidate in candidates]
    return best(scores, [candidate.order for candidate in candidates])


def best(scores: Sequence[float], orders: Sequence[tuple[float, int]]) -> int:
    """The index of the highest score, ties to the earliest ``orders`` (submission order): the
    choice of :func:`choose`, over scores a caller keeps up to date as the ECTs change."""
    top = max(scores)
    tied = [i for i, value in enumerate(scores) if value == top]
    return tied[0] if len(tied) == 1 else min(tied, key=orders.__getitem__)


def move_to(candidate: Candidate, rank: Sequence[int], threshold: float) -> int | None:
    """Algorithm 1's rule: the cluster to move the job to, if its ECT there beats the ECT where
    it waits by more than ``threshold`` seconds (``j.newECT + 60 < j.currentECT``); else None."""
    current = candidate.current
    assert current is not None, "algorithm 1 moves jobs that wait in a cluster's queue"
    k = target(candidate, rank)
    if k < 0 or not candidate.ects[k] + threshold < candidate.ects[current]:
        return None
    return k


def resubmit_to(candidate: Candidate, rank: Sequence[int], origin: int) -> int:
    """Algorithm 2's rule: the best cluster for a withdrawn job; back to ``origin`` if no cluster
    gives it a finite ECT (every one it may use is out of service)."""
    k = target(candidate, rank)
    return origin if k < 0 or math.isinf(candidate.ects[k]) else k
