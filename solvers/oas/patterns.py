"""Patterns: the building blocks of the fast OAS model (:mod:`solvers.oas.fast_model`).

Resources of one cluster and one speed are interchangeable for eq. 1-7, so a job's allocation is
described by a *pattern*: how many of its tasks go to each speed class. A pattern fixes the job's
slot count and its link loads; a *choice* is a pattern with a start slot. Pure functions over
:class:`~solvers.oas.problem.OasProblem` (no Pyomo here).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from solvers.common.links import fits_link
from solvers.oas.problem import OasJob, OasProblem

Choice = tuple[int, int, int]  # (job index, pattern index, start slot)


@dataclass(frozen=True, slots=True)
class SpeedClass:
    """The resources of one cluster that share one speed, lowest index first."""

    cluster: int
    speed: float
    resources: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Pattern:
    """How many tasks of a job go to each speed class, and the constants that follow from it."""

    counts: tuple[int, ...]  # aligned with speed_classes(problem)
    slots: int  # ceil(Tb · ct / η) for the slowest class used
    link_load: tuple[float, ...]  # BW_j^k of eq. 4, per cluster


def speed_classes(problem: OasProblem) -> tuple[SpeedClass, ...]:
    """The speed classes, ordered by cluster, then fastest first."""
    groups: dict[tuple[int, float], list[int]] = {}
    for index, resource in enumerate(problem.resources):
        groups.setdefault((resource.cluster, resource.speed), []).append(index)
    keys = sorted(groups, key=lambda key: (key[0], -key[1]))
    return tuple(SpeedClass(c, s, tuple(groups[(c, s)])) for c, s in keys)


def job_patterns(
    problem: OasProblem, job: OasJob, classes: Sequence[SpeedClass]
) -> tuple[Pattern, ...]:
    """Every pattern of ``job`` on the clusters it may use whose link loads fit the links when it
    runs alone."""
    patterns = []
    limits = [len(c.resources) if job.may_use(c.cluster) else 0 for c in classes]
    for counts in _count_vectors(job.tasks, limits):
        pattern = _pattern(problem, job, classes, counts)
        if all(
            fits_link(load, capacity)
            for load, capacity in zip(pattern.link_load, problem.link_capacity, strict=True)
        ):
            patterns.append(pattern)
    return tuple(patterns)


def _count_vectors(total: int, limits: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """All vectors n with 0 <= n_i <= limits_i and sum n = total, in lexicographic order."""
    if not limits:
        if total == 0:
            yield ()
        return
    rest_capacity = sum(limits[1:])
    for first in range(max(0, total - rest_capacity), min(limits[0], total) + 1):
        for rest in _count_vectors(total - first, limits[1:]):
            yield (first, *rest)


def _pattern(
    problem: OasProblem, job: OasJob, classes: Sequence[SpeedClass], counts: tuple[int, ...]
) -> Pattern:
    slowdown = max(1.0 / c.speed for c, n in zip(classes, counts, strict=True) if n)
    per_cluster = [0] * problem.cluster_count
    for speed_class, n in zip(classes, counts, strict=True):
        per_cluster[speed_class.cluster] += n
    return Pattern(
        counts,
        job.slots_needed(slowdown, problem.slot_size),
        tuple(job.link_bandwidth(n) for n in per_cluster),
    )


def all_patterns(problem: OasProblem) -> tuple[tuple[Pattern, ...], ...]:
    classes = speed_classes(problem)
    return tuple(job_patterns(problem, job, classes) for job in problem.jobs)


def earliest_start(problem: OasProblem, pattern: Pattern, classes: Sequence[SpeedClass]) -> int:
    """The first start slot at which ``pattern`` fits beside the running jobs (0 when none run).

    The running jobs hold each resource for a prefix of the slots, so the free resources of a
    class and the room on a link only grow with time: it is enough to check the first slot, at
    0 and at each slot where some running job lets go. The last of these always fits (the
    platform is then idle and the pattern's loads fit the links alone).
    """
    busy = problem.busy_slots()
    for start in sorted({0, *busy}):
        free = [sum(1 for r in c.resources if busy[r] <= start) for c in classes]
        if all(n <= f for n, f in zip(pattern.counts, free, strict=True)) and all(
            not load or fits_link(load, problem.link_room(k, start + 1))
            for k, load in enumerate(pattern.link_load)
        ):
            return start
    raise AssertionError("unreachable: a pattern fits the idle platform")


def earliest_starts(
    problem: OasProblem, options: Sequence[Sequence[Pattern]]
) -> tuple[tuple[int, ...], ...]:
    if not problem.occupied:
        return tuple((0,) * len(patterns) for patterns in options)
    classes = speed_classes(problem)
    return tuple(
        tuple(earliest_start(problem, p, classes) for p in patterns) for patterns in options
    )


def unplaceable_jobs(problem: OasProblem) -> list[int]:
    """Ids of the jobs that cannot finish within θ even alone: no schedule exists (both models)."""
    options = all_patterns(problem)
    return _unplaceable(problem, options, earliest_starts(problem, options))


def _unplaceable(
    problem: OasProblem,
    options: Sequence[Sequence[Pattern]],
    earliest: Sequence[Sequence[int]],
) -> list[int]:
    return [
        job.id
        for job, patterns, starts in zip(problem.jobs, options, earliest, strict=True)
        if not any(s + p.slots <= problem.slot_count for p, s in zip(patterns, starts, strict=True))
    ]


def job_options(problem: OasProblem) -> tuple[tuple[Pattern, ...], ...]:
    """Patterns per job; raises ValueError when a job has none that can finish within θ."""
    options = all_patterns(problem)
    missing = _unplaceable(problem, options, earliest_starts(problem, options))
    if missing:
        raise ValueError(
            f"jobs {missing} cannot finish within θ = {problem.slot_count} slots on any "
            "allocation that keeps the links unsaturated"
        )
    return options


def all_choices(problem: OasProblem, options: Sequence[Sequence[Pattern]]) -> list[Choice]:
    """Every (job, pattern, start slot) with the job starting where the pattern fits beside the
    running jobs and ending by θ."""
    earliest = earliest_starts(problem, options)
    return [
        (j, p, start)
        for j, patterns in enumerate(options)
        for p, pattern in enumerate(patterns)
        for start in range(earliest[j][p], problem.slot_count - pattern.slots + 1)
    ]
