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


State = tuple[float, float, tuple[int, ...]]
"""A step of f_i: the limit used by jobs i..n, the value gained, and their picks."""


def choose(options: Sequence[Sequence[Option]], goal: Goal, limit: float) -> Choice | None:
    """The combination eq. 1 selects for ``goal`` within ``limit``; None when no combination
    respects the limit (or a job has no option). Ties go to the lexicographically smallest
    picks, so the result is deterministic."""
    front = _backward_run(options, goal, limit)
    if not front:
        return None
    _, _, picks = min(front, key=lambda state: (state[1], state[2]))
    chosen = [job_options[pick] for job_options, pick in zip(options, picks, strict=True)]
    return Choice(picks, _total(o.time for o in chosen), _total(o.cost for o in chosen))


def _backward_run(options: Sequence[Sequence[Option]], goal: Goal, limit: float) -> list[State]:
    """f_1 of eq. 1 as its Pareto steps within ``limit``, sorted by the limit used (the value
    then strictly falls); empty when nothing fits."""
    by_time = goal is Goal.MIN_COST  # the constrained quantity z: time, or else cost
    front: list[State] = [(0.0, 0.0, ())]  # f_{n+1} ≡ 0
    for job_options in reversed(options):
        states = []
        for pick, option in enumerate(job_options):
            z, g = (option.time, option.cost) if by_time else (option.cost, option.time)
            for used, value, picks in front:
                if used + z <= limit:
                    states.append((used + z, value + g, (pick, *picks)))
        front = _pareto(states)
        if not front:
            break
    return front


def _total(values: Iterable[float]) -> float:
    """A sum added up as the backward run adds it (last job first), so a total found here
    passes as a limit for the same combination bit for bit (eq. 3 feeds B* back to eq. 1)."""
    total = 0.0
    for value in reversed(list(values)):
        total = value + total
    return total


def _pareto(states: list[State]) -> list[State]:
    """The states no other state beats on both the limit used and the value."""
    states.sort(key=lambda state: (state[0], state[1], state[2]))
    front = []
    best = math.inf
    for state in states:
        if state[1] < best:
            front.append(state)
            best = state[1]
    return front


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
    rest = _backward_run(options[1:], Goal.MIN_COST, limit)
    best: float | None = None
    for option in options[0]:
        # the cheapest rest that leaves room for this option: the last step that fits
        fitting = [value for used, value, _ in rest if used + option.time <= limit]
        if fitting:
            income = fitting[-1] + option.cost
            best = income if best is None else max(best, income)
    return best
