"""The broker paper's results as sweep cells (Tchernykh et al., *Two Level Job-Scheduling
Strategies for a Computational Grid*, §3; models.md §4.5; docs/experiments/brokers.md).

Every cell builds a platform and submissions and runs them through ``emulator.replay.replay``
under the registered grid policies (``ml``, ``ml-a``, ``mpl``, ``mpl-a``, ``mlb``, ``mlb-a``,
``mct``, ``mct-a``) with the local policy ``lsf`` (parameter ``local``): the same engine and
policies as any replay. The instances and bounds are the pure functions of
``solvers.brokers.instances`` and ``solvers.brokers.bounds``.

The paper's batch model: every job is submitted at time 0 in the instance's order, so the broker
routes them one by one in that order in the first scheduling pass, and the makespan is the last
end. Each paper "node" is a site of single-core
nodes (``solvers.brokers.platforms.sites_platform``); user estimates are exact
(``time_limit = runtime``), the theorems' setting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from emulator.api.registry import SchedulerSpec, parse_spec
from emulator.metrics import Summary
from emulator.model.job import Request, Submission
from emulator.replay import replay
from solvers.brokers.bounds import group_makespan, harmonic, lower_bound
from solvers.brokers.instances import (
    Instance,
    Rigid,
    group_instance,
    group_scale,
    min_load_family,
    min_load_optimum,
    random_batch,
)
from solvers.brokers.platforms import sites_platform

Metrics = dict[str, float | int | str | bool]

STRATEGIES = ("ml", "ml-a", "mpl", "mpl-a", "mlb", "mlb-a", "mct", "mct-a")
# the ratio study's histogram: batches whose ratio to the lower bound exceeds each threshold
THRESHOLDS = (1.5, 2.0, 3.0, 5.0, 10.0)


def integer(params: Mapping[str, object], name: str, low: int, high: int | None = None) -> int:
    """Parameter ``name``, an int in ``[low, high]``, or a ``ValueError`` naming it."""
    value = params.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"parameter {name!r} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"parameter {name!r} must be {bounds}, got {value}")
    return value


def text(params: Mapping[str, object], name: str, default: str | None = None) -> str:
    """Parameter ``name``, a non-empty string (``default`` when absent and one is given)."""
    value = params.get(name, default)
    if not isinstance(value, str) or not value:
        raise ValueError(f"parameter {name!r} must be a non-empty string, got {value!r}")
    return value


def scheduler(params: Mapping[str, object]) -> str:
    """``STRATEGY+LOCAL`` from the parameters ``strategy`` (one of the eight) and ``local``."""
    strategy = text(params, "strategy")
    if strategy not in STRATEGIES:
        raise ValueError(f"parameter 'strategy' must be one of {', '.join(STRATEGIES)}")
    return f"{strategy}+{text(params, 'local', 'lsf')}"


def batch_submissions(jobs: Sequence[Rigid]) -> list[Submission]:
    """The jobs submitted at time 0 in list order (ids 1..n), their estimates exact."""
    return [
        Submission(number, 0.0, Request(tasks=job.cores, time_limit=job.time), float(job.time))
        for number, job in enumerate(jobs, start=1)
    ]


def run_batch(instance: Instance, spec: SchedulerSpec | str) -> Summary:
    """Replay the instance's batch under ``spec``; its summary (makespan, rejected as failed).

    The broker policies route every job, even one that only one site can hold
    (``GridPolicy.routes_all``), so the broker meets the jobs in the list's order, as the
    paper's model (and Theorem 1's proof) has it.
    """
    submissions = batch_submissions(instance.jobs)
    return replay(submissions, sites_platform(instance.sites), spec).summary


def finished(summary: Summary, spec: str) -> float:
    """The batch's makespan, or a ``ValueError`` if the policy rejected a job (no makespan)."""
    if summary.failed:
        raise ValueError(f"{spec} rejected {summary.failed} of {summary.jobs} jobs")
    return summary.makespan


