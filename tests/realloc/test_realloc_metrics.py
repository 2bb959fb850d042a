"""The paper's four paired metrics (§3.4) on a case computed by hand, and the multi-trace
workload helper on tiny SWF files."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from emulator.sweep.spec import load_spec
from experiments.realloc import paired_metrics, reallocation
from resources import experiment_spec_path
from workloads.multi_trace import TraceWindow, multi_trace
from workloads.swf import Dropped


def test_the_four_metrics_by_hand() -> None:
    reference = {1: (0.0, 100.0), 2: (0.0, 200.0), 3: (10.0, 300.0), 4: (20.0, 50.0)}
    moved = {1: (0.0, 100.0), 2: (0.0, 150.0), 3: (10.0, 400.0), 4: (20.0, 40.0)}
    metrics = paired_metrics(reference, moved, reallocations=2)
    assert metrics.jobs == 4
    assert metrics.changed_percent == 75.0  # jobs 2, 3, 4
    assert metrics.reallocations == 2
    assert metrics.earlier_percent == pytest.approx(200 / 3)  # jobs 2 and 4
    # changed jobs' responses: (150 + 390 + 20) / (200 + 290 + 30)
    assert metrics.relative_response == pytest.approx(560 / 520)


def test_nothing_changed() -> None:
    table = {1: (0.0, 10.0)}
    metrics = paired_metrics(table, dict(table), reallocations=0)
    assert metrics.changed_percent == 0.0
    assert math.isnan(metrics.earlier_percent) and math.isnan(metrics.relative_response)


def test_different_jobs_are_refused() -> None:
    with pytest.raises(ValueError, match=r"not hold the same jobs \(e.g. ids \[2\]\)"):
        paired_metrics({1: (0.0, 1.0), 2: (0.0, 1.0)}, {1: (0.0, 1.0)}, 0)


def swf(path: Path, jobs: list[tuple[int, int, int, int]]) -> Path:
    """(id, submit, run time, processors) lines; requested time = 2 x run time, user 7."""
    lines = [
        f"{i} {at} 0 {run} {size} -1 -1 {size} {2 * run} -1 1 7 -1 -1 -1 -1 -1 -1"
        for i, at, run, size in jobs
    ]
    path.write_text("; tiny\n" + "\n".join(lines) + "\n")
    return path


def test_multi_trace_windows_aligns_merges_and_renumbers(tmp_path: Path) -> None:
    first = swf(tmp_path / "a.swf", [(10, 1000, 5, 1), (11, 1050, 5, 2), (12, 1200, 5, 1)])
    second = swf(tmp_path / "b.swf", [(3, 500, 7, 4), (4, 520, 7, 9), (5, 600, 7, 1)])
    dropped = Dropped()
    jobs = multi_trace(
        [TraceWindow(first, skip=40, window=200), TraceWindow(second, window=100)], 8, dropped
    )
    # a: 1050 -> 10, 1200 -> 160 (1000 is before the window); b: 500 -> 0, 600 is past it,
    # 520 has 9 processors, more than 8
    assert [(j.job_id, j.submit, j.request.tasks, j.request.user) for j in jobs] == [
        (1, 0.0, 4, "t1u7"),
        (2, 10.0, 2, "t0u7"),
        (3, 160.0, 1, "t0u7"),
    ]
    assert [j.runtime for j in jobs] == [7, 5, 5] and jobs[0].request.time_limit == 14
    assert dropped.too_large == 1


def test_a_bad_window_is_refused(tmp_path: Path) -> None:
    trace = swf(tmp_path / "a.swf", [(1, 0, 5, 1)])
    with pytest.raises(ValueError, match=r"a\.swf: skip must be >= 0 and window > 0"):
        multi_trace([TraceWindow(trace, window=0)], 8)


def test_the_campaign_spec_has_the_papers_grid_and_a_quick_subset() -> None:
    spec = load_spec(experiment_spec_path("realloc"))
    assert spec.experiment == "reallocation"
    assert len(spec.cells()) == 4 * 2 * 2 * 2 * 6
    assert len(spec.cells(quick=True)) == 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"local": "easy"}, "local must be fcfs or cbf"),
        ({"algo": 3}, "algo must be 1 or 2"),
        ({"scenario": "month-9"}, "unknown scenario 'month-9'"),
        ({"platform": "fast"}, "platform must be homogeneous or heterogeneous"),
    ],
)
def test_the_cell_refuses_bad_parameters(change: dict[str, object], message: str) -> None:
    params: dict[str, object] = {
        "scenario": "month-1",
        "platform": "homogeneous",
        "local": "fcfs",
        "algo": 1,
        "heuristic": "minmin",
    }
    with pytest.raises(ValueError, match=message):
        reallocation({**params, **change}, 0)
