"""The generic replay experiment: a local policy replays a window of a real SWF trace on a
single cluster (spec resources/experiments/local-policies.toml).

Policies are found by their scheduler spec (``fcfs``, ``easy``, ``cbf``, ``lsf``, or any
registered one) and run by ``emulator.replay.replay``, the replay ``batchlab replay`` uses, so a
cell's numbers are that command's numbers on the same window.

Choices made here: the platform is ``cores_percent`` % of the trace's MaxProcs single-core nodes
(100 % is the machine that produced the trace; larger platforms lower the load); the seed picks
the window (jobs ``seed × window_jobs`` up to the next window), so the seeds of a spec are
disjoint stretches of the trace and the report's confidence intervals are over stretches of
real load, each replayed from an empty machine; ``window_jobs = 0`` replays the whole trace
(seed 0 only). Traces are found by file stem: first the ones shipped in
``resources/workloads/``, then in the folders of ``BATCHLAB_TRACES`` (``:``-separated; by
default ``../shared/traces`` beside the checkout, where the full archive traces live).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from pathlib import Path

import resources
from emulator.api.registry import parse_spec
from emulator.model.platform import Platform
from emulator.replay import replay
from emulator.sweep.experiments import Metrics
from workloads.swf import Dropped, SwfTrace, submissions

SHIPPED = Path(resources.__file__).resolve().parent / "workloads"
DEFAULT_TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
SUFFIXES = (".swf", ".swf.gz")


def find_trace(stem: str) -> Path:
    """The trace file called ``stem`` + .swf or .swf.gz (see the module doc for where)."""
    folders = [SHIPPED]
    configured = os.environ.get("BATCHLAB_TRACES")
    folders += [Path(p) for p in configured.split(":") if p] if configured else [DEFAULT_TRACES]
    for folder in folders:
        for suffix in SUFFIXES:
            candidate = folder / (stem + suffix)
            if candidate.is_file():
                return candidate
    where = ", ".join(str(f) for f in folders)
    raise FileNotFoundError(f"no trace {stem!r} (.swf or .swf.gz) in {where}; set BATCHLAB_TRACES")


def replay_window(params: Mapping[str, object], seed: int) -> Metrics:
    """A local policy replaying a window of a real SWF trace: waits, slowdown, utilization.

    Parameters: ``policy`` (a scheduler spec), ``trace`` (a file stem), ``cores_percent``
    (platform size, % of the trace's MaxProcs), ``window_jobs`` (jobs per window, 0: all).
    """
    policy = parse_spec(str(params.get("policy")))
    trace = SwfTrace(find_trace(str(params.get("trace"))))
    percent = params.get("cores_percent", 100)
    window = params.get("window_jobs", 0)
    if isinstance(percent, bool) or not isinstance(percent, int | float) or percent <= 0:
        raise ValueError(f"cores_percent must be a positive number, got {percent!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ValueError(f"window_jobs must be a non-negative integer, got {window!r}")
    if window == 0 and seed != 0:
        raise ValueError("window_jobs = 0 replays the whole trace: use seed 0 only")
    if trace.header.max_procs is None:
        raise ValueError(f"{trace.path}: no MaxProcs header to size the platform from")
    cores = max(1, round(trace.header.max_procs * percent / 100))
    records = iter(trace) if window == 0 else itertools.islice(trace, seed * window, None)
    chosen = list(records if window == 0 else itertools.islice(records, window))
    if window and len(chosen) < window:
        raise ValueError(f"{trace.path.name} has no full window {seed} of {window} jobs")
    dropped = Dropped()
    result = replay(
        submissions(chosen, cores, dropped),
        Platform.single_cluster(cores),
        policy,
        dropped=lambda: dropped.total,
    )
    summary = result.summary
    return {
        "cores": cores,
        "first_job": int(chosen[0].job_id),
        "jobs": summary.jobs,
        "dropped": summary.dropped,
        "makespan": summary.makespan,
        "utilization": summary.utilization,
        "mean_wait": summary.mean_wait,
        "max_wait": summary.max_wait,
        "mean_bounded_slowdown": summary.mean_bounded_slowdown,
        "mean_response": summary.mean_response,
    }
