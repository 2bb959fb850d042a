"""The reallocation paper's experiment (Caniou, Charrier, Desprez, *Analysis of Tasks
Reallocation in a Dedicated Grid Environment*, §3–4; models.md §4.6): each cell replays one
scenario on one platform with reallocation and pairs it with the same run without (``mct``
over the same local policy), reporting the paper's four metrics (§3.4).

Scenarios stand in for the paper's, whose Grid'5000 2008 logs and full CTC/SDSC logs we do not
have (docs/experiments/reallocation.md says what that changes): ``month-1`` .. ``month-3`` put
one month of UniLu Gaia (an OAR cluster, as Grid'5000's sites) on the first cluster, the same
month of KTH-SP2 on the second and of NASA-iPSC on the third; ``pwa`` puts 58 days of Gaia,
KTH-SP2 and the first SDSC-SP2 jobs on Bordeaux, CTC and SDSC (the paper's seventh scenario
mixes six months of Bordeaux, CTC and SDSC).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

import resources
from emulator.model.job import Submission
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from emulator.replay import replay
from emulator.sweep.experiments import Metrics
from workloads.multi_trace import TraceWindow, multi_trace

MONTH = 30 * 86400.0
GAIA, KTH = "UniLu-Gaia-2014-1.swf.gz", "KTH-SP2-1996-2.1-cln.swf"
NASA, SDSC = "NASA-iPSC-1993-3.1-cln.swf.gz", "SDSC-SP2-1998-first-4961-jobs.swf"
PLATFORMS = {
    ("g5k", "homogeneous"): "g5k-3sites-homogeneous",
    ("g5k", "heterogeneous"): "g5k-3sites",
    ("pwa", "homogeneous"): "pwa-g5k-homogeneous",
    ("pwa", "heterogeneous"): "pwa-g5k",
}


@dataclass(frozen=True, slots=True)
class PairedMetrics:
    """The paper's four metrics (§3.4), each against the run without reallocation."""

    jobs: int  # jobs in both runs
    changed_percent: float  # jobs whose completion time changed
    reallocations: int  # moves, a job counted once per move
    earlier_percent: float  # of the changed jobs, those finishing earlier (nan: none changed)
    relative_response: float  # mean response time of the changed jobs, with / without (nan)


def paired_metrics(
    reference: Mapping[int, tuple[float, float]],
    reallocated: Mapping[int, tuple[float, float]],
    reallocations: int,
) -> PairedMetrics:
    """The four metrics from two jobs tables, ``job id -> (submit, end)``, of the same jobs."""
    if reference.keys() != reallocated.keys():
        missing = sorted(reference.keys() ^ reallocated.keys())[:5]
        raise ValueError(f"the two runs do not hold the same jobs (e.g. ids {missing})")
    changed = [i for i, (_, end) in reference.items() if reallocated[i][1] != end]
    if not changed:
        return PairedMetrics(len(reference), 0.0, reallocations, math.nan, math.nan)
    earlier = sum(1 for i in changed if reallocated[i][1] < reference[i][1])
    before = sum(reference[i][1] - reference[i][0] for i in changed)
    after = sum(reallocated[i][1] - reallocated[i][0] for i in changed)
    return PairedMetrics(
        len(reference),
        100.0 * len(changed) / len(reference),
        reallocations,
        100.0 * earlier / len(changed),
        after / before if before > 0 else math.nan,
    )


def traces_dir() -> Path:
    """``$BATCHLAB_TRACES``, else the first ``shared/traces`` above this file (the traces are
    not shipped: see ../shared/traces/README.md)."""
    given = os.environ.get("BATCHLAB_TRACES")
    if given:
        return Path(given)
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "traces").is_dir():
            return parent / "shared" / "traces"
    raise ValueError("no shared/traces directory found: set BATCHLAB_TRACES")


def scenario(name: str, platform: Platform) -> list[Submission]:
    """The scenario's submissions (jobs larger than every cluster left out)."""
    largest = max(cluster.cores for cluster in platform.clusters)
    if name.startswith("month-") and name[6:].isdecimal() and 1 <= int(name[6:]) <= 3:
        skip, window, traces = (int(name[6:]) - 1) * MONTH, MONTH, (GAIA, KTH, NASA)
    elif name == "pwa":
        skip, window, traces = 0.0, 58 * 86400.0, (GAIA, KTH, SDSC)
    else:
        raise ValueError(f"unknown scenario {name!r} (month-1, month-2, month-3, pwa)")
    folder = traces_dir()
    return multi_trace([TraceWindow(folder / trace, skip, window) for trace in traces], largest)


@cache
def _platform(scenario_name: str, speeds: str) -> Platform:
    family = "pwa" if scenario_name == "pwa" else "g5k"
    name = PLATFORMS.get((family, speeds))
    if name is None:
        raise ValueError(f"platform must be homogeneous or heterogeneous, not {speeds!r}")
    return load_platform(resources.platform_path(name))


def _run(
    scenario_name: str, speeds: str, scheduler: str
) -> tuple[dict[int, tuple[float, float]], int]:
    """One replay's jobs table and reallocation count."""
    platform = _platform(scenario_name, speeds)
    result = replay(scenario(scenario_name, platform), platform, scheduler)
    recorder = result.recorder
    table = {
        int(i): (s, e) for i, s, e in zip(recorder.ids, recorder.submit, recorder.end, strict=True)
    }
    moves = sum(len(left) for left in recorder.moved.values())
    return table, moves


@cache
def _reference(scenario_name: str, speeds: str, local: str) -> dict[int, tuple[float, float]]:
    """The run without reallocation, shared by the cells a worker runs on the same scenario."""
    return _run(scenario_name, speeds, f"mct+{local}")[0]


def reallocation(params: Mapping[str, object], seed: int) -> Metrics:
    """Reallocation vs none: changed jobs, moves, early jobs, relative response (Caniou et al.)."""
    del seed  # the replay is deterministic
    name, speeds, local = params.get("scenario"), params.get("platform"), params.get("local")
    algo, heuristic = params.get("algo"), params.get("heuristic")
    if local not in ("fcfs", "cbf"):
        raise ValueError(f"local must be fcfs or cbf, not {local!r}")
    if algo not in (1, 2):
        raise ValueError(f"algo must be 1 or 2, not {algo!r}")
    if not isinstance(name, str) or not isinstance(speeds, str) or not isinstance(heuristic, str):
        raise ValueError("scenario, platform and heuristic must be strings")
    reference = _reference(name, speeds, local)
    spec = f"realloc:algo={algo},heuristic={heuristic}+{local}"
    reallocated, moves = _run(name, speeds, spec)
    metrics = paired_metrics(reference, reallocated, moves)
    response = np.array([end - submit for submit, end in reference.values()])
    return {
        "jobs": metrics.jobs,
        "changed_percent": metrics.changed_percent,
        "reallocations": metrics.reallocations,
        "earlier_percent": metrics.earlier_percent,
        "relative_response": metrics.relative_response,
        "reference_mean_response_s": float(response.mean()) if len(response) else math.nan,
    }
