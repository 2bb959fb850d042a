"""OAS versus the queue-order heuristics on six 8-job workloads (Blanco et al., §4.2, Fig. 4).

    .venv/bin/python -m bench.oas_vs_heuristics                      # η = 50 %, 60 s per solve
    .venv/bin/python -m bench.oas_vs_heuristics --eta-percent 25 --time-limit 120

Platform: ``bench.oas_common`` (3 × 2 nodes, Γ = 1.0 / 0.75 / 0.5, Gigabit links).
Workloads (8 jobs each; (id, τ, Tb [s], σ, PTBW [Mbit/s]) in ``WORKLOADS``):

* WL-1 favours fit-based orders: complementary sizes (4+2, 4+2, 5+1, 3+3 fill the six nodes)
  arrive interleaved, so a strict queue leaves nodes idle behind a blocked head, while FPFS
  (first job that fits) fills them.
* WL-2 favours small-first: ``random_workload(10)``, the first seed from 3 up for which SJF is
  the unique best heuristic (hand-made small-first batches kept being won by FPFS or LPT,
  whose packing rules dominate on this platform; so WL-2 is selected, not constructed).
* WL-3 .. WL-6: ``random_workload(3)`` .. ``random_workload(6)``, no selection.

The heuristics (``solvers.oas.heuristics.list_schedule``) run in continuous time; OAS (fast
model, HiGHS, warm-started from the best slotted heuristic) in slots of η, so its makespan is a
whole number of slots and every job is rounded up to whole slots. The paper ran OAS's schedule
in a simulator (GridSim), where a job starts when its nodes are free, not at a slot boundary;
``OAS_replayed`` does the same (:func:`replay`): OAS's order and allocation, continuous time.
The paper's claims checked here: OAS is never worse than the best heuristic by more than one
slot, and the best heuristic differs by workload.

Writes bench/results/oas_vs_heuristics.csv and docs/figures/oas-vs-heuristics.png.
"""

from __future__ import annotations

import argparse

from bench.oas_common import (
    FIGURES,
    LINKS,
    RESULTS,
    Chart,
    Series,
    mean_base_time,
    random_workload,
    render_chart,
    testbed,
    write_csv,
)
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
WORKLOADS: dict[str, tuple[OasJob, ...]] = {
    "WL-1": WL1,
    "WL-2": random_workload(10),
    **{f"WL-{n}": random_workload(n) for n in range(3, 7)},
}
ORDERS = (
    QueueOrder.FCFS,
    QueueOrder.SJF,
    QueueOrder.BJF,
    QueueOrder.FPFS,
    QueueOrder.SPT,
    QueueOrder.LPT,
)
COLORS = ("#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#d62728", "#e377c2")


def run(eta_percent: float, time_limit: float) -> list[dict[str, object]]:
    """One row per workload: every heuristic's makespan and OAS's, with the claim's check."""
    rows: list[dict[str, object]] = []
    for name, jobs in WORKLOADS.items():
        eta = mean_base_time(jobs) * eta_percent / 100
        problem = OasProblem.create(testbed(), LINKS, jobs, slot_size=eta)
        heuristics = {order.name: list_schedule(problem, order).makespan for order in ORDERS}
        best = min(heuristics.values())
        result = solve(problem, time_limit=time_limit)
        if result.plan is None or result.objective is None:
            raise AssertionError(f"{name}: no OAS schedule ({result.status.value})")
        replayed = replay(problem, result.plan)
        problems = check_plan(problem, result.plan) + check_plan(problem, replayed)
        if problems:
            raise AssertionError(f"{name}: invalid OAS plan {problems}")
        row: dict[str, object] = {"workload": name, "eta_s": round(eta, 3)}
        row.update({order: round(value, 1) for order, value in heuristics.items()})
        row.update(
            {
                "best_heuristic": "/".join(k for k, v in heuristics.items() if v == best),
                "OAS": round(result.objective, 1),
                "OAS_status": result.status.value,
                "OAS_gap": None if result.gap is None else round(result.gap, 4),
                "OAS_solve_s": round(result.wall_seconds, 2),
                "OAS_minus_best_in_slots": round((result.objective - best) / eta, 2),
                "within_one_slot": result.objective <= best + eta + 1e-6,
                "OAS_replayed": round(replayed.makespan, 1),
                "replayed_minus_best_in_slots": round((replayed.makespan - best) / eta, 2),
            }
        )
        rows.append(row)
        print(row, flush=True)
    return rows


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


def chart(rows: list[dict[str, object]], eta_percent: float) -> Chart:
    """Fig. 4: makespan per workload, one bar per heuristic and OAS."""
    names = [order.name for order in ORDERS] + ["OAS", "OAS_replayed"]
    return Chart(
        title=f"OAS (η = {eta_percent:g} % of mean base time) vs queue orders, 8-job workloads",
        categories=tuple(str(r["workload"]) for r in rows),
        series=tuple(
            Series(name, tuple(float(str(r[name])) for r in rows), color)
            for name, color in zip(names, COLORS, strict=True)
        ),
        axis_labels=("makespan [s]", ""),
        x_label="workload",
        kind="bar",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eta-percent", type=float, default=50.0, help="η, % of mean Tb")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    args = parser.parse_args()
    rows = run(args.eta_percent, args.time_limit)
    write_csv(RESULTS / "oas_vs_heuristics.csv", rows)
    render_chart(chart(rows, args.eta_percent), FIGURES / "oas-vs-heuristics.png")
    print(f"wrote {RESULTS / 'oas_vs_heuristics.csv'} and {FIGURES / 'oas-vs-heuristics.png'}")


if __name__ == "__main__":
    main()
