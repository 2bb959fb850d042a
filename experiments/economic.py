"""The ALP/AMP paper's §5 experiment as a sweep cell (Toporkov et al., ICCS 2011; models.md
§4.7; spec ``resources/experiments/alpamp.toml``, write-up ``docs/experiments/alp-amp.md``)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from emulator.sweep.experiments import Metrics
from solvers.economic.batch import Goal, Option, budget_limit, choose, time_limit
from solvers.economic.generator import Settings, job_batch, slot_list
from solvers.economic.search import Algorithm, find_alternatives
from solvers.economic.slots import Request, Slot, Window


@dataclass
class _Sums:
    """Per-job figures of one algorithm, summed over the valid cycles of a cell."""

    time_min_time: list[float] = field(default_factory=list)
    time_min_cost: list[float] = field(default_factory=list)
    cost_min_cost: list[float] = field(default_factory=list)
    cost_min_time: list[float] = field(default_factory=list)
    alternatives: int = 0


def alpamp(params: Mapping[str, object], seed: int) -> Metrics:
    """ALP vs AMP (Toporkov et al. §5): per-job time and cost of the DP's batch choice.

    Each of ``cycles`` scheduling cycles draws a slot list and a batch (the paper's generators,
    every range a parameter), finds each job's alternatives with ALP and with AMP on that same
    list, and chooses one per job by eq. 1 twice: minimum total time under B* (eq. 3) and
    minimum total cost under T* (eq. 2). As in the paper only cycles where every job has an
    alternative under both algorithms count; the figures are per job (a batch total over its
    job count), averaged over those cycles; alternatives per job are all alternatives over all
    jobs of the counted cycles.
    """
    cycles = params.get("cycles", 500)
    if isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 1:
        raise ValueError(f"cycles must be a positive integer, got {cycles!r}")
    unknown = sorted(set(params) - {"cycles", *Settings.parameter_names()})
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for alpamp")
    settings = Settings.from_params(params)
    rng = random.Random(seed)
    sums = {algorithm: _Sums() for algorithm in Algorithm}
    valid = jobs = slots = 0
    for _ in range(cycles):
        slot_list_ = slot_list(settings, rng)
        batch = job_batch(settings, rng)
        found = _alternatives(slot_list_, batch)
        if found is None:
            continue
        valid += 1
        jobs += len(batch)
        slots += len(slot_list_)
        for algorithm, windows in found.items():
            options = [[Option(w.time, w.cost) for w in job] for job in windows]
            _schedule(options, len(batch), sums[algorithm])
    metrics: Metrics = {
        "valid_cycles": valid,
        "valid_share": valid / cycles,
        "jobs_per_cycle": jobs / valid if valid else math.nan,
        "slots_per_cycle": slots / valid if valid else math.nan,
    }
    for algorithm, sum_ in sums.items():
        name = algorithm.value
        metrics[f"{name}_alternatives_per_job"] = sum_.alternatives / jobs if jobs else math.nan
        metrics[f"{name}_time_tmin"] = _mean(sum_.time_min_time)
        metrics[f"{name}_cost_tmin"] = _mean(sum_.time_min_cost)
        metrics[f"{name}_cost_cmin"] = _mean(sum_.cost_min_cost)
        metrics[f"{name}_time_cmin"] = _mean(sum_.cost_min_time)
    return metrics


def _alternatives(
    slots: list[Slot], batch: list[Request]
) -> dict[Algorithm, list[list[Window]]] | None:
    """Every job's alternatives under each algorithm, or None as soon as one algorithm leaves
    a job without any: the cycle does not count, whatever the other finds. ALP goes first: its
    search is the cheaper and the one that fails (AMP finds a window wherever ALP does)."""
    found = {}
    for algorithm in (Algorithm.ALP, Algorithm.AMP):
        found[algorithm] = find_alternatives(slots, batch, algorithm)
        if not all(found[algorithm]):
            return None
    return found


def _schedule(options: list[list[Option]], jobs: int, sums: _Sums) -> None:
    """Both batch choices of §5 for one algorithm's alternatives, added per job to ``sums``."""
    sums.alternatives += sum(len(job) for job in options)
    limit = time_limit(options)
    cheapest = choose(options, Goal.MIN_COST, limit)
    budget = budget_limit(options, limit)
    # T* admits each job's fastest alternative, so both exist once every job has one
    assert cheapest is not None and budget is not None
    fastest = choose(options, Goal.MIN_TIME, budget)
    assert fastest is not None
    sums.time_min_time.append(fastest.time / jobs)
    sums.time_min_cost.append(fastest.cost / jobs)
    sums.cost_min_cost.append(cheapest.cost / jobs)
    sums.cost_min_time.append(cheapest.time / jobs)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan
