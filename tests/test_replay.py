"""``batchlab replay``: the replay semantics on a hand-computed trace, outputs, errors, a real log.

tests/data/replay_tiny.swf (MaxProcs 4, so 4 single-core nodes), hand-computed:

job submit run size        limit  notes
 1     0   100  2           100   run == limit: COMPLETED
 2     0    50  3 (alloc 4) 200   requested processors win over allocated ones
 3    10    30  2 (req -1)   80   requested -1: the 2 allocated processors
 4    20   500  1            60   cut by its limit: TIMEOUT after 60 s
 5    30    40  5           100   dropped: 5 > 4 cores
 6    30     0  1            10   dropped: run time 0
 7    35    20  -1 (both)    30   dropped: no size
 8   120    10  4            10
 9   130    15  1            -1   limit = run time (15): lets EASY backfill it
10   160     5  4            10   arrives when job 8 ends under EASY: starts at once

FCFS: 1 runs 0-100; 2 (3 cores) waits for it, 100-150; 3 and 4 start at 150 (4 is killed at 210);
8 (4 cores) waits for 4, 210-220; 9 220-235; 10 (4 cores) waits for 9, 235-240.
EASY: 2 holds the reservation at 100 (shadow time: 1's expected end) with 1 extra core; 3 ends
by then (10 + 80 <= 100) and backfills at 10-40; 4 backfills at 40 (40 + 60 <= 100) and is killed
at 100, when 1 ends too, and 2 starts; 8 holds the reservation at 300 (2's expected end) with no
extra core; 9 backfills at 130-145 (130 + 15 <= 300); 2 really ends at 150, 8 runs 150-160, and
10, arriving at 160, starts at once: 160-165.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.api.registry import available
from emulator.cli import main
from workloads.swf import SwfTrace

DATA = Path(__file__).parent / "data"
TINY = DATA / "replay_tiny.swf"

HEADER = "job_id,submit,start,end,cluster,cores,state"

# (job_id, submit, start, end, cores, state) per scheduler
EXPECTED = {
    "fcfs": [
        (1, 0, 0, 100, 2, "COMPLETED"),
        (2, 0, 100, 150, 3, "COMPLETED"),
        (3, 10, 150, 180, 2, "COMPLETED"),
        (4, 20, 150, 210, 1, "TIMEOUT"),
        (8, 120, 210, 220, 4, "COMPLETED"),
        (9, 130, 220, 235, 1, "COMPLETED"),
        (10, 160, 235, 240, 4, "COMPLETED"),
    ],
    "easy": [
        (1, 0, 0, 100, 2, "COMPLETED"),
        (2, 0, 100, 150, 3, "COMPLETED"),
        (3, 10, 10, 40, 2, "COMPLETED"),
        (4, 20, 40, 100, 1, "TIMEOUT"),
        (8, 120, 150, 160, 4, "COMPLETED"),
        (9, 130, 130, 145, 1, "COMPLETED"),
        (10, 160, 160, 165, 4, "COMPLETED"),
    ],
}

# (makespan, core-seconds, waits, bounded slowdowns, responses) per scheduler, by hand
# core-seconds: 2*100 + 3*50 + 2*30 + 1*60 (cut) + 4*10 + 1*15 + 4*5 = 545
HAND = {
    "fcfs": (
        240,
        545,
        [0, 100, 140, 130, 90, 90, 75],
        [1, 150 / 50, 170 / 30, 190 / 60, 100 / 10, 105 / 15, 80 / 10],
        [100, 150, 170, 190, 100, 105, 80],
    ),
    "easy": (
        165,
        545,
        [0, 100, 0, 20, 30, 0, 0],
        [1, 150 / 50, 1, 80 / 60, 40 / 10, 1, 1],  # job 10: (0 + 5) / 10 = 0.5 -> 1
        [100, 150, 30, 80, 40, 15, 5],
    ),
}

TINY_HEADER = [
    "; Version: 2.2",
    "; Computer: hand-made test trace for tests/test_replay.py (4 single-core nodes)",
    "; MaxJobs: 10",
    "; MaxRecords: 10",
    "; MaxNodes: 4",
    "; MaxProcs: 4",
    "; Note: 1-4, 8-10 replay; 5 asks for 5 > 4 processors, 6 has run time 0, 7 has no size",
    ";",
]


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    # the goldens are FCFS's; replay's default is easy (a later -s wins)
    code = main(["replay", "-s", "fcfs", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def rows(path: Path) -> list[tuple[int, float, float, float, int, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == HEADER
    result = []
    for line in lines[1:]:
        job_id, submit, start, end, cluster, cores, state = line.split(",")
        assert cluster == "cluster"
        result.append((int(job_id), float(submit), float(start), float(end), int(cores), state))
    return result


def job_line(job_id: int, submit: float, run: float, size: int, limit: float = -1) -> str:
    return f"{job_id} {submit} -1 {run} {size} -1 -1 {size} {limit} -1 1 1 1 -1 -1 -1 -1 -1"


def write_trace(path: Path, header: list[str], *jobs: str) -> Path:
    path.write_text("\n".join([*header, *jobs]) + "\n", encoding="utf-8")
    return path


# --- the hand-computed trace ----------------------------------------------------------------------
@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_jobs_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str) -> None:
    code, _, err = run(capsys, TINY, "--scheduler", scheduler, "--out", tmp_path)
    assert (code, err) == (0, "")
    text = (tmp_path / "jobs.csv").read_text(encoding="utf-8")
    expected = [HEADER] + [
        f"{j},{s},{b},{e},cluster,{c},{state}" for j, s, b, e, c, state in EXPECTED[scheduler]
    ]
    assert text == "\n".join(expected) + "\n"


@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_summary_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str) -> None:
    code, _, _ = run(capsys, TINY, "-s", scheduler, "-o", tmp_path)
    assert code == 0
    makespan, area, waits, slowdowns, responses = HAND[scheduler]
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary == {
        "trace": "replay_tiny.swf",
        "scheduler": scheduler,
        "platform": "cluster",
        "cores": 4,
        "dropped_no_runtime": 1,
        "dropped_no_size": 1,
        "dropped_too_large": 1,
        "dropped_no_cluster": 0,
        "jobs": 7,
        "dropped": 3,
        "makespan": float(makespan),
        "utilization": round(area / (4 * makespan), 6),
        "mean_wait": round(sum(waits) / 7, 6),
        "max_wait": float(max(waits)),
        "mean_bounded_slowdown": round(sum(slowdowns) / 7, 6),
        "mean_response": round(sum(responses) / 7, 6),
        "timeouts": 1,
        "failed": 0,
    }
    # the hand numbers, spelled out
    expected = {
        "fcfs": (240.0, 0.567708, 89.285714, 140.0, 5.404762, 127.857143),
        "easy": (165.0, 0.825758, 21.428571, 100.0, 1.761905, 60.0),
    }[scheduler]
    keys = ("makespan", "utilization", "mean_wait", "max_wait", "mean_bounded_slowdown")
    assert tuple(summary[k] for k in (*keys, "mean_response")) == expected


@pytest.mark.parametrize(
    ("scheduler", "lines"),
    [
        (
            "fcfs",
            [
                "  jobs                                 7",
                "  dropped                              3",
                "    no runtime                         1",
                "    no size                            1",
                "    too large                          1",
                "  timeouts                             1",
                "  makespan                         240 s",
                "  utilization                      56.8%",
                "  mean wait                       89.3 s",
                "  max wait                         140 s",
                "  mean bounded slowdown             5.40",
            ],
        ),
        (
            "easy",
            [
                "  jobs                                 7",
                "  dropped                              3",
                "    no runtime                         1",
                "    no size                            1",
                "    too large                          1",
                "  timeouts                             1",
                "  makespan                         165 s",
                "  utilization                      82.6%",
                "  mean wait                       21.4 s",
                "  max wait                         100 s",
                "  mean bounded slowdown             1.76",
            ],
        ),
    ],
)
def test_stdout_summary_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str, lines: list[str]
) -> None:
    code, out, err = run(capsys, TINY, "-s", scheduler, "-o", tmp_path)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"replay_tiny.swf under {scheduler} on 4 cores",
        *lines,
        f"wrote {tmp_path}/jobs.csv, summary.json, schedule.swf",
    ]


def test_quiet_prints_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, TINY, "-q", "-o", tmp_path) == (0, "", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "jobs.csv",
        "schedule.swf",
        "summary.json",
    ]


@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_schedule_swf(capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str) -> None:
    """The input trace (header kept, dropped jobs left out) with the replayed waits and runs."""
    assert run(capsys, TINY, "-s", scheduler, "-o", tmp_path)[0] == 0
    waits = {j: b - s for j, s, b, _, _, _ in EXPECTED[scheduler]}
    rest = {
        1: "0 {} 100 2 -1 -1 2 100 -1 1 1 1",
        2: "0 {} 50 4 -1 -1 3 200 -1 1 2 2",
        3: "10 {} 30 2 -1 -1 -1 80 -1 1 1 1",
        4: "20 {} 60 1 -1 -1 1 60 -1 1 3 1",  # run time as replayed: cut to the 60 s limit
        8: "120 {} 10 4 -1 -1 4 10 -1 1 2 2",
        9: "130 {} 15 1 -1 -1 1 -1 -1 1 3 1",
        10: "160 {} 5 4 -1 -1 4 10 -1 1 1 1",
    }
    expected = TINY_HEADER + [
        f"{j} {fields.format(waits[j])} -1 -1 -1 -1 -1" for j, fields in rest.items()
    ]
    assert (tmp_path / "schedule.swf").read_text(encoding="utf-8") == "\n".join(expected) + "\n"
    replayed = list(SwfTrace(tmp_path / "schedule.swf"))
    assert [r.wait for r in replayed] == list(waits.values())
    assert {
        "fcfs": [0, 100, 140, 130, 90, 90, 75],
        "easy": [0, 100, 0, 20, 30, 0, 0],
    }[scheduler] == [r.wait for r in replayed]


def test_cores_option_overrides_max_procs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--cores 3: jobs 8 and 10 (4 cores) are dropped as too large too; FCFS on 3 cores."""
    assert run(capsys, TINY, "--cores", "3", "-q", "-o", tmp_path) == (0, "", "")
    assert rows(tmp_path / "jobs.csv") == [
        (1, 0, 0, 100, 2, "COMPLETED"),
        (2, 0, 100, 150, 3, "COMPLETED"),
        (3, 10, 150, 180, 2, "COMPLETED"),
        (4, 20, 150, 210, 1, "TIMEOUT"),
        (9, 130, 180, 195, 1, "COMPLETED"),
    ]
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert (summary["cores"], summary["jobs"], summary["dropped"]) == (3, 5, 5)
    assert (summary["dropped_no_runtime"], summary["dropped_no_size"]) == (1, 1)
    assert summary["dropped_too_large"] == 3


