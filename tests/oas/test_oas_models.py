"""The literal model of Fig. 2 and the pattern model describe the same problem.

Both directions of "exact": every valid schedule (here: each heuristic's slotted plan) satisfies
every row of both models with the same objective, and every optimum either model returns passes
the independent checker, with both models agreeing on the optimum.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from typing import Any

import pytest
from oas_cases import BEATS_A, BINDING, BINDING_FREE, EIGHT, SMALL, problem

pyo = pytest.importorskip("pyomo.core")
pytest.importorskip("highspy")

from solvers.common.orders import QueueOrder  # noqa: E402
from solvers.oas.checker import check_plan  # noqa: E402
from solvers.oas.fast_model import (  # noqa: E402
    build_fast_model,
    exclusive_jobs,
    identical_job_pairs,
    load_fast_plan,
    makespan_lower_bound,
    read_fast_plan,
)
from solvers.oas.heuristics import list_schedule  # noqa: E402
from solvers.oas.paper_model import (  # noqa: E402
    build_paper_model,
    load_paper_plan,
    read_paper_plan,
)
from solvers.oas.problem import OasJob, OasProblem, SolveStatus  # noqa: E402
from solvers.oas.solve import solve  # noqa: E402

TOLERANCE = 1e-6


def broken_rows(model: Any) -> list[str]:
    """Rows and variable bounds the model's current values violate."""
    broken = []
    for row in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(row.body)
        if (row.has_lb() and body < pyo.value(row.lower) - TOLERANCE) or (
            row.has_ub() and body > pyo.value(row.upper) + TOLERANCE
        ):
            broken.append(f"{row.name}: {body}")
    for var in model.component_data_objects(pyo.Var):
        if var.value is None:
            broken.append(f"{var.name} has no value")
        elif (var.lb is not None and var.value < var.lb - TOLERANCE) or (
            var.ub is not None and var.value > var.ub + TOLERANCE
        ):
            broken.append(f"{var.name} = {var.value} outside its bounds")
    return broken


def wide(p: OasProblem) -> OasProblem:
    """θ large enough for every order's slotted schedule."""
    longest = max(list_schedule(p, o, slotted=True).makespan for o in QueueOrder)
    return OasProblem(
        p.resources, p.link_capacity, p.jobs, p.slot_size, round(longest / p.slot_size)
    )


@pytest.mark.parametrize("name", ["binding", "three", "beats-a"])
def test_every_heuristic_schedule_is_feasible_in_both_models(name: str) -> None:
    p = wide(problem(*SMALL[name]))
    paper, fast = build_paper_model(p), build_fast_model(p)
    for order in QueueOrder:
        plan = list_schedule(p, order, slotted=True)
        finish = max(pl.finish_slot or 0 for pl in plan.placements)
        load_paper_plan(p, paper, plan)
        assert broken_rows(paper) == [], order
        assert pyo.value(paper.objective) == pytest.approx(finish)
        assert read_paper_plan(p, paper) == plan
        load_fast_plan(p, fast, plan)
        assert broken_rows(fast) == [], order
        assert pyo.value(fast.objective) == pytest.approx(finish)
        reread = read_fast_plan(p, fast)
        assert check_plan(p, reread) == []
        assert [(q.start_slot, q.finish_slot) for q in reread.placements] == [
            (q.start_slot, q.finish_slot) for q in plan.placements
        ]


@pytest.mark.parametrize("name", sorted(SMALL))
def test_paper_and_fast_models_agree_on_the_optimum(name: str) -> None:
    p = problem(*SMALL[name])
    fast = solve(p, model="fast")
    paper = solve(p, model="paper", warm_start=False)
    assert fast.status is paper.status is SolveStatus.OPTIMAL
    assert fast.objective == pytest.approx(paper.objective)
    for result in (fast, paper):
        assert result.plan is not None
        assert check_plan(p, result.plan) == []
        assert result.plan.makespan == pytest.approx(result.objective)
        assert result.gap == pytest.approx(0.0, abs=1e-6)


def test_the_mip_beats_every_queue_order() -> None:
    p = problem(*BEATS_A)
    result = solve(p)
    assert result.objective is not None
    assert result.objective == pytest.approx((p.slot_count - 1) * p.slot_size)


def test_link_bandwidth_binds() -> None:
    """Two co-allocated 3-task jobs share a link (1400 > 1000): they must run one by one."""
    bound = solve(problem(*BINDING))
    free = solve(problem(*BINDING_FREE))
    assert bound.objective == pytest.approx(300.0)  # 3 + 3 slots of 50
    assert free.objective == pytest.approx(200.0)  # concurrent: 3 and 4 slots
    assert bound.plan is not None
    first, second = sorted(bound.plan.placements, key=lambda q: q.start)
    assert second.start >= first.end


