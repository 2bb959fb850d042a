"""The solver front end: HiGHS and GLPK agree, limits return an incumbent and a gap, infeasible
deadlines are reported, and a missing solver says what to install."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import sys

import pytest
from oas_cases import BINDING, EIGHT, SMALL, problem

from solvers.oas.checker import check_plan
from solvers.oas.problem import SolveStatus
from solvers.oas.solve import SolverUnavailable, parse_glpsol_bound, solve

needs_highs = pytest.mark.skipif(
    importlib.util.find_spec("pyomo") is None or importlib.util.find_spec("highspy") is None,
    reason="Pyomo or HiGHS is not installed (pip install pyomo highspy)",
)
needs_glpk = pytest.mark.skipif(
    shutil.which("glpsol") is None or importlib.util.find_spec("pyomo") is None,
    reason="GLPK's glpsol (apt-get install glpk-utils) or Pyomo is not installed",
)

GLPSOL_LOG = """\
Integer optimization begins...
Long-step dual simplex will be used
+   111: mip =     not found yet >=              -inf        (1; 0)
Solution found by heuristic: 17
+  6816: mip =   1.700000000e+01 >=   1.600000000e+01   5.9% (6; 661)
TIME LIMIT EXCEEDED; SEARCH TERMINATED
"""


def test_glpsol_bound_is_read_from_its_log() -> None:
    assert parse_glpsol_bound(GLPSOL_LOG) == 16.0
    finished = "+ 56139: mip =   6.000000000e+00 >=     tree is empty   0.0% (0; 2949)\n"
    assert parse_glpsol_bound(GLPSOL_LOG + finished) == 16.0  # "tree is empty" is no number
    assert parse_glpsol_bound(GLPSOL_LOG.split("Solution")[0]) is None  # only -inf so far


@needs_highs
@needs_glpk
@pytest.mark.parametrize("name", sorted(SMALL))
def test_highs_and_glpk_agree_on_the_fast_model(name: str) -> None:
    p = problem(*SMALL[name])
    highs, glpk = solve(p), solve(p, solver="glpk")
    assert highs.status is glpk.status is SolveStatus.OPTIMAL
    assert highs.objective == pytest.approx(glpk.objective)
    assert glpk.bound == pytest.approx(glpk.objective)
    assert glpk.plan is not None and check_plan(p, glpk.plan) == []
    assert (highs.solver, glpk.solver, glpk.model) == ("highs", "glpk", "fast")


@needs_highs
@needs_glpk
@pytest.mark.parametrize("name", ["binding-free", "four", "beats-a"])
def test_glpk_solves_the_paper_model_too(name: str) -> None:
    p = problem(*SMALL[name])
    glpk = solve(p, model="paper", solver="glpk")
    assert glpk.status is SolveStatus.OPTIMAL
    assert glpk.objective == pytest.approx(solve(p).objective)
    assert glpk.plan is not None and check_plan(p, glpk.plan) == []


@needs_highs
def test_a_time_limit_returns_the_incumbent_and_a_gap() -> None:
    """With η = 25 % of the mean base time (θ = 33) HiGHS does not close the 8-job batch within
    60 s; after 5 s (presolve takes 1-2 s, more on a loaded machine) the heuristic start or
    better is kept, with a bound (HiGHS's, or the combinatorial one if it stopped in presolve).
    At η = 50 % the sped-up fast model may finish in 3-5 s, too soon for this test."""
    p = problem(*EIGHT, slot_size=0.25 * sum(job.base_time for job in EIGHT) / len(EIGHT))
    result = solve(p, time_limit=5.0)
    assert result.status is SolveStatus.FEASIBLE
    assert result.objective is not None and result.bound is not None and result.gap is not None
    assert result.bound < result.objective <= p.slot_count * p.slot_size
    assert result.gap == pytest.approx((result.objective - result.bound) / result.objective)
    assert result.gap > 0
    assert result.plan is not None and check_plan(p, result.plan) == []
    assert result.wall_seconds < 30


@needs_glpk
def test_glpk_time_limit_reports_the_bound_from_its_log() -> None:
    p = problem(*EIGHT)  # GLPK needs ~45 s to close this one
    result = solve(p, solver="glpk", time_limit=0.2)  # rounded up to tmlim 1
    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.NO_SOLUTION)
    assert result.bound is not None and 0 < result.bound <= p.slot_count * p.slot_size


@needs_highs
@pytest.mark.parametrize("model", ["fast", "paper"])
def test_a_deadline_too_short_for_the_batch_is_infeasible(model: str) -> None:
    # Each BINDING job alone needs 3 slots, both need 6 (they cannot overlap); θ = 5.
    p = dataclasses.replace(problem(*BINDING), slot_count=5)
    result = solve(p, model=model)  # type: ignore[arg-type]
    assert result.status is SolveStatus.INFEASIBLE
    assert result.plan is None and result.objective is None


@needs_highs
def test_a_deadline_too_short_for_one_job_is_infeasible_without_a_solver() -> None:
    p = dataclasses.replace(problem(*BINDING), slot_count=2)
    result = solve(p, model="paper")
    assert result.status is SolveStatus.INFEASIBLE


@needs_highs
def test_missing_highs_names_the_pip_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "highspy", None)  # makes `import highspy` fail
    with pytest.raises(SolverUnavailable, match="pip install highspy"):
        solve(problem(*BINDING))


def test_missing_glpk_names_the_system_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SolverUnavailable) as caught:
        solve(problem(*BINDING), solver="glpk")
    assert "apt-get install glpk-utils" in str(caught.value)
    assert "conda install -c conda-forge glpk" in str(caught.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model": "exact"}, "unknown OAS model 'exact'"),
        ({"solver": "cplex"}, "unknown MIP solver 'cplex'"),
        ({"time_limit": 0.0}, "time limit must be positive"),
    ],
)
def test_bad_options_are_rejected(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solve(problem(*BINDING), **options)  # type: ignore[arg-type]
