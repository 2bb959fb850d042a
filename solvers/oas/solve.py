"""Solve an OAS problem with HiGHS or GLPK through Pyomo (Blanco et al., "OAS: a MIP model for
ordering and allocating parallel jobs on multi-cluster systems", §3.2; models.md §4.3).

Pyomo is imported only inside the functions that need it (a slow import), so importing
``solvers.oas`` stays cheap, and never as ``pyomo.environ`` (see ``_register_shell_solvers``).
A time limit returns the best schedule found so far with the solver's bound (or, when the solver
stopped before it had one, ``fast_model.makespan_lower_bound``): HiGHS reports both; for GLPK
Pyomo gives no bound, so glpsol's log is read for its last ``mip = <incumbent> >= <bound>``
line. GLPK's ``tmlim`` takes whole seconds only (a float makes glpsol exit with an error), so
the limit is rounded up.
"""

from __future__ import annotations

import importlib
import math
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from solvers.oas.fast_model import (
    build_fast_model,
    load_fast_plan,
    makespan_lower_bound,
    read_fast_plan,
)
from solvers.oas.heuristics import best_slotted_plan
from solvers.oas.paper_model import build_paper_model, load_paper_plan, read_paper_plan
from solvers.oas.patterns import unplaceable_jobs
from solvers.oas.problem import OasPlan, OasProblem, SolveResult, SolveStatus

ModelName = Literal["fast", "paper"]
SolverName = Literal["highs", "glpk"]


@dataclass(frozen=True, slots=True)
class _Formulation:
    """How to build a model, read a plan from its solution, and load a plan as a MIP start."""

    build: Callable[[OasProblem], Any]
    read: Callable[[OasProblem, Any], OasPlan]
    load: Callable[[OasProblem, Any, OasPlan], None]


_MODELS = {
    "fast": _Formulation(build_fast_model, read_fast_plan, load_fast_plan),
    "paper": _Formulation(build_paper_model, read_paper_plan, load_paper_plan),
}

#: Solver tolerance on a slot count (a bound of 15.9999999 slots proves 16).
_SLOT_NOISE = 1e-6

_GLPK_INSTALL = "apt-get install glpk-utils (Debian/Ubuntu) or conda install -c conda-forge glpk"


class SolverUnavailable(RuntimeError):
    """The chosen MIP solver is not installed; the message says what to install."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    """How a solver run ended; with ``loaded`` its incumbent is in the model's variables."""

    status: SolveStatus
    loaded: bool
    bound: float | None  # in slots


def solve(
    problem: OasProblem,
    *,
    model: ModelName = "fast",
    solver: SolverName = "highs",
    time_limit: float | None = None,
    warm_start: bool = True,
) -> SolveResult:
    """Build the chosen formulation, solve it and read the plan back.

    With ``warm_start`` HiGHS starts from the best slotted heuristic schedule (when it fits in
    θ), so a time limit always leaves an incumbent; Pyomo passes GLPK no MIP start.
    ``wall_seconds`` covers building, solving and reading. Raises SolverUnavailable when the
    solver (or Pyomo) is missing and ValueError for an unknown model or solver name.
    """
    if model not in _MODELS:
        raise ValueError(f"unknown OAS model {model!r}; choose 'fast' or 'paper'")
    run = _SOLVERS.get(solver)
    if run is None:
        raise ValueError(f"unknown MIP solver {solver!r}; choose 'highs' or 'glpk'")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time limit must be positive seconds or None, got {time_limit}")
    require_solver(solver)
    started = time.perf_counter()
    if unplaceable_jobs(problem):  # proven without a solver: a job alone does not fit in θ
        outcome, plan = _Outcome(SolveStatus.INFEASIBLE, False, None), None
    else:
        formulation = _MODELS[model]
        pyomo_model = formulation.build(problem)
        start = _mip_start(problem) if warm_start and solver == "highs" else None
        if start is not None:
            formulation.load(problem, pyomo_model, start)
        outcome = run(pyomo_model, time_limit, start is not None)
        if outcome.status is not SolveStatus.INFEASIBLE and not (
            outcome.bound is not None and math.isfinite(outcome.bound)
        ):  # stopped before a bound (e.g. in presolve): the combinatorial one is still valid
            outcome = _Outcome(outcome.status, outcome.loaded, makespan_lower_bound(problem))
        plan = formulation.read(problem, pyomo_model) if outcome.loaded else None
    return _result(problem, outcome, plan, solver, model, time.perf_counter() - started)


def _mip_start(problem: OasProblem) -> OasPlan | None:
    """The best slotted heuristic schedule, if it fits in θ: an incumbent from the first second.

    Called once every job is known to fit alone, so the heuristics cannot fail.
    """
    plan = best_slotted_plan(problem)
    fits = all((p.finish_slot or 0) <= problem.slot_count for p in plan.placements)
    return plan if fits else None