@pytest.mark.parametrize("model", ["fast", "paper"])
def test_infinite_links_never_bind(model: str) -> None:
    p = dataclasses.replace(problem(*BINDING), link_capacity=(math.inf,) * 3)
    result = solve(p, model=model)  # type: ignore[arg-type]
    assert result.objective == pytest.approx(200.0)  # as without any traffic
    assert result.plan is not None and check_plan(p, result.plan) == []


@pytest.mark.parametrize("build", [build_paper_model, build_fast_model])
def test_every_component_is_documented(build: Any) -> None:
    model = build(problem(*BINDING))
    undocumented = [
        c.name for c in model.component_objects(descend_into=True) if not (c.doc or "").strip()
    ]
    assert undocumented == []


def test_paper_model_has_one_component_per_constraint() -> None:
    model = build_paper_model(problem(*BINDING))
    for number in range(10, 23):
        assert model.find_component(f"c{number}") is not None, number
    assert model.find_component("c03") is not None and model.find_component("c04") is not None


def test_fast_model_rejects_a_job_that_cannot_finish_in_theta() -> None:
    p = problem(*EIGHT)
    short = OasProblem(p.resources, p.link_capacity, p.jobs, p.slot_size, 2)
    with pytest.raises(ValueError, match=r"cannot finish within θ = 2"):
        build_fast_model(short)


def test_importing_the_package_does_not_import_pyomo() -> None:
    code = (
        "import sys, solvers.oas; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyomo', 'highspy')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_slower_patterns_are_needed() -> None:
    """Why the fast model keeps "dominated" patterns: with η = Tb, a 2-task job takes 1 slot on
    the fast class and 2 on the others; all three jobs at once (fast, medium, slow) take 2 slots,
    while keeping only the fastest pattern would serialise them into 3."""
    jobs = tuple(OasJob(n, 2, 100.0) for n in (1, 2, 3))
    p = problem(*jobs, slot_size=100.0)
    fast, paper = solve(p), solve(p, model="paper", warm_start=False)
    assert fast.status is paper.status is SolveStatus.OPTIMAL
    assert fast.objective == pytest.approx(200.0) and paper.objective == pytest.approx(200.0)
    assert fast.plan is not None
    speeds = {min(p.resources[r].speed for r in q.resources) for q in fast.plan.placements}
    assert speeds == {1.0, 0.75, 0.5}  # every class is used: no pattern could be dropped


def test_identical_jobs_start_in_batch_order() -> None:
    """Symmetry breaking: three identical jobs (plus another) keep the optimum of the paper
    model, and the fast model's schedule starts them in batch order."""
    jobs = (OasJob(1, 3, 50.0, 0.8, 300.0), *(OasJob(n, 2, 100.0, 0.9, 200.0) for n in (2, 3, 4)))
    p = problem(*jobs, slot_size=100.0)
    assert identical_job_pairs(p) == [(1, 2), (2, 3)]
    assert len(build_fast_model(p).identical_order) == 2
    fast, paper = solve(p), solve(p, model="paper", warm_start=False)
    assert fast.status is paper.status is SolveStatus.OPTIMAL
    assert fast.objective == pytest.approx(paper.objective)
    assert fast.plan is not None and check_plan(p, fast.plan) == []
    starts = [fast.plan.placement(job_id).start for job_id in (2, 3, 4)]
    assert starts == sorted(starts)


def test_a_reversed_warm_start_of_identical_jobs_is_reordered() -> None:
    """A plan starting identical jobs out of batch order is swapped into order as a MIP start,
    so it satisfies the symmetry rows."""
    p = wide(problem(*BINDING))
    plan = list_schedule(p, QueueOrder.FCFS, slotted=True)
    first, second = plan.placements
    swapped = dataclasses.replace(
        plan,
        placements=(
            dataclasses.replace(first, job_id=second.job_id),
            dataclasses.replace(second, job_id=first.job_id),
        ),
    )
    model = build_fast_model(p)
    load_fast_plan(p, model, swapped)
    assert broken_rows(model) == []


@pytest.mark.parametrize("name", sorted(SMALL))
def test_makespan_lower_bound_never_exceeds_the_optimum(name: str) -> None:
    p = problem(*SMALL[name])
    result = solve(p)
    assert result.objective is not None
    assert makespan_lower_bound(p) * p.slot_size <= result.objective + 1e-9


def test_lower_bound_of_the_eight_job_batch() -> None:
    """Jobs of 6, 5, 4 and 3 tasks pairwise exceed the 6 resources: 4 + 4 + 3 + 4 slots."""
    p = problem(*EIGHT)
    assert [p.jobs[j].id for j in exclusive_jobs(p)] == [1, 3, 4, 7]
    assert makespan_lower_bound(p) == 15


def test_identical_jobs_that_can_only_start_at_zero_need_no_ordering_row() -> None:
    p = problem(OasJob(1, 1, 100.0), OasJob(2, 1, 100.0), slot_size=100.0)  # θ = 1
    assert len(build_fast_model(p).identical_order) == 0
    assert solve(p).status is SolveStatus.OPTIMAL
