"""Schedule metrics (emulator/metrics.py) on hand-computed schedules."""

from __future__ import annotations

import math
from array import array

import numpy as np
import pytest

from emulator.metrics import BOUND, Summary, bounded_slowdown, round_floats, summarize

NAN = math.nan


def test_bound_is_ten_seconds() -> None:
    assert BOUND == 10.0


@pytest.mark.parametrize(
    ("wait", "run", "expected"),
    [
        (0, 100, 1.0),  # no wait: 1
        (100, 50, 3.0),  # (100 + 50) / 50
        (30, 10, 4.0),  # run exactly at the bound
        (20, 5, 2.5),  # short job: (20 + 5) / 10, not 25 / 5 = 5
        (0, 5, 1.0),  # (0 + 5) / 10 = 0.5, raised to 1
        (6, 4, 1.0),  # (6 + 4) / 10 = 1
        (16, 4, 2.0),  # (16 + 4) / 10
        (0, 0, 1.0),  # a zero-length job
        (45, 15, 4.0),
        (1, 99, 1.0 + 1 / 99),
    ],
)
def test_bounded_slowdown_values(wait: float, run: float, expected: float) -> None:
    result = bounded_slowdown(np.array([wait], dtype=float), np.array([run], dtype=float))
    assert result.tolist() == [pytest.approx(expected, abs=1e-12)]


def test_bounded_slowdown_is_elementwise() -> None:
    wait = np.array([0.0, 100.0, 20.0, 0.0, 130.0])
    run = np.array([100.0, 50.0, 5.0, 5.0, 60.0])
    assert bounded_slowdown(wait, run).tolist() == pytest.approx([1.0, 3.0, 2.5, 1.0, 190 / 60])


def test_summarize_three_jobs() -> None:
    # job  submit start end  cores  wait run  slowdown
    #  a     0      0    20    2      0   20   20/20 = 1
    #  b     5     20    50    4     15   30   45/30 = 1.5
    #  c    10     26    30    1     16    4   20/10 = 2 (bounded: run 4 < 10 s)
    summary = summarize([0, 5, 10], [0, 20, 26], [20, 50, 30], [2, 4, 1], 4)
    assert summary.jobs == 3
    assert summary.dropped == 0
    assert summary.makespan == 50.0  # last end 50 - first submit 0
    assert summary.utilization == pytest.approx((40 + 120 + 4) / (4 * 50))  # 0.82
    assert summary.mean_wait == pytest.approx(31 / 3)
    assert summary.max_wait == 16.0
    assert summary.mean_bounded_slowdown == pytest.approx(4.5 / 3)
    assert summary.mean_response == pytest.approx((20 + 45 + 20) / 3)
    assert summary.timeouts == 0
    assert summary.failed == 0


def test_summarize_makespan_starts_at_first_submit_not_first_start() -> None:
    # the first job waits 100 s: the makespan counts that wait
    # job  submit start end   cores  wait run  slowdown
    #  a    100    200  300     3    100  100  200/100 = 2
    #  b    150    150  170     1      0   20  1
    #  c    160    300  310     4    140   10  150/10 = 15
    #  d    400    400  405     2      0    5  5/10 -> 1
    summary = summarize(
        np.array([100.0, 150.0, 160.0, 400.0]),
        np.array([200.0, 150.0, 300.0, 400.0]),
        np.array([300.0, 170.0, 310.0, 405.0]),
        np.array([3, 1, 4, 2]),
        4,
        dropped=5,
        timeouts=2,
    )
    assert summary.jobs == 4
    assert summary.dropped == 5
    assert summary.makespan == 305.0  # 405 - 100
    assert summary.utilization == pytest.approx((300 + 20 + 40 + 10) / (4 * 305))
    assert summary.mean_wait == pytest.approx(240 / 4)
    assert summary.max_wait == 140.0
    assert summary.mean_bounded_slowdown == pytest.approx((2 + 1 + 15 + 1) / 4)
    assert summary.mean_response == pytest.approx((200 + 20 + 150 + 5) / 4)
    assert summary.timeouts == 2
    assert summary.failed == 0


def test_summarize_timed_out_job_counts_its_cut_run() -> None:
    # a job killed by its 60 s limit after waiting 20 s: (20 + 60) / 60, and 60 core-seconds
    summary = summarize([0, 20], [0, 40], [100, 100], [2, 1], 4, timeouts=1)
    assert summary.timeouts == 1
    assert summary.makespan == 100.0
    assert summary.utilization == pytest.approx((200 + 60) / 400)
    assert summary.mean_wait == pytest.approx(10.0)
    assert summary.max_wait == 20.0
    assert summary.mean_bounded_slowdown == pytest.approx((1 + 80 / 60) / 2)


def test_summarize_jobs_that_never_started() -> None:
    # job  submit start end  cores
    #  a     0      0    10    1     wait 0,  run 10, slowdown 1
    #  b     0     10    40    2     wait 10, run 30, slowdown 40/30
    #  c     3    NaN   100    3     rejected at 100: in jobs and failed, not in time metrics
    #  d     7     12    13    1     wait 5,  run 1,  slowdown 6/10 -> 1
    summary = summarize([0, 0, 3, 7], [0, 10, NAN, 12], [10, 40, 100, 13], [1, 2, 3, 1], 4)
    assert summary.jobs == 4
    assert summary.failed == 1
    assert summary.makespan == 40.0  # the rejected job's end (100) does not count
    assert summary.utilization == pytest.approx((10 + 60 + 1) / (4 * 40))
    assert summary.mean_wait == pytest.approx(5.0)
    assert summary.max_wait == 10.0
    assert summary.mean_bounded_slowdown == pytest.approx((1 + 40 / 30 + 1) / 3)
    assert summary.mean_response == pytest.approx((10 + 40 + 6) / 3)


def test_summarize_nothing_started() -> None:
    summary = summarize([0, 5], [NAN, NAN], [NAN, 7], [1, 2], 8, dropped=1, timeouts=0)
    assert summary == Summary(2, 1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 2)


def test_summarize_empty() -> None:
    assert summarize([], [], [], [], 8, dropped=3) == Summary(
        0, 3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0
    )


def test_summarize_zero_makespan() -> None:
    summary = summarize([5], [5], [5], [1], 4)
    assert summary.makespan == 0.0
    assert summary.utilization == 0.0
    assert summary.mean_bounded_slowdown == 1.0


def test_summarize_accepts_arrays_from_the_recorder() -> None:
    summary = summarize(
        array("d", [0, 5, 10]),
        array("d", [0, 20, 26]),
        array("d", [20, 50, 30]),
        array("i", [2, 4, 1]),
        4,
    )
    assert summary == summarize([0, 5, 10], [0, 20, 26], [20, 50, 30], [2, 4, 1], 4)
    assert summary.utilization == pytest.approx(0.82)


def test_summary_as_dict_and_rounding() -> None:
    summary = summarize([0, 5, 10], [0, 20, 26], [20, 50, 30], [2, 4, 1], 4)
    data = round_floats(summary.as_dict())
    assert data == {
        "jobs": 3,
        "dropped": 0,
        "makespan": 50.0,
        "utilization": 0.82,
        "mean_wait": 10.333333,
        "max_wait": 16.0,
        "mean_bounded_slowdown": 1.5,
        "mean_response": 28.333333,
        "timeouts": 0,
        "failed": 0,
    }
    assert list(data) == list(Summary.__dataclass_fields__)
    assert round_floats({"x": math.inf, "y": 1 / 3, "z": 7}) == {
        "x": math.inf,
        "y": 0.333333,
        "z": 7,
    }
