"""Before/after timing of the OAS fast model (Blanco et al., §3.2; models.md §4.3), in one run.

    .venv/bin/python -m bench.oas_fast_model_speed                # baseline: git HEAD
    .venv/bin/python -m bench.oas_fast_model_speed --baseline-rev <rev> --repeat 2

The baseline ``solvers/oas/fast_model.py`` is read with ``git show REV:...`` and imported as a
separate module; both versions build and solve (HiGHS, warm start from the best slotted
heuristic, as ``solve.solve`` does) the same instances, interleaved, so machine load hits both
alike. Besides wall time it prints HiGHS's node and simplex-iteration counts, which do not
depend on the load. Instances: the tests' ``EIGHT`` batch (= ``SLOT_WORKLOAD``) and the random
workloads WL-3..WL-6 and WL-2 of ``experiments.oas``, all with η = 50 % of mean Tb.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from experiments.oas import LINKS, SLOT_WORKLOAD, random_workload, testbed
from solvers.oas import OasJob, OasProblem
from solvers.oas import fast_model as current
from solvers.oas.solve import _mip_start

ROOT = Path(__file__).resolve().parents[1]
INSTANCES: dict[str, tuple[OasJob, ...]] = {
    "EIGHT": SLOT_WORKLOAD,
    **{f"WL-{n}": random_workload(n) for n in (3, 4, 5, 6, 10)},
}


def baseline(rev: str) -> ModuleType:
    """``solvers/oas/fast_model.py`` as of ``rev``, imported under another name."""
    source = subprocess.run(
        ["git", "show", f"{rev}:solvers/oas/fast_model.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp(prefix="oas-baseline-")) / "fast_model_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("fast_model_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def measure(module: Any, problem: OasProblem, time_limit: float) -> dict[str, object]:
    """Build, warm-start and solve with HiGHS; wall seconds of the build and of everything."""
    from pyomo.contrib.appsi.solvers.highs import Highs

    started = time.perf_counter()
    model = module.build_fast_model(problem)
    built = time.perf_counter() - started
    start = _mip_start(problem)
    if start is not None:
        module.load_fast_plan(problem, model, start)
    opt = Highs()
    opt.config.time_limit = time_limit
    opt.config.load_solution = False
    opt.config.warmstart = start is not None
    results = opt.solve(model)
    info = opt._solver_model.getInfo()
    return {
        "total_s": round(time.perf_counter() - started, 2),
        "build_s": round(built, 3),
        "status": str(results.termination_condition).rsplit(".", 1)[-1],
        "makespan_slots": results.best_feasible_objective,
        "bound_slots": round(results.best_objective_bound, 2),
        "nodes": info.mip_node_count,
        "lp_iterations": info.simplex_iteration_count,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-rev", default="HEAD")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    before = baseline(args.baseline_rev)
    for name, jobs in INSTANCES.items():
        problem = OasProblem.create(testbed(), LINKS, jobs)
        for _ in range(args.repeat):
            for label, module in (("before", before), ("after", current)):
                row = measure(module, problem, args.time_limit)
                print(f"{name:6} {label:6} {row}", flush=True)


if __name__ == "__main__":
    main()
