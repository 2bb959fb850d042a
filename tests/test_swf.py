"""The SWF reader and writer (workloads/swf.py): header, plain and gzip files, errors, round trip,
and the replay semantics of ``submissions`` (size, limit, drop rules) and ``Replayed`` (waits)."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from workloads.swf import (
    Dropped,
    Replayed,
    SwfError,
    SwfHeader,
    SwfRecord,
    SwfTrace,
    submissions,
    write_swf,
)

NASA = Path("/work/shared/traces/NASA-iPSC-1993-3.1-cln.swf.gz")


def job(
    job_id: int,
    submit: float = 0,
    run: float = 10,
    allocated: int = 1,
    requested: int = -1,
    requested_time: float = -1,
    user: int = 1,
    wait: float = -1,
) -> str:
    """One SWF job line with the fields the replay reads; the others are -1 or fixed values."""
    fields = [job_id, submit, wait, run, allocated, -1, -1, requested, requested_time, -1, 1, user]
    fields += [1, -1, -1, -1, -1, -1]
    return " ".join(str(f) for f in fields)


def write(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- header ---------------------------------------------------------------------------------------
def test_header_max_procs_preferred_to_max_nodes() -> None:
    header = SwfHeader(("; Version: 2.2", "; MaxNodes: 64", "; MaxProcs: 128"))
    assert header.max_procs == 128


def test_header_max_nodes_fallback() -> None:
    header = SwfHeader(("; Version: 2.2", "; MaxNodes: 64", "; MaxJobs: 9"))
    assert header.max_procs == 64


def test_header_without_sizes() -> None:
    header = SwfHeader(("; Version: 2.2", "; MaxJobs: 9"))
    assert header.max_procs is None
    assert SwfHeader().max_procs is None


def test_header_get_is_case_insensitive_first_match_and_stripped() -> None:
    header = SwfHeader(
        (
            ";   maxprocs:   100 (cores)",
            "; Note: first note",
            "; Note: second note",
            "; StartTime: Mon Sep 23 14:00:31 CEST 1996",
            "; MaxJobs: many",
        )
    )
    assert header.get("MaxProcs") == "100 (cores)"
    assert header.get_int("MAXPROCS") == 100
    assert header.max_procs == 100
    assert header.get("Note") == "first note"
    assert header.get("StartTime") == "Mon Sep 23 14:00:31 CEST 1996"
    assert header.get("Missing") is None
    assert header.get_int("Missing") is None
    assert header.get_int("MaxJobs") is None  # not a number


def test_trace_header_is_the_lines_before_the_first_job(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.swf",
        "; Version: 2.2",
        "; MaxNodes: 8",
        ";",
        job(1),
        "; a comment between jobs is not part of the header",
        job(2),
    )
    trace = SwfTrace(path)
    assert trace.header.lines == ("; Version: 2.2", "; MaxNodes: 8", ";")
    assert trace.header.max_procs == 8
    assert [r.job_id for r in trace] == [1, 2]


# --- reading --------------------------------------------------------------------------------------
def test_read_plain(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.swf",
        "; MaxProcs: 16",
        "    1      0   5   100   4  -1 -1   8   3600  -1 1 3 2 7 1 2 -1 -1",
        "",
        "    2     60  -1     0   1  -1 -1  -1     -1  -1 0 4 2 -1 -1 -1 1 30",
    )
    records = list(SwfTrace(path))
    assert records == [
        SwfRecord(1, 0, 5, 100, 4, -1, -1, 8, 3600, -1, 1, 3, 2, 7, 1, 2, -1, -1),
        SwfRecord(2, 60, -1, 0, 1, -1, -1, -1, -1, -1, 0, 4, 2, -1, -1, -1, 1, 30),
    ]
    assert records[0].size == 8  # requested processors
    assert records[1].size == 1  # requested unknown: allocated processors
    assert records[1].preceding == 1
    assert records[1].think_time == 30


def test_trace_can_be_iterated_twice(tmp_path: Path) -> None:
    path = write(tmp_path / "t.swf", "; MaxProcs: 4", job(1), job(2), job(3))
    trace = SwfTrace(path)
    assert [r.job_id for r in trace] == [1, 2, 3]
    assert [r.job_id for r in trace] == [1, 2, 3]


def test_read_gzip_recognised_by_magic_bytes(tmp_path: Path) -> None:
    text = "; MaxProcs: 32\n" + job(1, submit=5, run=70, allocated=3) + "\n" + job(2) + "\n"
    plain = write(tmp_path / "plain.swf", *text.splitlines())
    for name in ("t.swf.gz", "compressed.swf"):  # the name does not matter
        packed = tmp_path / name
        with gzip.open(packed, "wt", encoding="utf-8") as out:
            out.write(text)
        assert packed.read_bytes()[:2] == b"\x1f\x8b"
        trace = SwfTrace(packed)
        assert trace.header.lines == ("; MaxProcs: 32",)
        assert trace.header.max_procs == 32
        assert list(trace) == list(SwfTrace(plain))
        assert [(r.job_id, r.submit, r.run_time, r.allocated) for r in trace] == [
            (1, 5, 70, 3),
            (2, 0, 10, 1),
        ]
    misnamed = write(tmp_path / "plain.swf.gz", *text.splitlines())  # plain text named .gz
    assert list(SwfTrace(misnamed)) == list(SwfTrace(plain))


def test_read_real_gzip_trace_nasa() -> None:
    trace = SwfTrace(NASA)
    assert trace.header.max_procs == 128
    assert trace.header.get_int("MaxNodes") == 128
    assert trace.header.get("Installation") == "NASA Ames Research Center"
    records = list(trace)
    assert len(records) == 18239
    assert records[0] == SwfRecord(
        1, 0, -1, 1451, 128, -1, -1, -1, -1, -1, -1, 1, 1, -1, -1, -1, -1, -1
    )
    assert records[5][:5] == (57, 25574, -1, 10, 1)
    ids = [r.job_id for r in records]
    assert ids == sorted(ids)
    submits = [r.submit for r in records]
    assert submits == sorted(submits)


# --- errors ---------------------------------------------------------------------------------------
def test_wrong_field_count_names_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.swf",
        "; MaxProcs: 4",
        ";",
        job(1),
        "",
        " ".join(job(2).split()[:17]),
    )
    trace = SwfTrace(path)
    read: list[int] = []
    with pytest.raises(SwfError) as caught:
        for record in trace:
            read.append(record.job_id)
    assert str(caught.value) == f"{path}:5: expected 18 fields, found 17"
    assert read == [1]  # records before the bad line were delivered


def test_extended_records_keep_their_first_18_fields(tmp_path: Path) -> None:
    """Alea's MetaCentrum traces: 21 fields, the queue name and a node specification last."""
    path = write(tmp_path / "alea.swf", job(1) + " -1 normal 1:ppn=2:cl_zewura", job(2) + " 7")
    trace = SwfTrace(path)
    assert trace.fields == 21
    assert list(trace) == list(SwfTrace(write(tmp_path / "plain.swf", job(1), job(2))))
    assert [cluster for _, cluster in trace.placed()] == ["zewura", ""]


