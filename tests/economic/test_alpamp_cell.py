"""The alpamp sweep cell and the paper's generators (Toporkov et al., ICCS 2011, §5)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from emulator.sweep.experiments import experiment
from experiments.economic import alpamp
from solvers.economic.generator import Settings, job_batch, slot_list


def test_the_cell_is_registered_and_deterministic() -> None:
    assert experiment("alpamp") is alpamp
    first = alpamp({"cycles": 30}, 5)
    assert first == alpamp({"cycles": 30}, 5)
    assert first != alpamp({"cycles": 30}, 6)


def test_the_cell_reports_the_papers_figures_for_its_counted_cycles() -> None:
    metrics = {name: float(value) for name, value in alpamp({"cycles": 40}, 1).items()}
    assert 0 < metrics["valid_cycles"] <= 40
    assert metrics["valid_share"] == metrics["valid_cycles"] / 40
    for name in ("alp", "amp"):
        for figure in ("time_tmin", "cost_tmin", "cost_cmin", "time_cmin"):
            value = metrics[f"{name}_{figure}"]
            assert value > 0
        # each objective wins its own criterion against the other's choice
        assert metrics[f"{name}_time_tmin"] <= metrics[f"{name}_time_cmin"] + 1e-9
    assert metrics["amp_alternatives_per_job"] > metrics["alp_alternatives_per_job"]


def test_no_counted_cycle_gives_nan_not_an_error() -> None:
    # nodes of performance 1 cannot serve jobs asking for 2: no job ever finds a window
    metrics = alpamp({"cycles": 3, "performance_max": 1.0, "min_performance_min": 2.0}, 0)
    assert metrics["valid_cycles"] == 0 and math.isnan(float(metrics["alp_time_tmin"]))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"cycles": 0}, "cycles must be a positive integer"),
        ({"slot_min": 3}, "unknown parameter"),
        ({"jobs_min": 2.5}, "jobs_min must be an integer"),
        ({"gap_max": "ten"}, "gap_max must be a number"),
        ({"jobs_min": 8}, "jobs_min must not exceed jobs_max"),
        ({"same_start": 1.5}, "same_start must be a probability"),
    ],
)
def test_bad_parameters_are_one_clear_error(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        alpamp(params, 0)


def test_the_generators_keep_to_their_ranges_and_order() -> None:
    settings = Settings()
    rng = random.Random(3)
    slots = slot_list(settings, rng)
    assert 120 <= len(slots) <= 150
    assert [s.start for s in slots] == sorted(s.start for s in slots)
    assert len({s.node for s in slots}) == len(slots)
    for s in slots:
        assert 50 <= s.end - s.start <= 300 and 1 <= s.performance <= 3
        assert 0.75 * 1.7**s.performance <= s.price <= 1.25 * 1.7**s.performance
    gaps = [b.start - a.start for a, b in itertools.pairwise(slots)]
    assert all(0 <= gap <= 10 for gap in gaps) and any(gap == 0 for gap in gaps)
    batch = job_batch(settings, rng)
    assert 3 <= len(batch) <= 7
    for job in batch:
        assert 1 <= job.nodes <= 6 and 50 <= job.length <= 150
        assert job.price_cap == 1.7**job.min_performance