def worst_case(params: Mapping[str, object], seed: int) -> Metrics:
    """§3.1: a broker strategy on m width-1 sites, rounds of m-1 short jobs then one long.

    Parameters: ``strategy``, ``sites`` (m), ``rounds`` (r), ``long`` (E, with ε = 1), ``local``.
    ``ratio`` is the makespan over the exact optimum (``min_load_optimum``); ``limit`` is
    ``r / ceil(r / m)``, what the ratio of a strategy that stacks every long job on one site
    tends to as E/ε grows: it reaches m when m divides r. The seed is not used (deterministic).
    """
    spec = scheduler(params)
    sites, rounds = integer(params, "sites", 2), integer(params, "rounds", 1)
    long = integer(params, "long", 1)
    makespan = finished(run_batch(min_load_family(sites, rounds, long), spec), spec)
    optimum = min_load_optimum(sites, rounds, long, 1)
    return {
        "makespan": makespan,
        "optimum": optimum,
        "ratio": makespan / optimum,
        "limit": rounds / -(-rounds // sites),
    }


def groups(params: Mapping[str, object], seed: int) -> Metrics:
    """Theorems 1 and 3: a broker strategy on the k+1-group instance (C_opt = 1).

    Parameters: ``strategy``, ``k`` (0..10), ``local``. ``makespan`` is in the paper's units
    (divided by lcm(1..k+1), the instance's time unit); ``harmonic`` is H_{k+1}, the makespan the
    proof gives MCT-LSF; ``reaches_harmonic`` says whether the replay's makespan equals it
    exactly. The seed is not used.
    """
    spec = scheduler(params)
    k = integer(params, "k", 0, 10)
    instance = group_instance(k)
    makespan = finished(run_batch(instance, spec), spec)
    scale = group_scale(k)
    return {
        "sites": len(instance.sites),
        "jobs": len(instance.jobs),
        "makespan": makespan / scale,
        "ratio": makespan / scale,  # C_opt = 1 in the paper's units
        "harmonic": float(harmonic(k + 1)),
        "reaches_harmonic": makespan == group_makespan(k),
    }


def ratio_study(params: Mapping[str, object], seed: int) -> Metrics:
    """Theorems 2 and 4: makespan over the lower bound on random batches, one chunk per seed.

    Parameters: ``strategy``, ``batches`` (per cell), ``local``. The cell runs the batches
    ``random_batch(seed * batches + i)`` for ``i < batches`` (so seeds 0..9 of 1,000 batches
    are batches 0..9,999), divides each makespan by ``lower_bound`` (a lower bound on C_opt, so
    each ratio is at least the true one) and reports their distribution: mean, quantiles,
    maximum and the batch that reached it, and how many batches exceed each threshold
    (``over_10`` counts violations of the 10x bound of Theorems 2 and 4).
    """
    name = scheduler(params)
    spec = parse_spec(name)  # once: each replay builds fresh policies from it
    batches = integer(params, "batches", 1)
    first = seed * batches
    ratios = np.empty(batches)
    for i in range(batches):
        instance = random_batch(first + i)
        makespan = finished(run_batch(instance, spec), name)
        ratios[i] = float(Fraction(makespan) / lower_bound(instance.sites, instance.jobs))
    worst = int(np.argmax(ratios))
    metrics: Metrics = {
        "ratio_mean": float(ratios.mean()),
        "ratio_p50": float(np.quantile(ratios, 0.5)),
        "ratio_p90": float(np.quantile(ratios, 0.9)),
        "ratio_p99": float(np.quantile(ratios, 0.99)),
        "ratio_max": float(ratios[worst]),
        "worst_batch": first + worst,
    }
    for threshold in THRESHOLDS:
        metrics[f"over_{threshold:g}".replace(".", "_")] = int((ratios > threshold).sum())
    return metrics
