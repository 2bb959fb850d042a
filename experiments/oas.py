"""The OAS paper's two experiments as cells (Blanco et al., "OAS: a MIP model for ordering and
allocating parallel jobs on multi-cluster systems", §4; specs resources/experiments/oas-*.toml,
findings docs/experiments/oas.md).

Test bed (§4): 3 clusters × 2 nodes, effective power Γ = 1.0 / 0.75 / 0.5 per cluster, one
Gigabit link per cluster to the central switch (bandwidths in Mbit/s, times in seconds).

Choices the paper leaves open, kept from the scripts these cells replace: the §4.1 workload is
``solvers.oas.paper.EIGHT_JOBS`` (the paper gives its shape, not its numbers); the six §4.2
workloads are WL-1 (hand-made, see ``WL1``), WL-2 = ``random_workload(10)`` (the first seed
from 3 up where SJF is the unique best heuristic: selected, not constructed) and WL-3..WL-6 =
``random_workload(3..6)``; OAS is the fast (pattern) model on HiGHS, warm-started from the best
slotted heuristic. The cells are deterministic except ``solve_s`` (wall time) and, when a solve
stops at its time limit, the incumbent it stopped with (its status says so).
"""

from __future__ import annotations

import random
import typing
from collections.abc import Mapping, Sequence

from emulator.engine import Engine
from emulator.model.job import Communication, Request
from emulator.model.platform_file import load_platform
from emulator.sweep.experiments import Metrics, Scalar
from resources import platform_path
from solvers.common.links import fits_link
from solvers.common.orders import QueueOrder
from solvers.oas import (
    JobPlacement,
    OasJob,
    OasPlan,
    OasProblem,
    check_plan,
    list_schedule,
    solve,
)
from solvers.oas.paper import EIGHT_JOBS
from solvers.oas.problem import OasResource
from solvers.oas.solve import ModelName

SPEEDS = (1.0, 0.75, 0.5)
GIGABIT = 1000.0
LINKS = (GIGABIT,) * len(SPEEDS)

#: The §4.1 workload (solvers/oas/paper.py), the tests' ``EIGHT`` too.
SLOT_WORKLOAD = EIGHT_JOBS

ORDERS = (
    QueueOrder.FCFS,
    QueueOrder.SJF,
    QueueOrder.BJF,
    QueueOrder.FPFS,
    QueueOrder.SPT,
    QueueOrder.LPT,
)


def testbed() -> tuple[OasResource, ...]:
    """The §4 platform: c0n0, c0n1 (Γ = 1.0), c1n0, c1n1 (0.75), c2n0, c2n1 (0.5)."""
    return tuple(
        OasResource(f"c{k}n{i}", k, speed) for k, speed in enumerate(SPEEDS) for i in range(2)
    )


