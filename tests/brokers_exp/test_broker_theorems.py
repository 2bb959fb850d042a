"""The broker paper's statements through the engine: the registered policies over LSF replay the
paper's instances (experiments.brokers) and must give the makespans its proofs compute."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from experiments.brokers import STRATEGIES, groups, ratio_study, worst_case
from experiments.brokers_online import online
from solvers.brokers.bounds import harmonic

EXCERPT = Path(__file__).resolve().parents[1] / "data" / "gaia-first-400.swf"


@pytest.mark.parametrize("strategy", ["mct", "mlb"])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_theorems_1_and_3_closed_form_h_k_plus_1(strategy: str, k: int) -> None:
    record = groups({"strategy": strategy, "k": k}, 0)
    assert record["reaches_harmonic"] is True
    assert record["ratio"] == pytest.approx(float(harmonic(k + 1)), rel=1e-12)
    assert record["sites"] == 2 ** (k + 1) - 1


@pytest.mark.parametrize("strategy", ["mct-a", "mlb-a"])
def test_admissible_variants_stay_below_h_k_plus_1_on_the_group_instance(strategy: str) -> None:
    record = groups({"strategy": strategy, "k": 4}, 0)
    assert record["reaches_harmonic"] is False
    assert 1.0 <= float(record["ratio"]) < float(harmonic(5))


@pytest.mark.parametrize(
    ("strategy", "makespan"),
    # ML, MPL: the last site holds the r long jobs alone (C = rE). ML-a, MPL-a with m = 4: the
    # admissible sites are the first two, taken in turn; the long jobs all meet on the second,
    # with one short job per round (rE + rε)
    [("ml", 8000), ("mpl", 8000), ("ml-a", 8008), ("mpl-a", 8008)],
)
def test_section_3_1_stacks_every_long_job_on_one_site(strategy: str, makespan: int) -> None:
    record = worst_case({"strategy": strategy, "sites": 4, "rounds": 8, "long": 1000}, 0)
    assert record["makespan"] == makespan
    assert record["optimum"] == 2006  # max(ceil(8/4) E, ceil(8 (E + 3) / 4))
    assert record["ratio"] == pytest.approx(makespan / 2006)
    assert record["limit"] == 4.0


@pytest.mark.parametrize("strategy", ["mlb", "mct"])
def test_section_3_1_does_not_defeat_mlb_and_mct(strategy: str) -> None:
    record = worst_case({"strategy": strategy, "sites": 4, "rounds": 8, "long": 1000}, 0)
    assert float(record["ratio"]) < 1.01


@pytest.mark.slow
def test_ratio_study_no_violation_and_no_ratio_below_one() -> None:
    for strategy in STRATEGIES:
        record = ratio_study({"strategy": strategy, "batches": 60}, 3)
        assert float(record["ratio_p50"]) >= 1.0  # the lower bound is one
        assert record["worst_batch"] in range(180, 240)
        if strategy in ("mct-a", "mlb-a"):
            assert record["over_10"] == 0
            assert float(record["ratio_max"]) <= 10.0


def test_ratio_study_is_deterministic() -> None:
    first = ratio_study({"strategy": "mct-a", "batches": 15}, 7)
    assert first == ratio_study({"strategy": "mct-a", "batches": 15}, 7)
    assert first["worst_batch"] in range(105, 120)


def test_online_cell_replays_the_trace_excerpt_under_every_strategy() -> None:
    waits = {}
    for strategy in STRATEGIES:
        record = online(
            {"strategy": strategy, "platform": "g5k-3sites", "trace": str(EXCERPT), "jobs": 0}, 0
        )
        assert record["replayed"] + record["dropped"] <= 400
        assert record["rejected"] == 0
        assert float(record["mean_bounded_slowdown"]) >= 1.0
        waits[strategy] = Fraction(float(record["mean_wait_s"]))
    assert len(set(waits.values())) > 1  # the strategies route differently


def test_online_cell_takes_the_first_n_jobs() -> None:
    record = online(
        {"strategy": "mlb-a", "platform": "g5k-3sites", "trace": str(EXCERPT), "jobs": 50}, 0
    )
    assert int(record["replayed"]) + int(record["dropped"]) == 50
