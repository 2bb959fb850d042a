"""The ``oas`` grid policy in the engine (OAS paper §3-4; models.md §4.3): options, plans carried
out as starts and reservations on the planned nodes, re-planning, and replayed schedules that the
independent checker accepts.

Platform: the OAS test bed, clusters c0 / c1 / c2 of two one-core nodes, speeds 1.0 / 0.75 / 0.5,
1.0 Gbit/s links (bandwidths below in Gbit/s).
"""

from __future__ import annotations

import csv
import math
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyomo.core")
pytest.importorskip("highspy")

from oas_cases import EIGHT, problem

from emulator.api import Decision, Reserve, Start
from emulator.api.registry import SpecError, build, parse_spec
from emulator.cli import main
from emulator.engine import Engine, Observer
from emulator.model.job import Communication, Job, JobState, Request
from emulator.model.network import time_cost
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from resources import platform_path
from solvers.common.orders import QueueOrder
from solvers.oas.checker import check_plan
from solvers.oas.heuristics import list_schedule
from solvers.oas.policy import Model, Oas, Solver, Starts, oas_job
from solvers.oas.problem import (
    JobPlacement,
    OasJob,
    OasPlan,
    OasProblem,
    OasResource,
    SolveStatus,
)
from solvers.oas.solve import solve

TESTBED = platform_path("oas-testbed")


def bsp(tasks: int, base: float, sigma: float = 1.0, bw: float = 0.0, **extra: object) -> Request:
    return Request(
        tasks=tasks,
        time_limit=10 * base,
        communication=Communication(base, sigma, bw),
        **extra,  # type: ignore[arg-type]
    )


class Decisions(Observer):
    def __init__(self) -> None:
        self.seen: list[Decision] = []

    def decided(self, policy: str, decision: Decision) -> None:
        self.seen.append(decision)


def engine(scheduler: str = "oas") -> tuple[Engine, Decisions, Oas]:
    eng = Engine(load_platform(TESTBED), scheduler)
    decisions = Decisions()
    eng.observe(decisions)
    assert isinstance(eng.grid_policy, Oas)
    return eng, decisions, eng.grid_policy


# --- options -------------------------------------------------------------------------------------
def test_options_and_spec() -> None:
    spec = parse_spec("oas:model=paper,solver=glpk,batch=4,slot=0.25,time_limit=30,starts=slots")
    assert spec.grid is not None and str(spec.local) == "fcfs"
    policy = build(spec.grid)
    assert isinstance(policy, Oas)
    assert (policy.model, policy.solver, policy.batch, policy.slot, policy.time_limit) == (
        Model.PAPER,
        Solver.GLPK,
        4,
        0.25,
        30.0,
    )
    assert policy.starts is Starts.SLOTS
    default = build(parse_spec("oas").grid)  # type: ignore[arg-type]
    assert isinstance(default, Oas)
    assert (default.model, default.solver, default.batch, default.slot, default.time_limit) == (
        Model.FAST,
        Solver.HIGHS,
        8,
        0.5,
        None,
    )
    assert default.starts is Starts.CONTINUOUS


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("oas:model=exact", "one of: fast, paper"),
        ("oas:solver=cplex", "one of: highs, glpk"),
        ("oas:batch=0", "batch must be at least 1"),
        ("oas:slot=0", "slot must be a positive fraction"),
        ("oas:time_limit=-1", "time_limit must be positive"),
        ("oas:window=3", "has no option 'window'"),
        ("oas:starts=now", "one of: continuous, slots"),
    ],
)
def test_bad_options_are_rejected(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec(spec)


def test_a_missing_solver_names_the_package_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "highspy", None)  # makes `import highspy` fail
    with pytest.raises(SpecError, match=r"scheduler 'oas'.*pip install highspy"):
        parse_spec("oas")
    monkeypatch.setenv("PATH", str(tmp_path))
    csv_file = tmp_path / "w.csv"
    csv_file.write_text(SMALL_CSV, encoding="utf-8")
    args = ["replay", str(csv_file), "-p", str(TESTBED), "-s", "oas:solver=glpk", "-o", "x"]
    assert main(args) == 1
    assert "apt-get install glpk-utils" in capsys.readouterr().err


# --- carrying a plan out ------------------------------------------------------------------------
def test_a_time_base_is_kept_on_every_node_speed() -> None:
    """Γ = speed / fastest speed; Tb and σ are rescaled so that Te = Tb·(σ/s + 1 - σ) holds."""
    platform = Platform.single_cluster(1)
    job = Job(1, 0.0, bsp(2, 120.0, 0.6, 0.1, clusters=("cluster",)))
    seen = oas_job(job, platform, top_speed=1.5)
    assert seen.clusters == (0,)
    for speed in (1.5, 1.2, 0.6):
        assert seen.run_time(1.5 / speed) == pytest.approx(120.0 * time_cost(0.6, speed))


