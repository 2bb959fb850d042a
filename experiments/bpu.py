"""The BPU paper's experiment (Kaur et al., IJATCSE 2013, Figs. 7-10): mean response and waiting
time of moldable jobs against service rate, arrival rate, arrival CV and service CV.

One cell replays a workload of :func:`workloads.hyperexp.moldable_jobs` on the platform
``bpu-3sites`` under one variant:

- ``bpu``: the paper's hybrid scheduler (home site first, global FCFS, fastest-first site table,
  best-fit processors, co-allocation);
- ``no-coalloc``: the same without co-allocation (``bpu:coalloc=no``);
- ``local-only``: every job pinned to its home site (``-M``), still placed by best fit, FCFS per
  site: the sites as if they had not joined the multi-cluster (the paper's "feasibility" test).

The paper gives trends, not numbers, nor its platform, sizes or run length; the choices made here
are in docs/experiments/bpu.md and the spec resources/experiments/bpu-sensitivity.toml.
"""

from __future__ import annotations

from collections.abc import Mapping

from emulator.model.platform_file import load_platform
from emulator.replay import replay
from emulator.sweep.experiments import Metrics
from resources import platform_path
from workloads.hyperexp import MoldableWorkload, moldable_jobs

VARIANTS = {"bpu": "bpu", "no-coalloc": "bpu:coalloc=no", "local-only": "bpu"}


def _number(params: Mapping[str, object], name: str, default: float) -> float:
    value = params.get(name, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def sensitivity(params: Mapping[str, object], seed: int) -> Metrics:
    """BPU paper Figs. 7-10: mean response and wait of one variant on one workload point."""
    variant = params.get("variant", "bpu")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    jobs = params.get("jobs", 2000)
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    platform = load_platform(platform_path(str(params.get("platform", "bpu-3sites"))))
    workload = MoldableWorkload(
        tuple(cluster.name for cluster in platform.clusters),
        arrival_mean=3600.0 / _number(params, "arrival_rate_per_h", 45.0),
        arrival_cv=_number(params, "arrival_cv", 1.0),
        service_mean=3600.0 / _number(params, "service_rate_per_h", 6.0),
        service_cv=_number(params, "service_cv", 1.0),
        bpu_low=int(_number(params, "bpu_low", 1)),
        bpu_high=int(_number(params, "bpu_high", 16)),
        pin_home=variant == "local-only",
    )
    submissions = list(moldable_jobs(workload, jobs, seed))
    result = replay(submissions, platform, VARIANTS[str(variant)], with_nodes=True)
    summary = result.summary
    recorder = result.recorder
    placed = recorder.nodes or []
    metrics: Metrics = {
        "mean_response_s": summary.mean_response,
        "mean_wait_s": summary.mean_wait,
        "utilization": summary.utilization,
        "co_allocated_share": sum(1 for _, c in placed if "+" in c) / max(1, len(placed)),
    }
    # the paper's feasibility test is per site: each home site's mean response
    home = {item.job_id: item.request.origin for item in submissions}
    totals: dict[str, list[float]] = {site: [0.0, 0.0] for site in workload.sites}
    for job_id, submit, end in zip(recorder.ids, recorder.submit, recorder.end, strict=True):
        total = totals[home[job_id]]
        total[0] += end - submit
        total[1] += 1
    for site, (response, count) in totals.items():
        metrics[f"response_{site}_s"] = response / count if count else float("nan")
    return metrics
