"""The eight broker strategies online on a real platform with a real trace (brokers paper, §4's
"simulations are planned ... on real workloads"; issue 16 item 5; docs/experiments/brokers.md).

The paper analyses the batch model only. Here jobs arrive at their trace submit times and each is
routed when it arrives, as the policies do by default; the local policy is LSF unless ``local``
says otherwise. Trace jobs become submissions by ``workloads.swf.submissions`` (the rules of
``batchlab replay``), their estimates the trace's requested times, so MLB and MCT plan with what
users asked for, not with what ran.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from pathlib import Path

from emulator.model.platform_file import load_platform
from emulator.replay import replay
from experiments.brokers import Metrics, integer, scheduler, text
from resources import platform_path
from workloads.swf import Dropped, SwfTrace, submissions

SHARED_TRACES = Path("shared") / "traces"


def trace_path(name: str) -> Path:
    """``name`` as given if it exists, else ``shared/traces/NAME`` beside the repository or one
    of its parents (where the project's shared traces live, in CI too)."""
    given = Path(name)
    if given.exists():
        return given
    here = Path(__file__).resolve()
    looked = [here.parents[level] / SHARED_TRACES / name for level in range(1, len(here.parents))]
    found = next((path for path in looked if path.exists()), None)
    if found is None:
        raise ValueError(f"trace {name!r} not found, nor in any shared/traces above {here.parent}")
    return found


def online(params: Mapping[str, object], seed: int) -> Metrics:
    """A broker strategy online on a shipped platform replaying a real SWF trace.

    Parameters: ``strategy``, ``platform`` (a shipped platform name, e.g. ``g5k-3sites``),
    ``trace`` (a path, or a file name in ``shared/traces``), ``jobs`` (the first N jobs of the
    trace, 0 = all), ``local``. Jobs larger than every site are dropped before the replay
    (``dropped``); jobs the broker rejects count as ``rejected``. The seed is not used.
    """
    spec = scheduler(params)
    try:
        platform = load_platform(platform_path(text(params, "platform")))
    except FileNotFoundError as error:
        raise ValueError(str(error)) from None
    path = trace_path(text(params, "trace"))
    count = integer(params, "jobs", 0)
    dropped = Dropped()
    largest = max(cluster.cores for cluster in platform.clusters)
    records = SwfTrace(path)
    trace = submissions(islice(records, count) if count else records, largest, dropped)
    summary = replay(trace, platform, spec, dropped=lambda: dropped.total).summary
    return {
        "replayed": summary.jobs,
        "dropped": summary.dropped,
        "rejected": summary.failed,
        "mean_wait_s": summary.mean_wait,
        "max_wait_s": summary.max_wait,
        "mean_bounded_slowdown": summary.mean_bounded_slowdown,
        "makespan_s": summary.makespan,
        "utilization": summary.utilization,
    }
