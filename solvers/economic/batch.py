"""The batch choice by dynamic programming (Toporkov et al., ICCS 2011, §2, eq. 1–3;
models.md §4.7): one alternative per job, minimising the total time under a budget or the total
cost under a time limit.

Eq. 1 is the backward run ``f_i(Z) = extr_{s_i} {g_i(s_i) + f_{i+1}(Z − z_i(s_i))}``,
``f_{n+1} ≡ 0``, over the constrained quantity Z (time or cost). The paper evaluates it on a
grid of Z values; here each ``f_i`` is kept exactly, as the Pareto set of its (Z, value) steps:
a suffix choice that uses more of Z for no better value can never be part of an optimum, so
dropping it keeps the result equal to brute force over every combination, with real-valued
times and costs and no grid to choose.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True, slots=True)
class Option:
    """One alternative of one job as the batch choice sees it: t_i(s_i) and c_i(s_i)."""

    time: float
    cost: float


@dataclass(frozen=True, slots=True)
class Choice:
    """The chosen alternative (an index into that job's options) per job, with the totals."""

    picks: tuple[int, ...]
    time: float
    cost: float


class Goal(enum.Enum):
    """What eq. 1 minimises, and which quantity the limit bounds."""

    MIN_TIME = "min-time"
    """min T(s̄) subject to C(s̄) ≤ B* (§5, first experiment)."""
    MIN_COST = "min-cost"
    """min C(s̄) subject to T(s̄) ≤ T* (§5, second experiment)."""


FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class _Front:
    """f_i of eq. 1 as its Pareto steps within the limit, sorted by the limit used (the value
    then strictly falls), as arrays: each step's job-i pick, the step of f_{i+1} it extends,
    and the place of its picks (jobs i..n) in lexicographic order, which breaks ties."""

    used: FloatArray
    value: FloatArray
    pick: IntArray
    rest: IntArray
    rank: IntArray


_NOTHING = np.zeros(1, dtype=np.intp)
_NO_JOBS = _Front(np.zeros(1), np.zeros(1), _NOTHING, _NOTHING, _NOTHING)
"""f_{n+1} ≡ 0: one step, no limit used, no value, no picks."""


def choose(options: Sequence[Sequence[Option]], goal: Goal, limit: float) -> Choice | None:
    """The combination eq. 1 selects for ``goal`` within ``limit``; None when no combination
    respects the limit (or a job has no option). Ties go to the lexicographically smallest
    picks, so the result is deterministic."""
    fronts = _backward_run(options, goal, limit)
    if fronts is None:
        return None
    step = len(fronts[0].used) - 1  # the values strictly fall: the last step is the least
    picks = []
    for front in fronts[: len(options)]:
        picks.append(int(front.pick[step]))
        step = int(front.rest[step])
    chosen = [job_options[pick] for job_options, pick in zip(options, picks, strict=True)]
    return Choice(tuple(picks), _total(o.time for o in chosen), _total(o.cost for o in chosen))


def _backward_run(
    options: Sequence[Sequence[Option]], goal: Goal, limit: float
) -> list[_Front] | None:
    """The fronts f_1 … f_{n+1} of eq. 1 within ``limit``; None when nothing fits.

    f_i extends every step of f_{i+1} by every alternative of job i (summed as ``rest +
    own``, the order :func:`_total` repeats), keeps what fits the limit, and drops every step
    another beats or equals on both the limit used and the value, the smaller picks winning a
    tie: what sorting tuples (used, value, picks) and keeping each strictly better value does.
    """
    by_time = goal is Goal.MIN_COST  # the constrained quantity z: time, or else cost
    fronts = [_NO_JOBS]
    for job_options in reversed(options):
        after = fronts[-1]
        z = np.array([o.time if by_time else o.cost for o in job_options], dtype=np.float64)
        g = np.array([o.cost if by_time else o.time for o in job_options], dtype=np.float64)
        sums = after.used[np.newaxis, :] + z[:, np.newaxis]  # [pick, rest step]
        fits = sums <= limit
        pick, rest = np.nonzero(fits)
        if not len(pick):
            return None
        used = sums[fits]
        value = (after.value[np.newaxis, :] + g[:, np.newaxis])[fits]
        rest_rank = after.rank[rest]
        order = np.lexsort((rest_rank, pick, value, used))
        in_order = value[order]
        best_before = np.minimum.accumulate(in_order)[:-1]
        keep = order[np.concatenate(([True], in_order[1:] < best_before))]
        pick, rest, rest_rank = pick[keep], rest[keep], rest_rank[keep]
        rank = np.empty_like(keep)
        rank[np.lexsort((rest_rank, pick))] = np.arange(len(keep))
        fronts.append(_Front(used[keep], value[keep], pick, rest, rank))
    fronts.reverse()
    return fronts


def _total(values: Iterable[float]) -> float:
    """A sum added up as the backward run adds it (last job first), so a total found here
    passes as a limit for the same combination bit for bit (eq. 3 feeds B* back to eq. 1)."""
    total = 0.0
    for value in reversed(list(values)):
        total = value + total
    return total


def time_limit(options: Sequence[Sequence[Option]]) -> float:
    """T* of eq. 2: the sum over jobs of the mean time of their alternatives.

    Reading: eq. 2 writes ``Σ_i Σ_{s_i} [t_i(s_i)/l_i]`` with [·] the integer part. With real
    times the integer part makes T* smaller than the total of a batch whose jobs have one
    alternative each, so no combination would be admissible; we take the mean unrounded, which
    always admits the batch of each job's fastest alternative.
    """
    # a mean never below the fastest alternative (rounding could put it an ulp under), summed
    # as the backward run sums: the fastest combination then fits T* bit for bit
    return _total(
        max(math.fsum(o.time for o in job) / len(job), min(o.time for o in job)) for job in options
    )


def budget_limit(options: Sequence[Sequence[Option]], limit: float) -> float | None:
    """B* of eq. 3, ``max_{s_1} {c_1(s_1) + f_2(T* − t_1(s_1))}``: the owners' best income
    from the first job's choice when the rest of the batch is chosen by eq. 1 (minimum cost
    within what the first job leaves of T*). None when nothing fits T*.

    Reading: the max is taken over the first job's alternatives only, with f_2 the cost
    minimising function of eq. 1, as eq. 3 is printed. Maximising the cost over every
    combination within T* instead gives a budget so loose that the time minimisation buys
    AMP's fastest, dearest windows: its cost per job then overshoots the paper's by some 13 %,
    while this reading meets it (docs/experiments/alp-amp.md).
    """
    if not options:
        return None
    fronts = _backward_run(options[1:], Goal.MIN_COST, limit)
    if fronts is None:
        return None
    rest = fronts[0]
    best: float | None = None
    for option in options[0]:
        # the cheapest rest that leaves room for this option: the last step that fits
        fitting = int(np.count_nonzero(rest.used + option.time <= limit))
        if fitting:
            income = float(rest.value[fitting - 1]) + option.cost
            best = income if best is None else max(best, income)
    return best