def test_the_plan_is_carried_out_on_the_planned_nodes_at_the_planned_times() -> None:
    eng, decisions, policy = engine("oas:starts=slots")
    jobs = [eng.submit(bsp(4, 100.0, 0.8, 0.6), 100.0), eng.submit(bsp(4, 60.0), 60.0)]
    eng.run()
    assert len(policy.plans) == 1
    plan = policy.plans[0]
    assert plan.status is SolveStatus.OPTIMAL and plan.job_ids == (1, 2)
    reserved = {d.job.id: d for d in decisions.seen if isinstance(d, Reserve)}
    started = {d.job.id: d for d in decisions.seen if isinstance(d, Start)}
    assert set(started) == {1, 2}
    later = [job for job in jobs if job.start > 0]
    assert len(later) == 1, "two 4-task jobs cannot share 6 nodes"
    job = later[0]
    assert job.start == pytest.approx(reserved[job.id].start)
    assert job.nodes == reserved[job.id].nodes == started[job.id].nodes
    assert job.start == pytest.approx(round(job.start / plan.slot_size) * plan.slot_size)
    assert max(j.end for j in jobs) <= plan.objective + 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("starts", ["slots", "continuous"])
def test_the_makespan_of_our_eight_job_batch_is_within_the_optimum(starts: str) -> None:
    """Our 8-job batch (EIGHT; the paper gives no job parameters) at time 0: one plan, carried
    out; an independent solve of the same batch in Mbit/s confirms the optimum. At slot
    boundaries the emulated makespan lies within one slot below the MIP's optimum (each job ends
    inside its last slot); in continuous time it is no later than that, and within one slot of
    the best continuous-time queue order (list_schedule, an independent scheduler)."""
    eng, _, policy = engine(f"oas:starts={starts}")
    for job in EIGHT:
        eng.submit(bsp(job.tasks, job.base_time, job.sigma, job.task_bw / 1000), job.base_time)
    eng.run()
    assert len(policy.plans) == 1
    plan = policy.plans[0]
    paper = problem(*EIGHT)
    reference = solve(paper)
    assert plan.status is reference.status is SolveStatus.OPTIMAL
    assert plan.slot_size == pytest.approx(paper.slot_size)
    assert plan.slot_count == paper.slot_count
    assert plan.objective == pytest.approx(reference.objective)
    makespan = max(job.end for job in eng.jobs.values())
    assert makespan <= plan.objective + 1e-9
    if starts == "slots":
        assert plan.objective - plan.slot_size < makespan
    else:
        best = min(list_schedule(paper, order).makespan for order in QueueOrder)
        assert makespan <= best + plan.slot_size
    assert all(job.state is JobState.COMPLETED for job in eng.jobs.values())


def test_an_early_end_moves_later_jobs_earlier() -> None:
    """Job 1 takes all six nodes; on the 0.5-speed nodes its Tb = 100 predicts 200 s, but it
    really runs 40 s of base time: it ends at 80. Jobs 2 and 3 arrived at 1 and were planned
    after 200; the early end re-plans and they start at 80."""
    eng, decisions, policy = engine()
    first = eng.submit(bsp(6, 100.0), 40.0, at=0)
    later = [eng.submit(bsp(2, 100.0), 100.0, at=1), eng.submit(bsp(1, 50.0), 50.0, at=1)]
    eng.run()
    assert first.end == pytest.approx(80.0)
    planned = {d.job.id: d.start for d in decisions.seen if isinstance(d, Reserve)}
    assert all(planned[job.id] >= 200 for job in later)
    assert [p.reason for p in policy.plans][-1] == "job 1 ended early"
    assert [job.start for job in later] == [pytest.approx(80.0)] * 2


def test_jobs_beyond_the_batch_wait_for_the_next_plan() -> None:
    eng, _, policy = engine("oas:batch=2")
    jobs = [eng.submit(bsp(3, 50.0 + 10 * i), 50.0 + 10 * i) for i in range(5)]
    eng.run(until=0)
    assert jobs[4].explanation == "waits for the next OAS plan (batch of 2)"
    eng.run()
    assert [p.job_ids for p in policy.plans] == [(1, 2), (3, 4), (5,)]
    assert all(job.state is JobState.COMPLETED for job in jobs)


def test_an_arrival_into_a_full_batch_does_not_replan() -> None:
    eng, _, policy = engine("oas:batch=2")
    eng.submit(bsp(6, 100.0), 100.0, at=0)
    eng.submit(bsp(6, 100.0), 100.0, at=0)
    eng.submit(bsp(1, 10.0), 10.0, at=5)  # the plan holds 2 jobs: it waits
    eng.run(until=150)
    assert len(policy.plans) == 1