def test_non_numeric_field_names_file_and_line(tmp_path: Path) -> None:
    bad = job(2).replace(" 10 ", " ten ", 1)
    path = write(tmp_path / "bad.swf", "; MaxProcs: 4", job(1), bad)
    with pytest.raises(SwfError) as caught:
        list(SwfTrace(path))
    assert str(caught.value) == f"{path}:3: non-numeric field in {bad + chr(10)!r}"


def test_fraction_in_integer_field(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.swf", job(1), "2 0 -1 10 1.5 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1")
    with pytest.raises(SwfError) as caught:
        list(SwfTrace(path))
    assert str(caught.value) == f"{path}:2: field allocated must be an integer"


def test_integral_float_in_integer_field_becomes_int(tmp_path: Path) -> None:
    path = write(tmp_path / "f.swf", "1 0.5 -1 10 4.0 -1 -1 4.0 -1 -1 1 1 1 -1 -1 -1 -1 -1")
    (record,) = SwfTrace(path)
    assert record.allocated == 4
    assert type(record.allocated) is int
    assert type(record.requested) is int
    assert type(record.job_id) is int


def test_swf_error_is_a_value_error() -> None:
    assert issubclass(SwfError, ValueError)


# --- float fields ---------------------------------------------------------------------------------
def test_float_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path / "f.swf",
        "1 0.5 -1 10.25 4 3.75 1024.5 4 600.5 -1 1 1 1 -1 -1 -1 -1 2.5",
        "2 7 -1 3e2 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1",
    )
    first, second = SwfTrace(path)
    assert first.submit == 0.5
    assert first.run_time == 10.25
    assert first.cpu_time == 3.75
    assert first.memory == 1024.5
    assert first.requested_time == 600.5
    assert first.think_time == 2.5
    assert first.allocated == 4
    assert type(first.allocated) is int
    assert type(first.job_id) is int
    assert type(first.requested) is int
    assert second.run_time == 300.0