def _result(
    problem: OasProblem,
    outcome: _Outcome,
    plan: OasPlan | None,
    solver: str,
    model: str,
    seconds: float,
) -> SolveResult:
    """Convert slots to time units and compute the relative gap.

    Every finish slot is an integer, so the objective is the plan's own makespan (free of the
    solver's float noise) and the bound may be rounded up to a whole slot.
    """
    eta = problem.slot_size
    objective = None if plan is None else plan.makespan
    bound = None
    if outcome.bound is not None and math.isfinite(outcome.bound):
        bound = math.ceil(outcome.bound - _SLOT_NOISE) * eta
    gap = None
    if objective is not None and bound is not None and objective > 0:
        gap = max(0.0, (objective - bound) / objective)
    return SolveResult(plan, outcome.status, objective, bound, gap, solver, model, seconds)


def require_solver(solver: SolverName) -> None:
    """Raise SolverUnavailable, naming the package to install, when ``solver`` cannot run."""
    _require_module("pyomo", "pip install pyomo")
    if solver == "highs":
        _require_module("highspy", "pip install highspy")
    elif shutil.which("glpsol") is None:
        raise SolverUnavailable(f"GLPK's glpsol is not on PATH; install it: {_GLPK_INSTALL}")


def _require_module(name: str, install: str) -> None:
    try:
        importlib.import_module(name)
    except ImportError as error:
        raise SolverUnavailable(
            f"Python package {name!r} is missing; install it: {install}"
        ) from error


def _run_highs(model: Any, time_limit: float | None, warm: bool) -> _Outcome:
    """HiGHS through Pyomo's appsi interface, the one that passes variable values as a MIP start."""
    from pyomo.contrib.appsi.base import TerminationCondition
    from pyomo.contrib.appsi.solvers.highs import Highs

    opt = Highs()
    opt.config.time_limit = time_limit
    opt.config.load_solution = False  # a non-optimal end must not raise
    opt.config.warmstart = warm
    results = opt.solve(model)
    incumbent = results.best_feasible_objective
    if incumbent is not None:
        results.solution_loader.load_vars()
    condition = results.termination_condition
    if condition == TerminationCondition.optimal:
        status = SolveStatus.OPTIMAL
    elif condition in (TerminationCondition.infeasible, TerminationCondition.infeasibleOrUnbounded):
        status = SolveStatus.INFEASIBLE
    else:
        status = SolveStatus.NO_SOLUTION if incumbent is None else SolveStatus.FEASIBLE
    return _Outcome(status, incumbent is not None, results.best_objective_bound)


def _run_glpk(model: Any, time_limit: float | None, warm: bool) -> _Outcome:
    """glpsol through Pyomo (which passes it no MIP start); the bound comes from glpsol's log."""
    from pyomo.opt import SolverFactory, TerminationCondition

    _register_shell_solvers()
    opt = SolverFactory("glpk")
    if time_limit is not None:
        opt.options["tmlim"] = max(1, math.ceil(time_limit))
    with tempfile.TemporaryDirectory(prefix="oas-glpk-") as folder:
        log_path = Path(folder, "glpsol.log")
        results = opt.solve(model, load_solutions=False, logfile=str(log_path))
        log = log_path.read_text()
    condition = results.solver.termination_condition
    if condition == TerminationCondition.infeasible:
        return _Outcome(SolveStatus.INFEASIBLE, False, None)
    if len(results.solution) == 0:
        return _Outcome(SolveStatus.NO_SOLUTION, False, parse_glpsol_bound(log))
    model.solutions.load_from(results)
    if condition == TerminationCondition.optimal:
        return _Outcome(SolveStatus.OPTIMAL, True, float(model.objective()))
    return _Outcome(SolveStatus.FEASIBLE, True, parse_glpsol_bound(log))


def _register_shell_solvers() -> None:
    """Register Pyomo's file-based solvers (glpk) and LP writers without ``pyomo.environ``.

    ``pyomo.environ`` also loads every contrib plugin, one of which touches Pyomo's deferred
    matplotlib import; under PySide6's import hook (the GUI, pytest-qt) that raises
    DeferredImportError when matplotlib is absent. These three packages are all glpk needs.
    """
    for package in ("pyomo.opt", "pyomo.repn", "pyomo.solvers"):
        importlib.import_module(f"{package}.plugins").load()


_GLPSOL_PROGRESS = re.compile(r"mip\s*=\s*(?:not found yet|\S+)\s*>=\s*(tree is empty|\S+)")


def parse_glpsol_bound(log: str) -> float | None:
    """The last dual bound in a glpsol MIP log (``... mip = 1.2e+01 >= 1.0e+01 ...``), if any."""
    bounds = [match.group(1) for match in _GLPSOL_PROGRESS.finditer(log)]
    bounds = [b for b in bounds if b != "tree is empty"]
    for text in reversed(bounds):
        try:
            value = float(text)
        except ValueError:
            continue
        if math.isfinite(value):
            return value
    return None


_SOLVERS: dict[str, Callable[[Any, float | None, bool], _Outcome]] = {
    "highs": _run_highs,
    "glpk": _run_glpk,
}
