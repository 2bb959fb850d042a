"""HiGHS versus GLPK on the OAS MIP (Blanco et al., §3.2 and §4; models.md §4.3): solve time of
the fast (pattern) model and of the literal Fig. 2 model, with a time limit.

    .venv/bin/python -m bench.oas_solvers            # 120 s per solve (~25 min on 2 cores)
    .venv/bin/python -m bench.oas_solvers --quick    # 20 s per solve

Instances, both at η = 50 % of their mean base time on the 3 × 2 test bed (``experiments.oas``),
θ from the best slotted queue-order schedule:

- ``paper-8``: the paper's 8-job batch (``SLOT_WORKLOAD``, solvers/oas/paper.py);
- ``random-16``: ``random_workload(16, count=16)``, 16 jobs drawn like WL-3..WL-6 of §4.2.

Every (instance, model) is solved by HiGHS with the heuristic warm start (what ``solve`` and the
``oas`` policy do), by HiGHS without it, and by GLPK (to which Pyomo passes no MIP start), in that
order, in one process, so that machine load hits all alike. Times: wall seconds of building,
solving and reading the plan, and CPU seconds of this process plus its children (glpsol runs as
a child), which the load of other processes disturbs less. A solve stopped by the limit keeps
its incumbent (if any), bound and gap. Ratios compare the rows of the same run; one side at the
limit makes the ratio a bound (``>=`` / ``<=``). Every plan is checked with ``check_plan``.

Writes bench/results/oas_solvers.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections.abc import Sequence
from pathlib import Path

from experiments.oas import LINKS, SLOT_WORKLOAD, random_workload, testbed
from solvers.oas import OasJob, OasProblem, SolveResult, SolveStatus, check_plan, solve

RESULTS = Path(__file__).resolve().parent / "results"
INSTANCES: dict[str, tuple[OasJob, ...]] = {
    "paper-8": SLOT_WORKLOAD,
    "random-16": random_workload(16, count=16),
}
RUNS = (("highs", True), ("highs", False), ("glpk", False))  # (solver, warm start)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (glpsol)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(
    problem: OasProblem, model: str, solver: str, warm: bool, limit: float
) -> tuple[SolveResult, float]:
    before = cpu_seconds()
    result = solve(
        problem,
        model=model,  # type: ignore[arg-type]
        solver=solver,  # type: ignore[arg-type]
        time_limit=limit,
        warm_start=warm,
    )
    cpu = cpu_seconds() - before
    if result.plan is not None:
        errors = check_plan(problem, result.plan)
        if errors:
            raise AssertionError(f"{model}/{solver}: invalid plan {errors}")
    return result, cpu


def run(limit: float) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name, jobs in INSTANCES.items():
        problem = OasProblem.create(testbed(), LINKS, jobs)
        eta = problem.slot_size
        for model in ("fast", "paper"):
            for solver, warm in RUNS:
                result, cpu = measure(problem, model, solver, warm, limit)
                row: dict[str, object] = {
                    "instance": name,
                    "jobs": len(jobs),
                    "eta_s": round(eta, 4),
                    "theta_slots": problem.slot_count,
                    "model": model,
                    "solver": solver,
                    "warm_start": warm,
                    "status": result.status.value,
                    "makespan_slots": _slots(result.objective, eta),
                    "bound_slots": _slots(result.bound, eta),
                    "gap": None if result.gap is None else round(result.gap, 4),
                    "wall_s": round(result.wall_seconds, 2),
                    "cpu_s": round(cpu, 2),
                    "hit_limit": result.status is not SolveStatus.OPTIMAL
                    and result.status is not SolveStatus.INFEASIBLE,
                }
                rows.append(row)
                print(_line(row), flush=True)
    return rows


def _slots(value: float | None, eta: float) -> int | None:
    return None if value is None else round(value / eta)


def ratios(rows: Sequence[dict[str, object]]) -> list[dict[str, object]]:
    """GLPK / HiGHS (warm and cold) per instance and model, and paper / fast per solver run."""
    index = {(r["instance"], r["model"], r["solver"], r["warm_start"]): r for r in rows}
    out: list[dict[str, object]] = []
    for name in INSTANCES:
        for model in ("fast", "paper"):
            glpk = index[(name, model, "glpk", False)]
            for warm in (True, False):
                highs = index[(name, model, "highs", warm)]
                out.append(
                    _ratio(f"{name} {model}: glpk / highs{'' if warm else ' cold'}", glpk, highs)
                )
        for solver, warm in RUNS:
            paper = index[(name, "paper", solver, warm)]
            fast = index[(name, "fast", solver, warm)]
            label = f"{name} {solver}{'' if warm else ' cold'}: paper / fast"
            out.append(_ratio(label, paper, fast))
    return out


def _ratio(label: str, top: dict[str, object], bottom: dict[str, object]) -> dict[str, object]:
    """cpu(top) / cpu(bottom); a side at the limit makes it a bound, both at it: unknown."""
    value = float(top["cpu_s"]) / max(float(bottom["cpu_s"]), 1e-9)  # type: ignore[arg-type]
    if top["hit_limit"] and bottom["hit_limit"]:
        kind = "both hit the limit"
    elif top["hit_limit"]:
        kind = ">="
    elif bottom["hit_limit"]:
        kind = "<="
    else:
        kind = "="
    return {"ratio": label, "cpu_ratio": round(value, 2), "kind": kind}


def _line(row: dict[str, object]) -> str:
    solver = f"{row['solver']}{'' if row['warm_start'] else ' cold'}"
    gap = "" if row["gap"] is None else f"{100 * float(row['gap']):.1f} %"  # type: ignore[arg-type]
    return (
        f"{row['instance']:10} {row['model']:5} {solver:10} {row['status']:11} "
        f"{row['makespan_slots']!s:>4} {row['bound_slots']!s:>4} {gap:>7} "
        f"{row['wall_s']:>8} {row['cpu_s']:>8}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 s per solve instead of 120 s")
    parser.add_argument("--time-limit", type=float, help="seconds per solve (overrides --quick)")
    args = parser.parse_args()
    limit = args.time_limit or (20.0 if args.quick else 120.0)
    print(f"time limit {limit:g} s per solve")
    print(
        f"{'instance':10} {'model':5} {'solver':10} {'status':11} {'ms':>4} {'lb':>4} "
        f"{'gap':>7} {'wall [s]':>8} {'cpu [s]':>8}"
    )
    rows = run(limit)
    table = ratios(rows)
    print()
    for entry in table:
        print(f"{entry['ratio']:40} {entry['kind']:>2} {entry['cpu_ratio']}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "oas_solvers.json"
    path.write_text(
        json.dumps({"time_limit_s": limit, "runs": rows, "ratios": table}, indent=2) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
