"""How the sweep engine scales on a local Dask cluster; writes bench/results/sweep_scaling.json.

    .venv/bin/python -m bench.sweep_scaling            # about a minute
    .venv/bin/python -m bench.sweep_scaling --cells 8  # N of the one-second cells

Three measurements, all with the calibration cell (``experiments.calibration:sleep``, which
measures nothing, so that only the engine is timed):

* **1,000 trivial cells on 2 workers**, end to end through ``run_sweep`` as ``batchlab sweep``
  runs them (cluster start, submission, the journal, results.parquet and provenance.json), and
  the cell phase alone on a running cluster. Target: under 10 s.
* **N one-second cells on 1 and on 2 workers**, the cell phase only (cluster started): once
  with cells that sleep 1 s (the engine's own parallelism: no CPU needed) and once with cells
  that hash for about one CPU-second (what two cores give, so a machine loaded by others shows
  less than 2x here). Target: at least 1.8x faster on 2 workers.
* **Worker memory across 1,000 cells**: each worker's RSS after a warm-up round of 1,000 cells
  and after each of three more rounds of 1,000 on the same cluster. Target: no growth beyond
  noise (a few MiB).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from emulator.sweep.model import CellSpec
from emulator.sweep.runner import connect, results, run_sweep
from emulator.sweep.spec import parse_spec

RESULTS = Path(__file__).resolve().parent / "results"
SPIN_PER_SECOND = 3_000_000  # sha256 rounds of about one CPU-second on the machine it was tuned


def _spec(directory: Path, cells: int, extra: str = "") -> Path:
    path = directory / f"scaling-{cells}.toml"
    path.write_text(
        f'experiment = "sleep"\ntitle = "scaling"\n[grid]\nx = {list(range(cells))}\n{extra}',
        encoding="utf-8",
    )
    return path


def trivial_cells(directory: Path, count: int) -> dict[str, Any]:
    path = _spec(directory, count)
    spec = parse_spec(path.read_text(), path)
    started = time.perf_counter()
    outcome = run_sweep(spec, directory / "trivial", workers=2)
    elapsed = time.perf_counter() - started
    assert outcome.ran == count and outcome.failed == 0
    cells = [CellSpec((("x", i),), 0) for i in range(count)]
    return {
        "cells": count,
        "workers": 2,
        "end_to_end_s": round(elapsed, 2),
        "cells_only_s": round(cell_phase(2, cells), 2),  # without starting the cluster
        "target_s": 10,
    }


def cell_phase(workers: int, cells: list[CellSpec]) -> float:
    with connect(workers, None) as client:
        client.wait_for_workers(workers)
        started = time.perf_counter()
        records = [record for batch in results(client, "sleep", cells) for record in batch]
        elapsed = time.perf_counter() - started
    assert len(records) == len(cells) and all(r.status == "ok" for r in records)
    return elapsed


def speedup(count: int) -> dict[str, Any]:
    report: dict[str, Any] = {"cells": count}
    for kind, fixed in (("sleep_1s", {"seconds": 1.0}), ("cpu_1s", {"work": SPIN_PER_SECOND})):
        cells = [CellSpec(tuple(sorted({"x": i, **fixed}.items())), 0) for i in range(count)]
        one, two = cell_phase(1, cells), cell_phase(2, cells)
        report[kind] = {
            "one_worker_s": round(one, 2),
            "two_workers_s": round(two, 2),
            "speedup": round(one / two, 2),
            "target": 1.8,
        }
    return report


def worker_memory(rounds: int = 3, per_round: int = 1000) -> dict[str, Any]:
    import psutil

    def rss() -> int:
        return int(psutil.Process().memory_info().rss)

    cells = [CellSpec((("x", i),), 0) for i in range(per_round)]
    mib: list[list[float]] = []
    with connect(2, None) as client:
        client.wait_for_workers(2)
        for _ in range(rounds + 1):  # the first round warms up (imports, caches)
            list(results(client, "sleep", cells))
            per_worker = client.run(rss)
            mib.append([round(per_worker[w] / 2**20, 1) for w in sorted(per_worker)])
    growth = max(after - before for before, after in zip(mib[1], mib[-1], strict=True))
    return {
        "cells_per_round": per_round,
        "rss_mib_after_each_round": mib,
        "growth_after_warm_up_mib": round(growth, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=8, help="N of the one-second cells")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        report = {
            "trivial": trivial_cells(Path(temporary), 1000),
            "speedup": speedup(args.cells),
            "worker_memory": worker_memory(),
        }
    print(json.dumps(report, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sweep_scaling.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS / 'sweep_scaling.json'}")


if __name__ == "__main__":
    main()