def test_max_nodes_fallback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trace = write_trace(
        tmp_path / "nodes.swf", ["; MaxNodes: 2"], job_line(1, 0, 10, 2), job_line(2, 0, 10, 3)
    )
    out = tmp_path / "out"
    assert run(capsys, trace, "-q", "-o", out) == (0, "", "")
    assert rows(out / "jobs.csv") == [(1, 0, 0, 10, 2, "COMPLETED")]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["cores"], summary["dropped_too_large"]) == (2, 1)


# --- one instant: completions, then arrivals in trace order, then one pass -----------------------
@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_completions_before_arrivals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str
) -> None:
    trace = write_trace(
        tmp_path / "instant.swf",
        ["; MaxProcs: 4"],
        job_line(1, 0, 100, 4, 100),  # all 4 cores until 100
        job_line(2, 100, 10, 4, 10),  # arrives at 100 as job 1 ends: starts at 100
        job_line(3, 105, 500, 4, 50),  # 110-160, killed by its limit
        job_line(4, 160, 5, 4, 5),  # arrives at 160 as job 3 is killed: starts at 160
        job_line(5, 200, 30, 3, 30),  # 5 and 6 arrive together: 5 first (trace order) and
        job_line(6, 200, 10, 2, 10),  # 6 does not fit beside it
    )
    out = tmp_path / "out"
    assert run(capsys, trace, "-s", scheduler, "-q", "-o", out) == (0, "", "")
    assert rows(out / "jobs.csv") == [
        (1, 0, 0, 100, 4, "COMPLETED"),
        (2, 100, 100, 110, 4, "COMPLETED"),
        (3, 105, 110, 160, 4, "TIMEOUT"),
        (4, 160, 160, 165, 4, "COMPLETED"),
        (5, 200, 200, 230, 3, "COMPLETED"),
        (6, 200, 230, 240, 2, "COMPLETED"),
    ]