# --- round trip -----------------------------------------------------------------------------------
def test_round_trip(tmp_path: Path) -> None:
    source = write(
        tmp_path / "in.swf",
        "; Version: 2.2",
        "; Queue:  0  interactive    ",
        "; MaxProcs: 64",
        ";",
        "    1      0   5   100   4  -1 -1   8   3600  -1 1 3 2 7 1 2 -1 -1",
        "2 0.5 -1 10.25 4.0 3.75 1024.5 4 600.5 -1 1 1 1 -1 -1 -1 -1 2.5",
        "3 12.125 0.25 -1 -1 -1 -1 -1 -1 -1 5 9 9 -1 -1 -1 2 0.75",
    )
    trace = SwfTrace(source)
    out = tmp_path / "out.swf"
    assert write_swf(out, trace.header, trace) == 3
    again = SwfTrace(out)
    assert again.header.lines == trace.header.lines
    assert list(again) == list(trace)
    assert out.read_text(encoding="utf-8").splitlines() == [
        "; Version: 2.2",
        "; Queue:  0  interactive    ",
        "; MaxProcs: 64",
        ";",
        "1 0 5 100 4 -1 -1 8 3600 -1 1 3 2 7 1 2 -1 -1",
        "2 0.5 -1 10.25 4 3.75 1024.5 4 600.5 -1 1 1 1 -1 -1 -1 -1 2.5",
        "3 12.125 0.25 -1 -1 -1 -1 -1 -1 -1 5 9 9 -1 -1 -1 2 0.75",
    ]


def test_round_trip_keeps_every_digit_of_float_fields(tmp_path: Path) -> None:
    source = write(
        tmp_path / "in.swf",
        "1 100000.25 -1 1234567.5 2 12.3456789 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1",
    )
    out = tmp_path / "out.swf"
    write_swf(out, SwfHeader(), SwfTrace(source))
    (record,) = SwfTrace(out)
    assert (record.submit, record.run_time, record.cpu_time) == (100000.25, 1234567.5, 12.3456789)


def test_round_trip_real_trace(tmp_path: Path) -> None:
    trace = SwfTrace(NASA)
    out = tmp_path / "nasa.swf"
    assert write_swf(out, trace.header, trace) == 18239
    again = SwfTrace(out)
    assert again.header.lines == trace.header.lines
    assert list(again) == list(trace)


# --- submissions: the replay semantics ------------------------------------------------------------
def test_submissions_conversion(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.swf",
        job(3, submit=5, run=100, allocated=4, requested=2, requested_time=300, user=7),
        job(4, submit=9, run=50, allocated=3, requested=-1, requested_time=-1, user=2),
        job(6, submit=9, run=20.5, allocated=1, requested=0, requested_time=0, user=7),
    )
    dropped = Dropped()
    subs = list(submissions(SwfTrace(path), 8, dropped))
    assert dropped == Dropped(0, 0, 0)
    assert [(s.job_id, s.submit, s.runtime) for s in subs] == [
        (3, 5, 100),
        (4, 9, 50),
        (6, 9, 20.5),
    ]
    first, second, third = (s.request for s in subs)
    # requested processors win over allocated ones; the requested time is the limit
    assert (first.tasks, first.cpus_per_task, first.cores, first.time_limit) == (2, 1, 2, 300)
    assert (first.name, first.user) == ("swf3", "u7")
    # requested processors -1: allocated ones; requested time -1: the limit is the run time
    assert (second.tasks, second.time_limit, second.name, second.user) == (3, 50, "swf4", "u2")
    # 0 counts as unknown too
    assert (third.tasks, third.time_limit, third.user) == (1, 20.5, "u7")


