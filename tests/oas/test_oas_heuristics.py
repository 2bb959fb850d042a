"""The §4.2 queue-order list schedulers: hand-worked schedules and validity on random batches."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oas_cases import EIGHT, GIGABIT, SMALL, paper_testbed, problem

from solvers.common.orders import QueueOrder
from solvers.oas.checker import check_plan
from solvers.oas.heuristics import allocate, best_slotted_plan, list_schedule
from solvers.oas.problem import OasJob, OasProblem


def starts(plan_jobs: tuple[OasJob, ...], order: QueueOrder) -> dict[int, float]:
    plan = list_schedule(problem(*plan_jobs), order)
    return {p.job_id: p.start for p in plan.placements}


def test_fcfs_gives_each_job_the_fastest_free_nodes() -> None:
    jobs = (OasJob(1, 2, 100.0), OasJob(2, 2, 100.0), OasJob(3, 2, 100.0))
    plan = list_schedule(problem(*jobs), QueueOrder.FCFS)
    assert [p.resources for p in plan.placements] == [(0, 1), (2, 3), (4, 5)]
    assert [p.end for p in plan.placements] == pytest.approx([100.0, 400 / 3, 200.0])
    assert plan.makespan == pytest.approx(200.0)
    assert all(p.start_slot is None for p in plan.placements)


def test_allocation_prefers_fast_nodes_and_never_saturates_a_link() -> None:
    p = problem(OasJob(1, 3, 100.0, 0.9, 700.0))
    job = p.jobs[0]
    # Threshold 0.75: c0 x 2 + c1 x 1 beats c0 x 1 + c1 x 2 (faster nodes, same load).
    assert allocate(p, job, range(6), [0.0, 0.0, 0.0]) == (0, 1, 2)
    # Link 1 already carries 400: 700 more would saturate it, so c1 is left out.
    assert allocate(p, job, range(6), [0.0, 400.0, 0.0]) == (0, 1, 4)
    # Every split loads two links with 700: with all of them at 400 nothing fits.
    assert allocate(p, job, range(6), [400.0, 400.0, 400.0]) is None
    assert allocate(p, job, [0, 1], [0.0, 0.0, 0.0]) is None


def test_sjf_and_bjf_order_by_task_count() -> None:
    jobs = (OasJob(1, 1, 100.0), OasJob(2, 6, 100.0))
    assert starts(jobs, QueueOrder.SJF) == {1: 0.0, 2: 100.0}
    assert starts(jobs, QueueOrder.BJF) == {2: 0.0, 1: 200.0}


def test_spt_and_lpt_order_by_base_time() -> None:
    jobs = (OasJob(1, 6, 100.0), OasJob(2, 6, 50.0))
    assert starts(jobs, QueueOrder.SPT) == {2: 0.0, 1: 100.0}
    assert starts(jobs, QueueOrder.LPT) == {1: 0.0, 2: 200.0}
    assert starts(jobs, QueueOrder.FCFS) == {1: 0.0, 2: 200.0}


def test_fpfs_starts_a_later_job_that_fits_while_fcfs_waits() -> None:
    jobs = (OasJob(1, 4, 100.0), OasJob(2, 4, 100.0), OasJob(3, 2, 50.0))
    assert starts(jobs, QueueOrder.FPFS)[3] == 0.0
    fcfs = starts(jobs, QueueOrder.FCFS)
    assert fcfs[3] >= fcfs[2] > 0.0


def test_a_job_that_saturates_a_link_even_alone_is_rejected() -> None:
    # 2 tasks per cluster: 2 · 5000 · 4/5 = 8000 > 1000 on every link.
    jobs = (OasJob(7, 6, 100.0, 0.5, 5000.0),)
    p = OasProblem(paper_testbed(), (GIGABIT,) * 3, jobs, 50.0, 10)
    with pytest.raises(ValueError, match=r"job 7 .* cannot run even on the idle platform"):
        list_schedule(p)
    with pytest.raises(ValueError, match="job 7"):  # no heuristic schedule, so no default θ
        problem(*jobs)


def test_slotted_schedules_sit_on_the_grid_and_bound_theta() -> None:
    p = problem(*EIGHT)
    wide = dataclasses.replace(p, slot_count=1000)  # θ is the best order's: others may pass it
    best = best_slotted_plan(p)
    for order in QueueOrder:
        slotted = list_schedule(p, order, slotted=True)
        assert check_plan(wide, slotted) == []
        assert best.makespan <= slotted.makespan
        # The checker holds slotted placements to the grid; continuous ones have no slots.
        assert all(placement.start_slot is not None for placement in slotted.placements)
    assert check_plan(p, best) == []
    assert max(pl.finish_slot or 0 for pl in best.placements) == p.slot_count


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("order", list(QueueOrder))
def test_every_order_gives_a_valid_plan(name: str, order: QueueOrder) -> None:
    p = problem(*SMALL[name])
    assert check_plan(p, list_schedule(p, order)) == []


jobs_strategy = st.lists(
    st.builds(
        OasJob,
        id=st.just(0),
        tasks=st.integers(1, 6),
        base_time=st.sampled_from([30.0, 45.0, 60.0, 100.0, 150.0]),
        sigma=st.sampled_from([0.0, 0.5, 0.9, 1.0]),
        task_bw=st.sampled_from([0.0, 0.0, 200.0, 450.0, 700.0]),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(jobs=jobs_strategy, order=st.sampled_from(list(QueueOrder)), slotted=st.booleans())
def test_random_batches_give_valid_plans(
    jobs: list[OasJob], order: QueueOrder, slotted: bool
) -> None:
    batch = tuple(OasJob(i, j.tasks, j.base_time, j.sigma, j.task_bw) for i, j in enumerate(jobs))
    try:
        p = problem(*batch)
    except ValueError as error:  # a 6-task job with heavy traffic cannot run at all
        assert "cannot run even on the idle platform" in str(error)
        return
    plan = list_schedule(p, order, slotted=slotted)
    wide = dataclasses.replace(p, slot_count=10_000)  # a worse order may run past θ
    assert check_plan(wide, plan) == []
