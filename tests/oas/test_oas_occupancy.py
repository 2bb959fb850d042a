"""Re-planning extensions of the OAS problem (models.md §4.3; the policy's needs, not the paper's):
jobs already running as fixed occupancy, jobs restricted to some clusters, and the left shift of a
slotted plan. Both models, the heuristics and the checker must treat them alike.

Instances on the 3 x 2 test bed (oas_cases: Γ = 1.0 / 0.75 / 0.5, 1000 Mbit/s links).
"""

from __future__ import annotations

import dataclasses

import pytest
from oas_cases import GIGABIT, THREE, paper_testbed, problem

from solvers.common.orders import QueueOrder
from solvers.oas.checker import check_plan
from solvers.oas.fast_model import makespan_lower_bound
from solvers.oas.heuristics import list_schedule
from solvers.oas.problem import JobPlacement, OasJob, OasPlan, OasProblem, Occupancy, SolveStatus
from solvers.oas.shift import left_shift

# A 2-task job holds c0n0, c0n1 (resources 0, 1) until 120 s; a co-allocated one holds c1n0 and
# c2n0 (2, 4) until 60 s and loads links 1 and 2 with 700 Mbit/s each.
RUNNING = (
    Occupancy(90, (0, 1), 120.0, (0.0, 0.0, 0.0)),
    Occupancy(91, (2, 4), 60.0, (0.0, 700.0, 700.0)),
)


def busy(*jobs: OasJob, slot_size: float = 50.0) -> OasProblem:
    return OasProblem.create(
        paper_testbed(), [GIGABIT] * 3, jobs, slot_size=slot_size, occupied=RUNNING
    )


def test_slots_and_link_room_left_by_running_jobs() -> None:
    p = busy(*THREE)
    assert p.busy_slots() == (3, 3, 2, 0, 2, 0)  # ceil(120 / 50), ceil(60 / 50)
    assert [p.link_room(1, t) for t in (1, 2, 3)] == [300.0, 300.0, 1000.0]
    assert p.link_room(0, 1) == 1000.0


def test_a_link_already_overloaded_has_no_room_left() -> None:
    over = Occupancy(92, (5,), 100.0, (0.0, 0.0, 1200.0))
    p = OasProblem.create(paper_testbed(), [GIGABIT] * 3, THREE, slot_size=50.0, occupied=[over])
    assert p.link_room(2, 1) == 0.0 and p.link_room(2, 3) == 1000.0