@pytest.mark.parametrize(
    ("line", "counts"),
    [
        (job(1, run=0, allocated=2), (1, 0, 0)),
        (job(1, run=-1, allocated=2), (1, 0, 0)),
        (job(1, run=10, allocated=-1, requested=-1), (0, 1, 0)),
        (job(1, run=10, allocated=0, requested=-1), (0, 1, 0)),
        (job(1, run=10, allocated=-1, requested=0), (0, 1, 0)),
        (job(1, run=10, allocated=9, requested=-1), (0, 0, 1)),
        (job(1, run=10, allocated=1, requested=9), (0, 0, 1)),
    ],
)
def test_each_drop_rule(tmp_path: Path, line: str, counts: tuple[int, int, int]) -> None:
    path = write(tmp_path / "t.swf", line)
    dropped = Dropped()
    assert list(submissions(SwfTrace(path), 8, dropped)) == []
    assert (dropped.no_runtime, dropped.no_size, dropped.too_large) == counts
    assert dropped.total == 1


def test_boundaries_are_kept(tmp_path: Path) -> None:
    """Exactly max_cores processors and a run time of a fraction of a second still replay."""
    path = write(
        tmp_path / "t.swf",
        job(1, run=10, allocated=9, requested=8),  # requested 8 == max: kept
        job(2, run=0.5, allocated=1),
        job(3, run=10, allocated=8, requested=-1),
    )
    dropped = Dropped()
    assert [(s.job_id, s.request.tasks) for s in submissions(SwfTrace(path), 8, dropped)] == [
        (1, 8),
        (2, 1),
        (3, 8),
    ]
    assert dropped.total == 0


def test_drop_counts_over_a_mixed_trace(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.swf",
        job(1, run=10, allocated=2),
        job(2, run=0, allocated=2),
        job(3, run=10, allocated=-1),
        job(4, run=-1, allocated=1),
        job(5, run=10, allocated=5, requested=17),
        job(6, run=10, allocated=4),
        job(7, run=10, allocated=-1, requested=-1),
        job(8, run=-1, allocated=99),  # no run time and too large: counted once, as no run time
        job(9, run=10, allocated=17),
    )
    dropped = Dropped()
    kept = [s.job_id for s in submissions(SwfTrace(path), 16, dropped)]
    assert kept == [1, 6]
    assert dropped == Dropped(no_runtime=3, no_size=2, too_large=2)
    assert dropped.total == 7


def test_real_trace_submissions_count() -> None:
    dropped = Dropped()
    kept = sum(1 for _ in submissions(SwfTrace(NASA), 128, dropped))
    assert kept + dropped.total == 18239
    expected = Dropped()
    for r in SwfTrace(NASA):
        size = r.requested if r.requested > 0 else r.allocated
        if r.run_time <= 0:
            expected.no_runtime += 1
        elif size <= 0:
            expected.no_size += 1
        elif size > 128:
            expected.too_large += 1
    assert dropped == expected


# --- replayed: the trace with the replayed waits --------------------------------------------------
def test_replayed_fills_waits(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.swf",
        job(1, submit=0, run=100, wait=-1),
        job(2, submit=10, run=50, wait=77),
        job(3, submit=20, run=5),  # dropped: absent from the times
        job(4, submit=30, run=5),  # never started: NaN start
        job(5, submit=40.5, run=60, requested_time=30),  # cut by its limit
    )
    times = {
        1: (0.0, 100.0),
        2: (100.0, 150.0),
        4: (math.nan, 31.0),
        5: (41.0, 71.0),
    }
    trace = SwfTrace(path)
    assert write_swf(tmp_path / "schedule.swf", trace.header, trace, Replayed.of(times)) == 3
    out = list(SwfTrace(tmp_path / "schedule.swf"))
    originals = {r.job_id: r for r in trace}
    assert [r.job_id for r in out] == [1, 2, 5]
    assert [(r.wait, r.run_time) for r in out] == [(0, 100), (90, 50), (0.5, 30)]
    for record in out:  # every other field is the trace's
        original = originals[record.job_id]
        assert record._replace(wait=original.wait, run_time=original.run_time) == original


