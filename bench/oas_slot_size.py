"""The slot-size study of the OAS paper (Blanco et al., §4.1, Fig. 3): makespan and solve time of
OAS as the slot size η grows from 15 % to 250 % of the mean base time.

    .venv/bin/python -m bench.oas_slot_size                  # ~10 min on 2 cores
    .venv/bin/python -m bench.oas_slot_size --time-limit 20  # quicker, more limits hit

Platform and workload: ``bench.oas_common`` (3 × 2 nodes, Γ = 1.0 / 0.75 / 0.5, Gigabit links;
the 8-job ``SLOT_WORKLOAD``, mean base time 86.25 s). For every η the fast (pattern) model is
solved with HiGHS under a time limit; a solve stopped by the limit is recorded with its status,
bound and gap. The literal Fig. 2 model is solved too, from the largest η down, until it first
fails to finish within the limit, to show that both formulations agree where both finish.

Writes bench/results/oas_slot_size.csv and docs/figures/oas-slot-size.png.
"""

from __future__ import annotations

import argparse

from bench.oas_common import (
    FIGURES,
    LINKS,
    RESULTS,
    SLOT_WORKLOAD,
    Chart,
    Series,
    mean_base_time,
    render_chart,
    testbed,
    write_csv,
)
from solvers.common.orders import QueueOrder
from solvers.oas import OasProblem, SolveStatus, check_plan, list_schedule, solve

PERCENTS = (15, 25, 50, 75, 100, 150, 200, 250)


def run(time_limit: float) -> list[dict[str, object]]:
    """One row per (η, model) solved; prints each as it finishes."""
    mean = mean_base_time(SLOT_WORKLOAD)
    best_heuristic = min(
        list_schedule(_problem(mean), order).makespan for order in QueueOrder
    )  # continuous time, independent of η
    rows: list[dict[str, object]] = []
    paper_done = False
    for percent in sorted(PERCENTS, reverse=True):
        problem = _problem(mean * percent / 100)
        models = ["fast"] if paper_done else ["fast", "paper"]
        for model in models:
            result = solve(problem, model=model, time_limit=time_limit)  # type: ignore[arg-type]
            if result.plan is not None:
                problems = check_plan(problem, result.plan)
                if problems:
                    raise AssertionError(f"{model} η={percent}%: invalid plan {problems}")
            if model == "paper" and result.status is not SolveStatus.OPTIMAL:
                paper_done = True  # smaller slots only get harder for the literal model
            row = {
                "eta_percent": percent,
                "eta_s": round(problem.slot_size, 4),
                "theta_slots": problem.slot_count,
                "model": model,
                "status": result.status.value,
                "makespan_slots": _slots(result.objective, problem.slot_size),
                "makespan_s": _round(result.objective),
                "bound_s": _round(result.bound),
                "gap": _round(result.gap),
                "solve_s": round(result.wall_seconds, 2),
                "best_heuristic_s": round(best_heuristic, 2),
            }
            rows.append(row)
            print(row, flush=True)
    return sorted(rows, key=lambda r: (int(str(r["eta_percent"])), str(r["model"])))


def _problem(slot_size: float) -> OasProblem:
    return OasProblem.create(testbed(), LINKS, SLOT_WORKLOAD, slot_size=slot_size)


def _slots(value: float | None, eta: float) -> int | None:
    return None if value is None else round(value / eta)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def chart(rows: list[dict[str, object]]) -> Chart:
    """Fig. 3: makespan (left axis) and solve time (right axis, log) per slot size."""

    def column(model: str, key: str) -> tuple[float | None, ...]:
        by_percent = {r["eta_percent"]: r[key] for r in rows if r["model"] == model}
        values = (by_percent.get(p) for p in PERCENTS)
        return tuple(None if v is None else float(str(v)) for v in values)

    return Chart(
        title="OAS slot size: makespan and solve time (8 jobs, 3×2 nodes)",
        categories=tuple(f"{p}%" for p in PERCENTS),
        series=(
            Series("makespan, fast model [s]", column("fast", "makespan_s"), "#1f77b4"),
            Series("makespan, paper model [s]", column("paper", "makespan_s"), "#2ca02c"),
            Series("solve time, fast model [s]", column("fast", "solve_s"), "#d62728", axis=1),
            Series("solve time, paper model [s]", column("paper", "solve_s"), "#ff7f0e", axis=1),
        ),
        axis_labels=("makespan [s]", "solve time [s] (log)"),
        x_label="slot size η (% of the mean base time)",
        log_right=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    args = parser.parse_args()
    rows = run(args.time_limit)
    write_csv(RESULTS / "oas_slot_size.csv", rows)
    render_chart(chart(rows), FIGURES / "oas-slot-size.png")  # Qt only after every solve
    print(f"wrote {RESULTS / 'oas_slot_size.csv'} and {FIGURES / 'oas-slot-size.png'}")


if __name__ == "__main__":
    main()