def test_a_cancelled_planned_job_makes_room() -> None:
    """Batch of one: job 2 is planned after job 1 (which ends at 200), job 3 waits behind it.
    Cancelling job 2 re-plans, and job 3 starts in the first slot after job 1 ends."""
    eng, _, policy = engine("oas:batch=1")
    running = eng.submit(bsp(6, 100.0), 100.0, at=0)
    gone = eng.submit(bsp(6, 100.0), 100.0, at=1)
    last = eng.submit(bsp(6, 50.0), 50.0, at=2)
    eng.run(until=10)
    assert gone.planned_start >= running.expected_end - 1e-9 or gone.planned_start >= 200
    assert math.isnan(last.planned_start)
    eng.cancel(gone.id)
    eng.run()
    assert policy.plans[-1].reason == f"planned job {gone.id} left the queue"
    assert running.end <= last.start < running.end + policy.plans[-1].slot_size


def test_named_clusters_jobs_it_cannot_plan_and_an_empty_job() -> None:
    eng, _, _ = engine()
    pinned = eng.submit(bsp(3, 60.0, clusters=("c1", "c2")), 60.0)
    wide = eng.submit(Request(tasks=1, cpus_per_task=2, time_limit=60, clusters=("c0", "c1")), 1)
    unbounded = eng.submit(Request(tasks=2), 10.0)  # no base time, no time limit
    empty = eng.submit(bsp(2, 0.0), 0.0)
    eng.run()
    assert {eng.platform.nodes[n].cluster for n in pinned.nodes} <= {1, 2}
    assert wide.state is JobState.FAILED and "--cpus-per-task must be 1" in wide.explanation
    assert unbounded.state is JobState.FAILED and "needs a base time" in unbounded.explanation
    assert empty.state is JobState.COMPLETED and empty.end == empty.start


# --- end to end: replayed CSV workloads that the independent checker accepts --------------------
SMALL_CSV = """job_id,submit,tasks,base_time,sigma,task_bw,time_limit
1,0,4,100,0.8,0.6,1000
2,0,2,60,1,0,1000
3,20,3,120,0.6,0.3,1000
4,20,1,50,1,0,1000
5,40,2,150,0.5,0.5,1000
6,60,3,40,1,0,1000
7,200,5,90,0.7,0.3,1000
8,200,1,30,1,0,1000
"""


def checked_schedule(workload: str, jobs_csv: Path) -> tuple[OasProblem, OasPlan]:
    """The replayed schedule as an OAS plan in continuous time, over the workload's jobs."""
    platform = load_platform(TESTBED)
    resources = tuple(OasResource(node.name, node.cluster, node.speed) for node in platform.nodes)
    rows = list(csv.DictReader(workload.splitlines()))
    jobs = tuple(
        OasJob(
            int(r["job_id"]),
            int(r["tasks"]),
            float(r["base_time"]),
            float(r["sigma"]),
            float(r["task_bw"]),
        )
        for r in rows
    )
    names = [resource.name for resource in resources]
    with jobs_csv.open(encoding="utf-8") as handle:
        done = list(csv.DictReader(handle))
    placements = tuple(
        JobPlacement(
            int(r["job_id"]),
            float(r["start"]),
            float(r["end"]),
            tuple(names.index(n) for n in r["nodes"].split()),
        )
        for r in done
    )
    plan = OasPlan(placements, max(p.end for p in placements))
    links = tuple(cluster.link_capacity for cluster in platform.clusters)
    return OasProblem(resources, links, jobs, 1.0, 1), plan


@pytest.mark.parametrize(
    "spec",
    [
        "oas",
        "oas:batch=3",
        "oas:starts=slots",
        "oas:solver=glpk",
        pytest.param("oas:model=paper,batch=2", marks=pytest.mark.slow),
    ],
    ids=str,
)
def test_a_replayed_csv_passes_the_independent_checker(spec: str, tmp_path: Path) -> None:
    if "glpk" in spec:
        pytest.importorskip("pyomo.opt")
        if shutil.which("glpsol") is None:
            pytest.skip("GLPK's glpsol is not installed (apt-get install glpk-utils)")
    workload = tmp_path / "w.csv"
    workload.write_text(SMALL_CSV, encoding="utf-8")
    outputs = []
    for run in ("a", "b"):
        out = tmp_path / run
        args = ["replay", str(workload), "--platform", str(TESTBED), "-s", spec, "-o", str(out)]
        assert main([*args, "-q"]) == 0
        outputs.append((out / "jobs.csv").read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1], "the same workload must give the same schedule"
    oas_problem, plan = checked_schedule(SMALL_CSV, tmp_path / "a" / "jobs.csv")
    assert len(plan.placements) == 8
    assert check_plan(oas_problem, plan) == []
    submits = {int(r["job_id"]): float(r["submit"]) for r in csv.DictReader(SMALL_CSV.splitlines())}
    assert all(p.start >= submits[p.job_id] for p in plan.placements)
