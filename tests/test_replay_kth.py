"""``batchlab replay`` on a real log, the whole KTH-SP2 trace under EASY: every job as the trace
says, never more cores busy than the machine has, and byte-identical on a second run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.cli import main
from tests.test_replay import rows
from workloads.swf import SwfTrace

KTH = Path("/work/shared/traces/KTH-SP2-1996-2.1-cln.swf")

KTH_RECORDS = 28476


@pytest.fixture(scope="module")
def kth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kth")
    assert main(["replay", str(KTH), "-s", "easy", "-q", "-o", str(out / "a")]) == 0
    return out


def test_kth_counts(kth: Path) -> None:
    out = kth
    summary = json.loads((out / "a" / "summary.json").read_text(encoding="utf-8"))
    records = list(SwfTrace(KTH))
    assert len(records) == KTH_RECORDS
    assert summary["cores"] == 100
    assert summary["jobs"] + summary["dropped"] == KTH_RECORDS
    # the drop rules, applied independently
    no_runtime = [r for r in records if r.run_time <= 0]
    no_size = [r for r in records if r.run_time > 0 and r.size <= 0]
    too_large = [r for r in records if r.run_time > 0 and r.size > 100]
    assert summary["dropped_no_runtime"] == len(no_runtime)
    assert summary["dropped_no_size"] == len(no_size)
    assert summary["dropped_too_large"] == len(too_large)
    assert summary["dropped"] == len(no_runtime) + len(no_size) + len(too_large)
    assert summary["failed"] == 0
    jobs = rows(out / "a" / "jobs.csv")
    assert len(jobs) == summary["jobs"]
    assert summary["timeouts"] == sum(1 for j in jobs if j[5] == "TIMEOUT")


def test_kth_every_job_as_the_trace_says(kth: Path) -> None:
    """Submit, size and length (min(run, limit); TIMEOUT when the limit cut it) per job."""
    out = kth
    jobs = {j[0]: j for j in rows(out / "a" / "jobs.csv")}
    kept = 0
    for r in SwfTrace(KTH):
        if r.run_time <= 0 or r.size <= 0 or r.size > 100:
            assert r.job_id not in jobs
            continue
        kept += 1
        _, submit, start, end, cores, state = jobs[r.job_id]
        limit = r.requested_time if r.requested_time > 0 else r.run_time
        assert submit == r.submit
        assert start >= submit
        assert cores == r.size
        assert end - start == min(r.run_time, limit)
        assert state == ("TIMEOUT" if r.run_time > limit else "COMPLETED")
    assert kept == len(jobs)


def test_kth_never_more_than_100_cores_busy(kth: Path) -> None:
    out = kth
    events: list[tuple[float, int]] = []
    for _, _, start, end, cores, _ in rows(out / "a" / "jobs.csv"):
        events.append((start, cores))
        events.append((end, -cores))
    events.sort()  # at one instant, ends (negative) before starts
    busy = peak = 0
    for _, delta in events:
        busy += delta
        peak = max(peak, busy)
    assert busy == 0
    assert peak == 100  # full at some point, never over


def test_kth_schedule_swf_waits(kth: Path) -> None:
    out = kth
    jobs = {j[0]: j for j in rows(out / "a" / "jobs.csv")}
    schedule = SwfTrace(out / "a" / "schedule.swf")
    assert schedule.header.lines == SwfTrace(KTH).header.lines
    count = 0
    for r in schedule:
        _, submit, start, end, _, _ = jobs[r.job_id]
        assert (r.submit, r.wait, r.run_time) == (submit, start - submit, end - start)
        count += 1
    assert count == len(jobs)


def test_kth_second_replay_is_byte_identical(kth: Path) -> None:
    out = kth
    assert main(["replay", str(KTH), "-s", "easy", "-q", "-o", str(out / "b")]) == 0
    for name in ("jobs.csv", "summary.json", "schedule.swf"):
        assert (out / "a" / name).read_bytes() == (out / "b" / name).read_bytes()
