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
    """What eq. 1 optimises, and which quantity the limit bounds."""

    MIN_TIME = "min-time"
    """min T(s̄) subject to C(s̄) ≤ B* (§5, first experiment)."""
    MIN_COST = "min-cost"
    """min C(s̄) subject to T(s̄) ≤ T* (§5, second experiment)."""
    MAX_COST = "max-cost"
    """max C(s̄) subject to T(s̄) ≤ T*: the owners' maximal income, which is B* (eq. 3)."""


def choose(options: Sequence[Sequence[Option]], goal: Goal, limit: float) -> Choice | None:
    """The combination eq. 1 selects for ``goal`` within ``limit``; None when no combination
    respects the limit (or a job has no option). Ties go to the lexicographically smallest
    picks, so the result is deterministic."""
    by_time = goal is not Goal.MIN_TIME  # the constrained quantity z: time, or else cost
    sign = -1.0 if goal is Goal.MAX_COST else 1.0
    # f_{n+1}: nothing used, nothing gained
    suffix: list[tuple[float, float, tuple[int, ...]]] = [(0.0, 0.0, ())]
    for job_options in reversed(options):
        states = []
        for pick, option in enumerate(job_options):
            z, g = (option.time, option.cost) if by_time else (option.cost, option.time)
            for used, value, picks in suffix:
                if used + z <= limit:
                    states.append((used + z, value + sign * g, (pick, *picks)))
        suffix = _pareto(states)
        if not suffix:
            return None
    _, _, picks = min(suffix, key=lambda state: (state[1], state[2]))
    chosen = [job_options[pick] for job_options, pick in zip(options, picks, strict=True)]
    return Choice(picks, _total(o.time for o in chosen), _total(o.cost for o in chosen))


def _total(values: Iterable[float]) -> float:
    """A sum added up as the backward run adds it (last job first), so a total found here
    passes as a limit for the same combination bit for bit (eq. 3 feeds B* back to eq. 1)."""
    total = 0.0
    for value in reversed(list(values)):
        total = value + total
    return total


def _pareto(
    states: list[tuple[float, float, tuple[int, ...]]],
) -> list[tuple[float, float, tuple[int, ...]]]:
    """The states no other state beats on both the used limit and the (signed) value."""
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
    return math.fsum(
        math.fsum(option.time for option in job_options) / len(job_options)
        for job_options in options
    )


def budget_limit(options: Sequence[Sequence[Option]], limit: float) -> float | None:
    """B* of eq. 3: the maximal total cost among combinations within the time limit T*."""
    richest = choose(options, Goal.MAX_COST, limit)
    return None if richest is None else richest.cost