def test_same_instant_arrivals_keep_trace_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The same two jobs as 5 and 6 above, listed the other way round: now the 2-core one leads."""
    trace = write_trace(
        tmp_path / "order.swf",
        ["; MaxProcs: 4"],
        job_line(1, 200, 10, 2, 10),
        job_line(2, 200, 30, 3, 30),
    )
    out = tmp_path / "out"
    assert run(capsys, trace, "-q", "-o", out) == (0, "", "")
    assert rows(out / "jobs.csv") == [
        (1, 200, 200, 210, 2, "COMPLETED"),
        (2, 200, 210, 240, 3, "COMPLETED"),
    ]


# --- determinism ----------------------------------------------------------------------------------
@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_two_runs_are_byte_identical(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str
) -> None:
    for name in ("a", "b"):
        assert run(capsys, TINY, "-s", scheduler, "-q", "-o", tmp_path / name)[0] == 0
    for name in ("jobs.csv", "summary.json", "schedule.swf"):
        first = (tmp_path / "a" / name).read_bytes()
        assert first == (tmp_path / "b" / name).read_bytes()
        assert len(first) > 100


# --- errors ---------------------------------------------------------------------------------------
def test_missing_trace_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.swf"
    out = tmp_path / "out"
    assert run(capsys, missing, "-o", out) == (
        1,
        "",
        f"batchlab: error: no such workload file: {missing}\n",
    )
    assert not out.exists()


def test_unknown_scheduler_lists_available(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, TINY, "-s", "nosuch", "-o", tmp_path / "out")
    names = sorted(available())
    assert {"fcfs", "easy", "cbf", "lsf"} <= set(names)
    assert (code, out) == (1, "")
    assert err == f"batchlab: error: unknown scheduler 'nosuch' (available: {', '.join(names)})\n"
    assert not (tmp_path / "out").exists()


def test_bad_scheduler_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, TINY, "-s", "easy:foo=1", "-o", tmp_path / "out") == (
        1,
        "",
        "batchlab: error: scheduler 'easy' has no option 'foo' (options: none)\n",
    )
    assert not (tmp_path / "out").exists()


def test_no_max_procs_and_no_cores(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "bare.swf", ["; Version: 2.2"], job_line(1, 0, 10, 1))
    assert run(capsys, trace, "-o", tmp_path / "out") == (
        1,
        "",
        f"batchlab: error: {trace} has no MaxProcs header: give --cores N or --platform FILE\n",
    )
    assert not (tmp_path / "out").exists()
    # the same trace replays with --cores
    assert run(capsys, trace, "--cores", "2", "-q", "-o", tmp_path / "out") == (0, "", "")
    assert rows(tmp_path / "out" / "jobs.csv") == [(1, 0, 0, 10, 1, "COMPLETED")]


def test_malformed_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trace = write_trace(
        tmp_path / "bad.swf", ["; MaxProcs: 4"], job_line(1, 0, 10, 1), "2 5 -1 10 1"
    )
    assert run(capsys, trace, "-o", tmp_path / "out") == (
        1,
        "",
        f"batchlab: error: {trace}:3: expected 18 fields, found 5\n",
    )
    assert not (tmp_path / "out").exists()


def test_fractional_processor_count_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = write_trace(
        tmp_path / "frac.swf",
        ["; MaxProcs: 4"],
        "1 0 -1 10 1.5 -1 -1 -1 10 -1 1 1 1 -1 -1 -1 -1 -1",
    )
    assert run(capsys, trace, "-o", tmp_path / "out") == (
        1,
        "",
        f"batchlab: error: {trace}:2: field allocated must be an integer\n",
    )
    assert not (tmp_path / "out").exists()


def test_job_numbers_out_of_order_are_all_replayed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = write_trace(
        tmp_path / "ids.swf",
        ["; MaxProcs: 4"],
        job_line(5, 0, 10, 1),
        job_line(3, 10, 10, 1),
        job_line(4, 20, 10, 1),
        job_line(7, 30, 10, 1),
    )
    out = tmp_path / "out"
    assert run(capsys, trace, "-q", "-o", out) == (0, "", "")
    assert rows(out / "jobs.csv") == [
        (3, 10, 10, 20, 1, "COMPLETED"),
        (4, 20, 20, 30, 1, "COMPLETED"),
        (5, 0, 0, 10, 1, "COMPLETED"),
        (7, 30, 30, 40, 1, "COMPLETED"),
    ]


def test_duplicate_job_number_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = write_trace(
        tmp_path / "dup.swf", ["; MaxProcs: 4"], job_line(1, 0, 10, 1), job_line(1, 50, 10, 1)
    )
    assert run(capsys, trace, "-q", "-o", tmp_path / "out") == (
        1,
        "",
        f"batchlab: error: {trace}: job id 1 is already in use\n",
    )
    assert not (tmp_path / "out").exists()
