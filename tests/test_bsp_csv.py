"""The BSP CSV workload reader and writer, and the seeded BSP generator."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from emulator.model.job import Communication, Request, Submission
from workloads.bsp_csv import BspCsvError, bsp_jobs, read_bsp_csv, write_bsp_csv

HEADER = "job_id,submit,tasks,base_time,sigma,task_bw,time_limit"


def write(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_rows_become_bsp_submissions(tmp_path: Path) -> None:
    csv = write(
        tmp_path / "w.csv",
        HEADER,
        "1,0,4,600,0.8,0.25,1200",
        "",
        "# a comment line",
        "7,12.5,1,30.5,0,0,60",
    )
    assert list(read_bsp_csv(csv)) == [
        Submission(
            1,
            0.0,
            Request(tasks=4, time_limit=1200, communication=Communication(600, 0.8, 0.25)),
            600.0,
        ),
        Submission(
            7,
            12.5,
            Request(tasks=1, time_limit=60, communication=Communication(30.5, 0.0, 0.0)),
            30.5,
        ),
    ]


def test_columns_in_any_order_with_user_and_name(tmp_path: Path) -> None:
    csv = write(
        tmp_path / "w.csv",
        "name, user,time_limit,task_bw,sigma,base_time,tasks,submit,job_id",
        "lu,alice,100,1.5,1,50,2,3,9",
        ",,100,0,1,50,2,4,10",  # empty cells keep the defaults
    )
    first, second = read_bsp_csv(csv)
    assert (first.job_id, first.submit, first.runtime) == (9, 3.0, 50.0)
    assert (first.request.name, first.request.user, first.request.tasks) == ("lu", "alice", 2)
    assert first.request.communication == Communication(50.0, 1.0, 1.5)
    assert (second.request.name, second.request.user) == (Request().name, Request().user)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["job_id,submit,tasks,base_time,sigma,time_limit"], ":1: missing column(s) task_bw"),
        ([HEADER + ",queue"], ":1: unknown column 'queue'"),
        ([HEADER + ",sigma"], ":1: a column appears twice"),
        ([HEADER, "1,0,4,600,0.8,0.25"], ":2: expected 7 fields, found 6"),
        ([HEADER, "1,0,four,600,0.8,0.25,1200"], ":2: tasks is not a number: 'four'"),
        ([HEADER, "1,0,4,600,nan,0.25,1200"], ":2: sigma is not a number: 'nan'"),
        ([HEADER, "1,0,2.5,600,0.8,0.25,1200"], ":2: tasks must be an integer, got '2.5'"),
        ([HEADER, "1,0,0,600,0.8,0.25,1200"], ":2: tasks must be >= 1, got 0"),
        ([HEADER, "1,0,4,600,1.2,0.25,1200"], ":2: sigma must be in [0, 1], got '1.2'"),
        ([HEADER, "1,0,4,600,-0.1,0.25,1200"], ":2: sigma must be in [0, 1], got '-0.1'"),
        ([HEADER, "1,0,4,-5,0.8,0.25,1200"], ":2: base_time must be >= 0 seconds, got '-5'"),
        ([HEADER, "1,0,4,600,0.8,-1,1200"], ":2: task_bw must be >= 0, got '-1'"),
        ([HEADER, "1,0,4,600,0.8,0.25,0"], ":2: time_limit must be > 0 seconds, got '0'"),
        ([HEADER, "1,-1,4,600,0.8,0.25,10"], ":2: submit must be a time >= 0, got '-1'"),
        ([HEADER, "-1,0,4,600,0.8,0.25,10"], ":2: job_id must be >= 0, got -1"),
        (
            [HEADER, "1,10,4,600,0.8,0.25,10", "2,5,4,600,0.8,0.25,10"],
            ":3: submit 5 is before the previous row's 10: rows must be in submit order",
        ),
        (["# only a comment"], ": no header line (expected job_id,submit,tasks,"),
    ],
)
def test_bad_files_name_the_file_and_line(tmp_path: Path, lines: list[str], message: str) -> None:
    csv = write(tmp_path / "bad.csv", *lines)
    with pytest.raises(BspCsvError) as error:
        list(read_bsp_csv(csv))
    assert str(error.value).startswith(f"{csv}{message}")


def test_reading_streams_rows_before_a_bad_one(tmp_path: Path) -> None:
    csv = write(tmp_path / "w.csv", HEADER, "1,0,1,10,1,0,10", "2,0,x,10,1,0,10")
    rows = read_bsp_csv(csv)
    assert next(rows).job_id == 1
    with pytest.raises(BspCsvError, match=r":3: tasks is not a number"):
        next(rows)


def test_generator_is_seeded_and_round_trips_through_csv(tmp_path: Path) -> None:
    jobs = list(bsp_jobs(200, 72, max_tasks=24, seed=5))
    assert jobs == list(bsp_jobs(200, 72, max_tasks=24, seed=5))
    assert jobs != list(bsp_jobs(200, 72, max_tasks=24, seed=6))
    assert [job.job_id for job in jobs] == list(range(1, 201))
    assert all(a.submit <= b.submit for a, b in itertools.pairwise(jobs))
    for job in jobs:
        communication = job.request.communication
        assert communication is not None
        assert 1 <= job.request.tasks <= 24 and 0.3 <= communication.sigma <= 1
        assert job.runtime == communication.base_time and 60 <= job.runtime <= 7200
        assert 0 < communication.task_bw <= 1 and job.request.time_limit >= 1.5 * job.runtime
    path = tmp_path / "synthetic.csv"
    assert write_bsp_csv(path, jobs) == 200
    assert list(read_bsp_csv(path)) == jobs


def test_generator_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="cores and load > 0"):
        next(bsp_jobs(1, 0))
