"""Schedule metrics, shared by replay, the daemon and the GUI.

Computed with numpy over columns (submit, start, end, cores) so a million-job replay summarises in
milliseconds. Jobs that never started (rejected) count in ``jobs`` but not in the time metrics.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

BOUND = 10.0  # seconds: the usual threshold of bounded slowdown (Feitelson et al.)

Column = npt.ArrayLike


@dataclass(frozen=True, slots=True)
class Summary:
    jobs: int
    dropped: int
    makespan: float
    utilization: float
    mean_wait: float
    max_wait: float
    mean_bounded_slowdown: float
    mean_response: float
    timeouts: int
    failed: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def bounded_slowdown(
    wait: npt.NDArray[np.float64], run: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """``max(1, (wait + run) / max(run, BOUND))`` per job."""
    result: npt.NDArray[np.float64] = np.maximum((wait + run) / np.maximum(run, BOUND), 1.0)
    return result


def summarize(
    submit: Column,
    start: Column,
    end: Column,
    cores: Column,
    capacity: int,
    *,
    dropped: int = 0,
    timeouts: int = 0,
) -> Summary:
    """Summary of a schedule; ``capacity`` is the platform's core count."""
    submit_a = np.asarray(submit, dtype=np.float64)
    start_a = np.asarray(start, dtype=np.float64)
    end_a = np.asarray(end, dtype=np.float64)
    cores_a = np.asarray(cores, dtype=np.float64)
    ran = ~np.isnan(start_a)
    jobs = int(submit_a.size)
    if not ran.any():
        return Summary(jobs, dropped, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, timeouts, jobs)
    s, b, e, c = submit_a[ran], start_a[ran], end_a[ran], cores_a[ran]
    wait, run = b - s, e - b
    makespan = float(e.max() - submit_a.min())
    # not np.dot: OpenBLAS would wake its threads, which then spin for a while on the other core
    area = float((c * run).sum())
    utilization = area / (capacity * makespan) if makespan > 0 else 0.0
    return Summary(
        jobs=jobs,
        dropped=dropped,
        makespan=makespan,
        utilization=utilization,
        mean_wait=float(wait.mean()),
        max_wait=float(wait.max()),
        mean_bounded_slowdown=float(bounded_slowdown(wait, run).mean()),
        mean_response=float((e - s).mean()),
        timeouts=timeouts,
        failed=jobs - int(ran.sum()),
    )


def round_floats(data: dict[str, Any], digits: int = 6) -> dict[str, Any]:
    """Stable JSON: floats rounded so byte-identical runs print byte-identical files."""
    return {
        k: (round(v, digits) if isinstance(v, float) and math.isfinite(v) else v)
        for k, v in data.items()
    }


@dataclass(frozen=True, slots=True)
class LinkUsage:
    """How one inter-cluster link was used over ``[start, end]``."""

    capacity: float
    mean_used: float  # time-averaged bandwidth in use
    peak_used: float
    saturated_fraction: float  # share of the time demand exceeded capacity

    def as_dict(self) -> dict[str, Any]:
        return round_floats(asdict(self))


def link_usage(
    history: list[tuple[float, float]], capacity: float, start: float, end: float
) -> LinkUsage:
    """Summarise a link's load history: ``(time, used)`` steps, each holding until the next."""
    if end <= start:
        return LinkUsage(capacity, 0.0, 0.0, 0.0)
    area = saturated = peak = 0.0
    for (time, used), (following, _) in zip(history, [*history[1:], (end, 0.0)], strict=True):
        low, high = max(time, start), min(following, end)
        if high <= low:
            continue
        area += used * (high - low)
        peak = max(peak, used)
        if used > capacity:
            saturated += high - low
    span = end - start
    return LinkUsage(capacity, area / span, peak, saturated / span)
