"""The BPU sensitivity cell (experiments/bpu.py) and its sweep spec."""

from __future__ import annotations

import pytest

from emulator.sweep.spec import load_spec
from experiments.bpu import sensitivity
from resources import experiment_spec_path


def test_a_cell_is_deterministic_and_its_variants_differ_as_they_should() -> None:
    params = {"jobs": 300, "arrival_rate_per_h": 50.0}
    first = sensitivity({**params, "variant": "bpu"}, 3)
    assert first == sensitivity({**params, "variant": "bpu"}, 3)
    local = sensitivity({**params, "variant": "local-only"}, 3)
    plain = sensitivity({**params, "variant": "no-coalloc"}, 3)
    assert float(first["co_allocated_share"]) > 0
    assert local["co_allocated_share"] == plain["co_allocated_share"] == 0
    # the same jobs kept at home wait longer than when the grid shares them
    assert float(local["mean_wait_s"]) > float(first["mean_wait_s"])
    sites = ("north", "south", "east")
    assert all(float(local[f"response_{s}_s"]) > float(first[f"response_{s}_s"]) for s in sites)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"variant": "x"}, "variant must be one of bpu, no-coalloc, local-only"),
        ({"jobs": 0}, "jobs must be a positive integer"),
        ({"arrival_cv": 0.5}, "a hyper-exponential has CV >= 1"),
        ({"service_rate_per_h": -1}, "service_rate_per_h must be a positive number"),
    ],
)
def test_bad_parameters_are_refused_with_the_reason(
    params: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        sensitivity(params, 0)


def test_the_spec_loads_with_ten_seeds_and_four_figures() -> None:
    spec = load_spec(experiment_spec_path("bpu-sensitivity"))
    assert spec.experiment == "bpu-sensitivity"
    cells = spec.cells()
    assert len({dict(c.params)["figure"] for c in cells}) == 4
    assert len(cells) == (5 + 4 + 4 + 4) * 3 * 10
    assert len({c.seed for c in cells}) == 10
