"""The broker paper's instances as plain data: its worst-case families and a random batch generator.

Tchernykh et al., *Two Level Job-Scheduling Strategies for a Computational Grid* (the brokers
paper): §3.1 (the family that defeats ML, ML-a, MPL and MPL-a), Theorem 1's proof (the k+1-group
instance that defeats MCT-LSF, and by Theorem 3 MLB-LSF), and random batches for Theorems 2 and 4
(MCT-a-LSF and MLB-a-LSF within 10x the optimum). models.md §4.5.

An :class:`Instance` is the paper's batch: site sizes (processors, identical processors, in the
order they are declared) and a list of rigid jobs, all given at time 0, in the order the broker
receives them. Times are integers wherever the paper's are fractions, so that every completion
time the engine computes is exact and ties between sites are real ties, not rounding noise.
Nothing here knows the engine: ``experiments.brokers`` turns an instance into a platform and
submissions.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True)
class Rigid:
    """A rigid job ``(s_j, p_j)``: processors and execution time (the user's estimate is exact)."""

    cores: int
    time: int

    @property
    def area(self) -> int:
        return self.cores * self.time


@dataclass(frozen=True, slots=True)
class Instance:
    """Sites (processors each) and jobs in arrival order; ``optimum`` when it is known exactly."""

    sites: tuple[int, ...]
    jobs: tuple[Rigid, ...]
    optimum: int | None = None


def min_load_family(sites: int, rounds: int, long: int, short: int = 1) -> Instance:
    """§3.1: ``sites`` sites of width 1 and ``rounds`` rounds of ``sites - 1`` short jobs
    ``J_1 = (1, short)`` followed by one long job ``J_2 = (1, long)`` (the paper's ε and E).

    With ties to the lowest site, ML and MPL send every long job to the last site: makespan
    ``rounds * long``. The optimum is :func:`min_load_optimum` (exact, not the paper's upper bound).
    """
    if sites < 2 or rounds < 1 or not 0 < short <= long:
        raise ValueError("need sites >= 2, rounds >= 1 and 0 < short <= long")
    one_round = (Rigid(1, short),) * (sites - 1) + (Rigid(1, long),)
    optimum = min_load_optimum(sites, rounds, long, short)
    return Instance((1,) * sites, one_round * rounds, optimum)


def min_load_optimum(sites: int, rounds: int, long: int, short: int) -> int:
    """The optimal makespan of :func:`min_load_family`, exactly, when ``long`` is a multiple of
    ``short`` (the paper's E/ε -> infinity is approached through such multiples).

    ``rounds`` long and ``rounds * (sites - 1)`` short unit-width jobs on ``sites`` unit-width
    sites. In units of ``short`` (``K = long / short``) a site holding ``a`` long jobs fits
    ``T - a K`` short ones under a makespan ``T``, so the sites together fit ``sites * T -
    rounds * K`` whatever the spread of the long jobs: the optimum is the larger of the busiest
    site's long jobs ``ceil(rounds / sites) * K`` and the area bound ``ceil(rounds * (K + sites -
    1) / sites)``, and both are reached together by spreading the long jobs evenly. (The paper
    gives ``ceil((m-1) r / m) ε + ceil(r / m) E`` as an upper bound.)
    """
    if long % short:
        raise ValueError("long must be a multiple of short")
    ratio = long // short
    units = max(-(-rounds // sites) * ratio, -(-rounds * (ratio + sites - 1) // sites))
    return units * short


def group_scale(k: int) -> int:
    """The time unit of :func:`group_instance`: lcm(1..k+1), so that every height ``1/(i+1)`` of
    the paper is an integer."""
    return math.lcm(*range(1, k + 2))


def group_instance(k: int) -> Instance:
    """Theorem 1's instance (and Theorem 3's): ``k + 1`` groups of sites and of jobs.

    Group ``i`` (``0 <= i <= k``) has ``2^i`` sites of ``2^(k-i)`` processors; job set ``i`` has
    ``(i + 1) 2^i`` jobs of ``2^(k-i)`` processors and height ``1/(i+1)``, here ``L/(i+1)`` with
    ``L = lcm(1..k+1)`` (:func:`group_scale`). Each set exactly fills one layer of the sites
    available to it, so ``C_opt = L`` (1 in the paper's units). Jobs come in increasing order of
    size (set ``k`` first), the order of the proof, under which MCT-LSF and MLB-LSF stack every
    layer on the largest site: makespan ``L * H_{k+1}``. Sites are declared largest first, the
    paper's group order; the broker sorts them by size itself.
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    scale = group_scale(k)
    sites = tuple(2 ** (k - i) for i in range(k + 1) for _ in range(2**i))
    jobs = tuple(
        Rigid(2 ** (k - i), scale // (i + 1))
        for i in reversed(range(k + 1))
        for _ in range((i + 1) * 2**i)
    )
    return Instance(sites, jobs, scale)


class Order(Enum):
    """The order in which a random batch's jobs reach the broker."""

    DRAWN = "drawn"  # as generated
    INCREASING = "increasing"  # smallest first: the order of Theorem 1's proof
    DECREASING = "decreasing"  # largest first


@dataclass(frozen=True, slots=True)
class BatchShape:
    """The random batch generator's ranges (see :func:`random_batch`)."""

    min_sites: int = 2
    max_sites: int = 8
    site_sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    jobs_per_site: tuple[int, int] = (2, 8)
    max_time: int = 100


def random_batch(seed: int, shape: BatchShape = BatchShape()) -> Instance:
    """One random batch for the ratio study of Theorems 2 and 4, drawn from ``seed`` alone.

    - sites: their number uniform in ``[min_sites, max_sites]``, each size drawn uniformly from
      ``site_sizes`` (powers of two, so that both equal-size sites and 64:1 spreads occur);
    - jobs: ``jobs_per_site`` (uniform bounds) times the number of sites; each job's size
      log-uniform over ``[1, largest site]`` (narrow jobs common, some as wide as the largest
      site), its time uniform in ``[1, max_time]`` (integers: exact completion times);
    - order: one of :class:`Order`, uniformly: as drawn, increasing size (Theorem 1's
      adversarial order) or decreasing size.

    Python's ``random.Random(seed)``: the same seed gives the same batch on any machine.
    """
    rng = random.Random(seed)
    sites = tuple(
        rng.choice(shape.site_sizes) for _ in range(rng.randint(shape.min_sites, shape.max_sites))
    )
    largest = max(sites)
    count = len(sites) * rng.randint(*shape.jobs_per_site)
    log_largest = math.log(largest + 1)
    jobs = [
        Rigid(
            min(int(math.exp(rng.uniform(0.0, log_largest))), largest),
            rng.randint(1, shape.max_time),
        )
        for _ in range(count)
    ]
    order = rng.choice(list(Order))
    if order is Order.INCREASING:
        jobs.sort(key=lambda job: job.cores)
    elif order is Order.DECREASING:
        jobs.sort(key=lambda job: -job.cores)
    return Instance(sites, tuple(jobs))