@pytest.mark.parametrize(
    ("occupied", "message"),
    [
        ((Occupancy(1, (9,), 10.0, (0.0,) * 3),), "resource 9, which does not exist"),
        (
            (Occupancy(1, (0,), 10.0, (0.0,) * 3), Occupancy(2, (0,), 10.0, (0.0,) * 3)),
            "held by two running jobs",
        ),
        ((Occupancy(1, (0,), 0.0, (0.0,) * 3),), "must be a positive time"),
        ((Occupancy(1, (0,), 10.0, (0.0,)),), "one link load >= 0 per cluster"),
    ],
)
def test_bad_occupancy_is_rejected(occupied: tuple[Occupancy, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OasProblem(paper_testbed(), (GIGABIT,) * 3, THREE, 50.0, 10, occupied)


@pytest.mark.parametrize(
    ("job", "message"),
    [
        (OasJob(1, 1, 10.0, clusters=(3,)), r"names clusters \(3,\)"),
        (OasJob(1, 3, 10.0, clusters=(0,)), "it needs 1..2"),
    ],
)
def test_bad_cluster_restrictions_are_rejected(job: OasJob, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OasProblem(paper_testbed(), (GIGABIT,) * 3, (job,), 50.0, 10)


@pytest.mark.parametrize("order", list(QueueOrder), ids=lambda o: o.value)
def test_heuristic_schedules_respect_running_jobs(order: QueueOrder) -> None:
    p = dataclasses.replace(busy(*THREE), slot_count=100)  # θ fits every order
    for slotted in (False, True):
        plan = list_schedule(p, order, slotted=slotted)
        assert check_plan(p, plan) == [], (order, slotted)


def test_the_checker_sees_running_jobs() -> None:
    p = busy(OasJob(1, 2, 100.0), OasJob(2, 2, 100.0, 0.5, 500.0))
    early = JobPlacement(1, 0.0, 140.0, (0, 3))  # c0n0 is held until 120
    errors = check_plan(p, OasPlan((early, JobPlacement(2, 200.0, 350.0, (3, 5))), 350.0))
    assert errors == ["resource 0: job 1 starts at 0 while running job 90 holds it until 120"]
    # Job 2 split over c1n1 + c2n1 puts 500 on links 1 and 2, where job 91 draws 700 until 60.
    split = JobPlacement(2, 0.0, 150.0, (3, 5))
    errors = check_plan(p, OasPlan((JobPlacement(1, 150.0, 250.0, (0, 1)), split), 250.0))
    assert len(errors) == 2 and all("load 1200 > MBW = 1000" in e for e in errors), errors


pyo = pytest.importorskip("pyomo.core")
pytest.importorskip("highspy")

from solvers.oas.solve import solve  # noqa: E402

WITH_RUNNING = {
    "three": THREE,
    "comm": (OasJob(1, 2, 100.0, 0.5, 500.0), OasJob(2, 3, 60.0, 0.8, 300.0), OasJob(3, 1, 80.0)),
}


@pytest.mark.parametrize("name", [pytest.param("three", marks=pytest.mark.slow), "comm"])
def test_both_models_agree_beside_running_jobs(name: str) -> None:
    p = busy(*WITH_RUNNING[name])
    fast = solve(p)
    paper = solve(p, model="paper", warm_start=False)
    assert fast.status is paper.status is SolveStatus.OPTIMAL
    assert fast.objective == pytest.approx(paper.objective)
    for result in (fast, paper):
        assert result.plan is not None and check_plan(p, result.plan) == []
    assert makespan_lower_bound(p) * p.slot_size <= fast.objective + 1e-9
    idle = solve(dataclasses.replace(p, occupied=()))
    assert idle.objective is not None and fast.objective >= idle.objective


def test_a_job_that_loads_no_link_runs_beside_an_overloaded_one() -> None:
    over = Occupancy(92, (5,), 100.0, (0.0, 0.0, 1200.0))
    jobs = (OasJob(1, 1, 50.0), OasJob(2, 2, 50.0, 0.5, 400.0, clusters=(1, 2)))
    p = OasProblem.create(paper_testbed(), [GIGABIT] * 3, jobs, slot_size=50.0, occupied=[over])
    result = solve(p)
    assert result.plan is not None and check_plan(p, result.plan) == []
    second = result.plan.placement(2)
    assert {p.resources[r].cluster for r in second.resources} <= {1, 2}
    if {p.resources[r].cluster for r in second.resources} == {1, 2}:  # it loads link 2
        assert second.start >= 100.0


@pytest.mark.parametrize("model", ["fast", "paper"])
def test_a_job_keeps_to_its_clusters_in_both_models(model: str) -> None:
    jobs = (OasJob(1, 2, 100.0, clusters=(2,)), OasJob(2, 3, 60.0, clusters=(1, 2)))
    p = problem(*jobs)
    result = solve(p, model=model)  # type: ignore[arg-type]
    assert result.status is SolveStatus.OPTIMAL and result.plan is not None
    assert check_plan(p, result.plan) == []
    for placement, job in zip(result.plan.placements, jobs, strict=True):
        assert {p.resources[r].cluster for r in placement.resources} <= set(job.clusters)
    first, second = result.plan.placements
    wrong = dataclasses.replace(first, resources=(0, 1))  # c0 instead of c2
    errors = check_plan(p, dataclasses.replace(result.plan, placements=(wrong, second)))
    assert errors == ["job 1: runs on clusters [0], outside its (2,)"]


# --- left shift ------------------------------------------------------------------------------
def slotted(job_id: int, start: int, finish: int, resources: tuple[int, ...]) -> JobPlacement:
    return JobPlacement(job_id, start * 50.0, finish * 50.0, resources, start, finish)


def test_left_shift_moves_a_job_into_idle_slots_and_keeps_its_resources() -> None:
    jobs = (OasJob(1, 2, 100.0), OasJob(2, 2, 100.0), OasJob(3, 1, 50.0))
    p = OasProblem(paper_testbed(), (GIGABIT,) * 3, jobs, 50.0, 10)
    late = OasPlan(
        (slotted(1, 0, 2, (0, 1)), slotted(2, 3, 5, (0, 1)), slotted(3, 3, 5, (2,))), 250.0
    )
    assert check_plan(p, late) == []
    shifted = left_shift(p, late)
    assert [(q.start_slot, q.finish_slot) for q in shifted.placements] == [(0, 2), (2, 4), (0, 2)]
    assert [q.resources for q in shifted.placements] == [q.resources for q in late.placements]
    assert shifted.makespan == 200.0 and check_plan(p, shifted) == []


def test_left_shift_respects_links_and_running_jobs() -> None:
    # Job 2 (c1n1 + c2n1, 500 on links 1 and 2) cannot overlap job 91's 700 until slot 2.
    p = busy(OasJob(1, 1, 50.0), OasJob(2, 2, 100.0, 0.5, 500.0))
    p = dataclasses.replace(p, slot_count=12)
    late = OasPlan((slotted(1, 5, 7, (3,)), slotted(2, 7, 11, (3, 5))), 550.0)
    assert check_plan(p, late) == []
    shifted = left_shift(p, late)
    assert [(q.start_slot, q.finish_slot) for q in shifted.placements] == [(0, 2), (2, 6)]
    assert check_plan(p, shifted) == []


@pytest.mark.parametrize("order", list(QueueOrder), ids=lambda o: o.value)
def test_left_shift_never_lengthens_a_plan(order: QueueOrder) -> None:
    p = busy(*WITH_RUNNING["comm"], *(dataclasses.replace(j, id=j.id + 10) for j in THREE))
    p = dataclasses.replace(p, slot_count=100)
    plan = list_schedule(p, order, slotted=True)
    shifted = left_shift(p, plan)
    assert shifted.makespan <= plan.makespan and check_plan(p, shifted) == []
