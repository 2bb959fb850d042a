"""Bounds and closed forms for the broker paper's results (Tchernykh et al., §3; models.md §4.5).

- :func:`lower_bound`: ``max(max_j p_j, max_f A_f / P_f)``, ``A_f`` the area of the jobs with
  ``first(j) >= f`` and ``P_f`` the processors of the sites ``>= f`` (sites sorted by size): no
  schedule can do better, since a job whose ``first`` is ``f`` can run only on sites ``f..m``.
  It is the ``C_opt`` that the ratio study of Theorems 2 and 4 divides by, so the ratios reported
  there are upper bounds on the true approximation ratios.
- :func:`harmonic`: ``H_n`` as an exact fraction, and :func:`group_makespan`, the makespan
  Theorem 1's proof gives MCT-LSF (and Theorem 3 MLB-LSF) on the k+1-group instance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from solvers.brokers.instances import Instance, Rigid, group_scale
from solvers.brokers.rules import first, sort_sites


def lower_bound(sites: Sequence[int], jobs: Iterable[Rigid]) -> Fraction:
    """The lower bound on the optimal makespan of ``jobs`` on ``sites``, exactly.

    Raises ``ValueError`` for a job larger than every site (no schedule exists).
    """
    sorted_sites = sort_sites(sites)
    sizes = sorted_sites.sizes
    area_from = [0] * len(sizes)  # area_from[f]: jobs whose first(j) is f, summed below
    longest = 0
    for job in jobs:
        f = first(sorted_sites, job.cores)
        if f is None:
            raise ValueError(f"a job of {job.cores} processors is larger than every site")
        area_from[f] += job.area
        longest = max(longest, job.time)
    bound = Fraction(longest)
    area = processors = 0
    for f in reversed(range(len(sizes))):
        area += area_from[f]
        processors += sizes[f]
        bound = max(bound, Fraction(area, processors))
    return bound


def instance_bound(instance: Instance) -> Fraction:
    """:func:`lower_bound` of an instance, or its known optimum when it has one."""
    if instance.optimum is not None:
        return Fraction(instance.optimum)
    return lower_bound(instance.sites, instance.jobs)


def harmonic(n: int) -> Fraction:
    """``H_n = 1 + 1/2 + ... + 1/n``, exactly."""
    return sum((Fraction(1, i) for i in range(1, n + 1)), Fraction(0))


def group_makespan(k: int) -> int:
    """Theorem 1: MCT-LSF's makespan on ``group_instance(k)``, ``H_{k+1}`` in the paper's units,
    ``lcm(1..k+1) * H_{k+1}`` in the instance's integer ones (an integer: each term is)."""
    scale = group_scale(k)
    return sum(scale // layer for layer in range(1, k + 2))