def random_workload(seed: int, count: int = 8) -> tuple[OasJob, ...]:
    """``count`` jobs drawn from ``random.Random(seed)``: τ uniform in 1..6, Tb in 30..180 s (steps
    of 10), σ in {0.5, 0.6, ..., 1.0}, PTBW in {0, 0, 100, 200, 300, 500} Mbit/s (a third of the
    jobs only compute)."""
    rng = random.Random(seed)
    return tuple(
        OasJob(
            i + 1,
            rng.randint(1, 6),
            float(rng.randrange(30, 181, 10)),
            rng.choice((0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
            float(rng.choice((0, 0, 100, 200, 300, 500))),
        )
        for i in range(count)
    )


def mean_base_time(jobs: Sequence[OasJob]) -> float:
    return sum(job.base_time for job in jobs) / len(jobs)


#: WL-1 favours fit-based orders: complementary sizes (4+2, 4+2, 5+1, 3+3 fill the six nodes)
#: arrive interleaved, so a strict queue leaves nodes idle behind a blocked head, while FPFS
#: (first job that fits) fills them.
WL1 = (
    OasJob(1, 4, 100.0, 0.9, 100.0),
    OasJob(2, 4, 100.0, 0.9, 100.0),
    OasJob(3, 5, 90.0, 0.9, 100.0),
    OasJob(4, 2, 100.0, 1.0, 0.0),
    OasJob(5, 3, 80.0, 0.8, 200.0),
    OasJob(6, 2, 100.0, 1.0, 0.0),
    OasJob(7, 1, 90.0, 1.0, 0.0),
    OasJob(8, 3, 80.0, 0.8, 200.0),
)


def workload(name: str) -> tuple[OasJob, ...]:
    """One of the §4.2 workloads by name: WL-1 .. WL-6."""
    if name == "WL-1":
        return WL1
    if name == "WL-2":
        return random_workload(10)
    if name in {f"WL-{n}" for n in range(3, 7)}:
        return random_workload(int(name[3:]))
    raise ValueError(f"unknown workload {name!r}: WL-1 .. WL-6")


def slot_size(params: Mapping[str, object], seed: int) -> Metrics:
    """OAS makespan and solve time at one slot size η (Blanco et al. §4.1, Fig. 3).

    Parameters: ``eta_percent`` (η in % of the workload's mean base time), ``model`` (``fast``
    or ``paper``, the literal Fig. 2 formulation), ``time_limit`` (s per solve). The seed is
    unused: the workload is the paper's fixed batch.
    """
    percent = _number(params, "eta_percent")
    problem = OasProblem.create(
        testbed(), LINKS, SLOT_WORKLOAD, slot_size=mean_base_time(SLOT_WORKLOAD) * percent / 100
    )
    model = str(params.get("model", "fast"))
    if model not in ("fast", "paper"):
        raise ValueError(f"model must be 'fast' or 'paper', got {model!r}")
    limit = _number(params, "time_limit")
    result = solve(problem, model=typing.cast(ModelName, model), time_limit=limit)
    if result.plan is not None:
        _require_valid(problem, result.plan, f"{model} η={percent}%")
    best = min(list_schedule(problem, order).makespan for order in QueueOrder)
    metrics: dict[str, Scalar | None] = {
        "eta_s": problem.slot_size,
        "theta_slots": problem.slot_count,
        "solve_status": result.status.value,
        "makespan_slots": None
        if result.objective is None
        else round(result.objective / problem.slot_size),
        "makespan_s": result.objective,
        "bound_s": result.bound,
        "gap": result.gap,
        "solve_s": result.wall_seconds,
        "best_heuristic_s": best,  # continuous time: the same for every η
    }
    return {key: value for key, value in metrics.items() if value is not None}


def vs_heuristics(params: Mapping[str, object], seed: int) -> Metrics:
    """OAS against six queue orders on one 8-job workload (Blanco et al. §4.2, Fig. 4).

    Parameters: ``workload`` (WL-1 .. WL-6), ``eta_percent`` (η in % of its mean base time),
    ``time_limit`` (s per solve). The heuristics run in continuous time, OAS in slots of η;
    ``OAS_replayed`` runs OAS's order and allocation in continuous time (:func:`replay`), our
    reading of how the paper ran its schedules in GridSim; ``OAS_emulated`` is the ``oas`` grid
    policy's makespan in the emulator (:func:`emulate`: its own solve, continuous-time starts).
    ``OAS_slots`` is the slotted optimum θ* in slots, the figure every exact solver shares;
    seconds are what one of possibly several optimal plans emulates to. The seed is unused.
    """
    name = str(params.get("workload"))
    jobs = workload(name)
    eta = mean_base_time(jobs) * _number(params, "eta_percent") / 100
    problem = OasProblem.create(testbed(), LINKS, jobs, slot_size=eta)
    heuristics = {order.name: list_schedule(problem, order).makespan for order in ORDERS}
    best = min(heuristics.values())
    result = solve(problem, time_limit=_number(params, "time_limit"))
    if result.plan is None or result.objective is None:
        raise RuntimeError(f"{name}: no OAS schedule ({result.status.value})")
    replayed = replay(problem, result.plan)
    _require_valid(problem, result.plan, name)
    _require_valid(problem, replayed, f"{name} replayed")
    emulated = emulate(jobs, _number(params, "eta_percent"), _number(params, "time_limit"))
    metrics: Metrics = {"eta_s": eta, **heuristics}
    metrics.update(
        {
            "best_heuristic": "/".join(k for k, v in heuristics.items() if v == best),
            "OAS": result.objective,
            "OAS_slots": round(result.objective / eta),
            "OAS_status": result.status.value,
            "OAS_solve_s": result.wall_seconds,
            "OAS_minus_best_in_slots": (result.objective - best) / eta,
            "within_one_slot": result.objective <= best + eta + 1e-6,
            "OAS_replayed": replayed.makespan,
            "replayed_minus_best_in_slots": (replayed.makespan - best) / eta,
            "OAS_emulated": emulated,
            "emulated_minus_best_in_slots": (emulated - best) / eta,
            "emulated_within_one_slot": emulated <= best + eta + 1e-6,
        }
    )
    if result.gap is not None:
        metrics["OAS_gap"] = result.gap
    return metrics


def emulate(jobs: Sequence[OasJob], eta_percent: float, time_limit: float) -> float:
    """The makespan of the ``oas`` policy (default ``starts=continuous``) in the emulator, all
    jobs submitted at time 0 on ``oas-testbed`` (this test bed, bandwidths in Gbit/s)."""
    platform = load_platform(platform_path("oas-testbed"))
    spec = f"oas:slot={eta_percent / 100},time_limit={time_limit}"
    engine = Engine(platform, spec)
    for job in jobs:
        communication = Communication(job.base_time, job.sigma, job.task_bw / GIGABIT)
        limit = 10 * job.base_time
        request = Request(tasks=job.tasks, time_limit=limit, communication=communication)
        engine.submit(request, job.base_time, job_id=job.id)
    engine.run()
    return max(job.end for job in engine.jobs.values())


def replay(problem: OasProblem, plan: OasPlan) -> OasPlan:
    """OAS's order and allocation in continuous time, as a simulator would run them.

    Jobs in order of slotted start (ties: batch order) keep their resources and start at the
    earliest moment their resources are free and every link they load stays within MBW_k for
    their whole run time Te_j. Never later than the slotted start: at that moment the jobs
    placed so far run only where they ran in the slotted plan (they start and end no later), so
    the slotted start is always a candidate.
    """
    jobs = {job.id: job for job in problem.jobs}
    order = sorted(plan.placements, key=lambda p: (p.start, plan.placements.index(p)))
    free = [0.0] * len(problem.resources)
    placed: list[tuple[float, float, tuple[float, ...]]] = []  # start, end, link loads
    result: dict[int, JobPlacement] = {}
    for slotted in order:
        job = jobs[slotted.job_id]
        slowdown = max(problem.resources[r].slowdown for r in slotted.resources)
        length = job.run_time(slowdown)
        per_cluster = [0] * problem.cluster_count
        for r in slotted.resources:
            per_cluster[problem.resources[r].cluster] += 1
        loads = tuple(job.link_bandwidth(n) for n in per_cluster)
        ready = max(free[r] for r in slotted.resources)
        candidates = sorted({ready, *(end for _, end, _ in placed if end > ready)})
        start = next(c for c in candidates if _links_fit(problem, placed, c, c + length, loads))
        for r in slotted.resources:
            free[r] = start + length
        placed.append((start, start + length, loads))
        result[job.id] = JobPlacement(job.id, start, start + length, slotted.resources)
    placements = tuple(result[p.job_id] for p in plan.placements)
    return OasPlan(placements, max(p.end for p in placements))


def _links_fit(
    problem: OasProblem,
    placed: list[tuple[float, float, tuple[float, ...]]],
    start: float,
    end: float,
    loads: tuple[float, ...],
) -> bool:
    """True when ``loads`` added during [start, end) never overload a link (eq. 4-5, (22))."""
    moments = [start] + [s for s, _, _ in placed if start < s < end]
    for moment in moments:
        running = [other for s, e, other in placed if s <= moment < e]
        for k, capacity in enumerate(problem.link_capacity):
            if not fits_link(loads[k] + sum(other[k] for other in running), capacity):
                return False
    return True


def _require_valid(problem: OasProblem, plan: OasPlan, what: str) -> None:
    problems = check_plan(problem, plan)
    if problems:
        raise AssertionError(f"{what}: invalid OAS plan {problems}")


def _number(params: Mapping[str, object], name: str) -> float:
    value = params.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)
