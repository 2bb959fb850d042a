"""The broker experiment cells' glue: parameters, platforms, submissions, trace lookup."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from emulator.sweep.experiments import Scalar, experiment
from emulator.sweep.spec import load_spec
from emulator.sweep.store import clashing_metric
from experiments.brokers import (
    Metrics,
    batch_submissions,
    groups,
    ratio_study,
    scheduler,
    worst_case,
)
from experiments.brokers_online import online, trace_path
from solvers.brokers.instances import Rigid

DATA = Path(__file__).resolve().parents[1] / "data"


def test_batch_submissions_all_at_zero_in_order_with_exact_estimates() -> None:
    subs = batch_submissions([Rigid(2, 5), Rigid(1, 3)])
    assert [
        (s.job_id, s.submit, s.request.cores, s.request.time_limit, s.runtime) for s in subs
    ] == [
        (1, 0.0, 2, 5, 5.0),
        (2, 0.0, 1, 3, 3.0),
    ]


def test_scheduler_spec_defaults_to_lsf() -> None:
    assert scheduler({"strategy": "mct-a"}) == "mct-a+lsf"
    assert scheduler({"strategy": "ml", "local": "easy"}) == "ml+easy"


@pytest.mark.parametrize(
    ("cell", "params", "message"),
    [
        (worst_case, {"strategy": "fifo"}, "'strategy' must be one of ml, ml-a"),
        (
            worst_case,
            {"strategy": "ml", "sites": 1, "rounds": 2, "long": 9},
            "'sites' must be >= 2",
        ),
        (
            worst_case,
            {"strategy": "ml", "sites": 3, "rounds": "2", "long": 9},
            "'rounds' must be an",
        ),
        (groups, {"strategy": "mct", "k": 11}, "'k' must be in 0..10"),
        (groups, {"strategy": "mct", "k": True}, "'k' must be an integer"),
        (ratio_study, {"strategy": "mct-a", "batches": 0}, "'batches' must be >= 1"),
        (ratio_study, {"strategy": "mct-a", "batches": 5, "local": ""}, "'local' must be a non"),
        (online, {"strategy": "ml", "platform": "nowhere"}, "no shipped platform 'nowhere'"),
    ],
)
def test_bad_parameters_are_one_line_value_errors(
    cell: Callable[[Mapping[str, object], int], Metrics], params: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        cell(params, 0)


def test_trace_path_finds_files_as_given_or_fails_naming_them() -> None:
    excerpt = DATA / "gaia-first-400.swf"
    assert trace_path(str(excerpt)) == excerpt
    with pytest.raises(ValueError, match="trace 'no-such' not found"):
        trace_path("no-such")


SPECS = Path(__file__).resolve().parents[2] / "resources" / "experiments"
# each spec's first quick cell, made small enough for a unit test
SMALLER: dict[str, dict[str, Scalar]] = {
    "brokers-worst-case": {},
    "brokers-groups": {"k": 2},
    "brokers-ratio": {"batches": 3},
    "brokers-online": {"trace": str(DATA / "gaia-first-400.swf"), "jobs": 30},
}


@pytest.mark.parametrize("name", sorted(SMALLER))
def test_each_spec_names_only_metrics_its_cell_reports(name: str) -> None:
    spec = load_spec(SPECS / f"{name}.toml")
    cell = spec.cells(quick=True)[0]
    metrics = experiment(spec.experiment)({**cell.param_dict(), **SMALLER[name]}, cell.seed)
    assert clashing_metric(metrics, spec.parameters()) is None
    named = {m for table in spec.tables for m in table.metrics}
    named |= {m for plot in spec.plots for m in (*plot.y, *plot.right)}
    named |= {figure.metric for figure in spec.paper.figures} if spec.paper else set()
    assert named <= set(metrics)
