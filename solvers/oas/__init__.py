"""OAS: ordering and allocating a batch of parallel jobs on a multi-cluster by a MIP (Blanco et al.,
"OAS: a MIP model for ordering and allocating parallel jobs on multi-cluster systems"; models.md
§4.3), as pure functions over plain data: the literal model of Fig. 2, an equivalent tight model,
the §4.2 queue-order heuristics, an independent plan checker and a HiGHS/GLPK front end; and the
registered grid policy ``oas`` (:mod:`solvers.oas.policy`) that carries plans out in the engine.

Importing this package does not import Pyomo; building or solving a model does (and so does
building the ``oas`` policy, which checks that its solver is installed).
"""

from solvers.oas.checker import check_plan
from solvers.oas.fast_model import build_fast_model, read_fast_plan
from solvers.oas.heuristics import allocate, best_slotted_plan, list_schedule
from solvers.oas.paper_model import build_paper_model, read_paper_plan
from solvers.oas.problem import (
    JobPlacement,
    OasJob,
    OasPlan,
    OasProblem,
    OasResource,
    Occupancy,
    SolveResult,
    SolveStatus,
    default_slot_count,
    default_slot_size,
)
from solvers.oas.solve import SolverUnavailable, solve

__all__ = [
    "JobPlacement",
    "OasJob",
    "OasPlan",
    "OasProblem",
    "OasResource",
    "Occupancy",
    "SolveResult",
    "SolveStatus",
    "SolverUnavailable",
    "allocate",
    "best_slotted_plan",
    "build_fast_model",
    "build_paper_model",
    "check_plan",
    "default_slot_count",
    "default_slot_size",
    "list_schedule",
    "read_fast_plan",
    "read_paper_plan",
    "solve",
]