def test_replayed_written_as_swf(tmp_path: Path) -> None:
    path = write(tmp_path / "t.swf", "; MaxProcs: 2", job(1, submit=3, run=10), job(2, submit=4))
    trace = SwfTrace(path)
    out = tmp_path / "schedule.swf"
    assert write_swf(out, trace.header, trace, Replayed.of({1: (3, 13), 2: (13, 23)})) == 2
    assert out.read_text(encoding="utf-8") == (
        "; MaxProcs: 2\n"
        "1 3 0 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 4 9 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )


def test_replayed_extended_trace_keeps_its_extra_fields(tmp_path: Path) -> None:
    """Alea's 21-field lines come back with their queue and node spec as written; a shorter
    extension keeps its own, a standard line stays standard, a dropped job's tail goes with it."""
    path = write(
        tmp_path / "alea.swf",
        "; MaxProcs: 4",
        job(1, run=10) + " -1 normal 1:ppn=2:cl_zewura",
        job(2, run=10) + "   7",
        job(3, run=10),
        job(4, run=10) + " 3 long 1:ppn=1:cl_skirit",  # dropped: absent from the times
        "",
        job(5, submit=5, run=10) + " -1 q2 2:ppn=1:cl_a:cl_b",
    )
    trace = SwfTrace(path)
    assert list(trace.tails()) == [
        "-1 normal 1:ppn=2:cl_zewura",
        "7",
        "",
        "3 long 1:ppn=1:cl_skirit",
        "-1 q2 2:ppn=1:cl_a:cl_b",
    ]
    times = Replayed.of({1: (0, 10), 2: (10, 20), 3: (20, 30), 5: (30, 40)})
    out = tmp_path / "schedule.swf"
    assert write_swf(out, trace.header, trace, times, trace.tails()) == 4
    assert out.read_text(encoding="utf-8") == (
        "; MaxProcs: 4\n"
        "1 0 0 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1 -1 normal 1:ppn=2:cl_zewura\n"
        "2 0 10 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1 7\n"
        "3 0 20 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "5 5 25 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1 -1 q2 2:ppn=1:cl_a:cl_b\n"
    )
    assert [cluster for _, cluster in SwfTrace(out).placed()] == ["zewura", "", "", "a"]


def test_extended_trace_written_back_whole_across_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More records than one written block: each tail stays with its own record."""
    monkeypatch.setattr("workloads.swf._RECORDS_PER_WRITE", 3)
    lines = [job(i, submit=i) + f" -1 q{i} 1:ppn=1:cl_c{i}" for i in range(1, 9)]
    source = write(tmp_path / "big.swf", *lines)
    trace = SwfTrace(source)
    out = tmp_path / "copy.swf"
    assert write_swf(out, trace.header, trace, tails=trace.tails()) == 8
    assert out.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")


def test_replayed_with_every_job_dropped(tmp_path: Path) -> None:
    """No job started (all too large, say): the header alone, not an IndexError."""
    path = write(tmp_path / "t.swf", "; MaxProcs: 2", job(1), job(2) + " -1 q 1:cl_x")
    trace = SwfTrace(path)
    out = tmp_path / "schedule.swf"
    assert write_swf(out, trace.header, trace, Replayed.of({}), trace.tails()) == 0
    assert out.read_text(encoding="utf-8") == "; MaxProcs: 2\n"


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e400"])
def test_a_field_that_is_no_finite_number(tmp_path: Path, text: str) -> None:
    """A NaN run time replayed as a job that never ends (makespan NaN in summary.json)."""
    path = write(tmp_path / "t.swf", job(1), job(2).replace(" 10 ", f" {text} ", 1))
    with pytest.raises(SwfError) as caught:
        list(SwfTrace(path))
    assert str(caught.value) == f"{path}:2: field run_time is not a finite number"
