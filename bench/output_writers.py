"""Replay output: rows per CPU-second written to jobs.csv and schedule.swf; writes
bench/results/output_writers.json.

    BATCHLAB_TRACES=/work/shared/traces .venv/bin/python -m bench.output_writers

The KTH-SP2 log (28,476 jobs) is replayed once under FCFS on its 100 cores; then, best of three:
its jobs.csv from the recorder, its schedule.swf from the trace's records held in memory (the
writing alone) and from the trace file (reading it again, as ``batchlab replay`` does). The
``x10`` rows repeat the log ten times under new job ids, for a steady state. The ``fractional``
rows give every time a fraction, the worst case (those values are formatted one by one in
Python; whole ones a column at a time). The ``extended`` row writes each record with three
more fields, as a replay of Alea's extended SWF does (the tails held in memory).
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from emulator.model.platform import Platform
from emulator.replay import Recorder, replay
from experiments.local_policies import find_trace
from workloads.swf import Dropped, Replayed, SwfTrace, submissions, write_swf

RESULTS = Path(__file__).resolve().parent / "results"


def best(runs: int, work: Callable[[], object]) -> float:
    seconds = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        seconds = min(seconds, time.process_time() - started)
    return seconds


def repeated(recorder: Recorder, times: int, fraction: float) -> Recorder:
    """The recorder's jobs ``times`` over under new ids, each time shifted by ``fraction``."""
    copy = Recorder(recorder.platform)
    ids, submit, start, end = recorder.ids, recorder.submit, recorder.start, recorder.end
    cluster, cores, state = recorder.cluster, recorder.cores, recorder.state
    step = max(ids) + 1
    for k in range(times):
        copy._columns[0].extend(i + k * step for i in ids)
        for column, values in zip(copy._columns[1:4], (submit, start, end), strict=True):
            column.extend(v + fraction for v in values)
        for column, values in zip(copy._columns[4:], (cluster, cores, state), strict=True):
            column.extend(values)
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    trace = SwfTrace(find_trace("KTH-SP2-1996-2.1-cln"))
    records = list(trace)
    result = replay(submissions(records, 100, Dropped()), Platform.single_cluster(100), "fcfs")
    rows: list[dict[str, object]] = []

    def measure(name: str, count: int, work: Callable[[], object]) -> None:
        seconds = best(args.runs, work)
        rows.append(
            {
                "case": name,
                "rows": count,
                "seconds": round(seconds, 4),
                "rows_per_s": round(count / seconds),
            }
        )
        print(f"{name:34} {count:>8} rows {seconds:7.3f} s {count / seconds:>12,.0f} rows/s")

    out = RESULTS / "schedule.swf"
    RESULTS.mkdir(parents=True, exist_ok=True)
    step = max(r.job_id for r in records) + 1
    many = [r._replace(job_id=r.job_id + k * step) for k in range(10) for r in records]
    for label, fraction in (("", 0.0), (" fractional", 0.25)):
        one, ten = repeated(result.recorder, 1, fraction), repeated(result.recorder, 10, fraction)
        one_times, ten_times = Replayed(*one.times_by_id()), Replayed(*ten.times_by_id())
        measure(f"jobs.csv{label}", len(one), partial(one.write_jobs_csv, io.StringIO()))
        measure(f"jobs.csv x10{label}", len(ten), partial(ten.write_jobs_csv, io.StringIO()))
        swf = partial(write_swf, out, trace.header)
        measure(f"schedule.swf{label}", len(records), partial(swf, records, one_times))
        measure(f"schedule.swf x10{label}", len(many), partial(swf, many, ten_times))
    times = Replayed(*result.recorder.times_by_id())
    measure("schedule.swf, reading the trace", len(records), partial(swf, trace, times))
    # an extended trace (Alea's 21 fields): each line ends with the fields past the 18th
    tails = ["-1 normal 1:ppn=1:cl_kth"] * len(records)
    measure("schedule.swf extended", len(records), partial(swf, records, times, tails))
    out.unlink()
    (RESULTS / "output_writers.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
