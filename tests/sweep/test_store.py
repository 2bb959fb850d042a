"""The results store without Dask: the journal's torn lines, Parquet order and types, and the
report drawn from a store."""

from __future__ import annotations

import json
from dataclasses import asdict
from importlib.metadata import version
from pathlib import Path

import pytest

from emulator.sweep import provenance
from emulator.sweep.report import ReportError, write_report
from emulator.sweep.runner import run_cell
from emulator.sweep.store import CellRecord, Journal, Status, StoreError, write_results
from tests.sweep.helpers import calibration_spec, load, rows


def record(key: str, status: str = "ok", draw: float = 0.5) -> CellRecord:
    return CellRecord(key, {"x": 1}, 0, status, "", 0.1, {"draw": draw})


def test_a_torn_last_line_is_cut_off_and_the_journal_goes_on(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.append([record("a"), record("b")])
    with journal.path.open("a") as handle:
        handle.write('{"key": "c", "par')  # a kill -9 in the middle of a write
    assert set(journal.records()) == {"a", "b"}
    journal.append([record("c")])
    assert set(journal.records()) == {"a", "b", "c"}
    assert all(json.loads(line) for line in journal.path.read_text().splitlines())


def test_damage_before_the_last_line_is_an_error(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.path.write_text('{"broken\n' + json.dumps(asdict(record("a"))) + "\n")
    with pytest.raises(StoreError, match=r"journal\.jsonl:1: unreadable record"):
        journal.records()


def test_the_last_record_of_a_cell_wins(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.append([record("a", status="error")])
    journal.append([record("a", draw=0.25)])
    assert journal.records()["a"].metrics == {"draw": 0.25}


def _fill(directory: Path, spec_path: Path) -> None:
    """A store as a sweep of the calibration spec leaves it, with cells run in-process."""
    spec = load(spec_path)
    journal = Journal(directory)
    for cell in reversed(spec.cells()):  # completion order differs from the spec's
        status, error, wall, metrics = run_cell(spec.experiment, cell.param_dict(), cell.seed)
        journal.append([CellRecord.of(cell, Status(status), error, wall, metrics)])
    write_results(directory, spec.cells(), journal.records())
    provenance.record_run(directory, spec, {"test": True})


def test_results_are_in_spec_order_with_typed_columns(tmp_path: Path) -> None:
    spec_path = calibration_spec(tmp_path, xs=3, seeds=2, fail=True)
    _fill(tmp_path, spec_path)
    table = rows(tmp_path)
    cells = load(spec_path).cells()
    assert [r["cell"] for r in table] == [c.key for c in cells]
    ok = [r for r in table if r["status"] == "ok"]
    failed = [r for r in table if r["status"] == "error"]
    assert len(ok) == len(failed) == 6
    assert all(r["fail"] is False and isinstance(r["draw"], float) for r in ok)
    assert all(r["draw"] is None and "asked to fail" in str(r["error"]) for r in failed)


def test_report_tables_plots_paper_and_failures(tmp_path: Path) -> None:
    _fill(tmp_path, calibration_spec(tmp_path, xs=3, seeds=5, fail=True))
    report = write_report(tmp_path).read_text()
    assert "| x | draw | echo |" in report
    assert " ± " in report  # five seeds: a confidence interval
    assert "| 2 | " in report and "| 2 |\n" not in report
    assert "> Their mean is 0.5." in report
    assert "| all cells | draw | 0.5 |" in report
    assert "## Failed cells (15)" in report
    assert (tmp_path / "draws.png").read_bytes().startswith(b"\x89PNG")
    # the code that ran: its version even where there is no git commit (an installed wheel)
    code = f"Code: batchlab {version('batchlab')}, commit {provenance.git_commit()}."
    assert code in report


def test_report_names_the_spec_line_of_an_unknown_metric(tmp_path: Path) -> None:
    spec_path = calibration_spec(tmp_path)
    spec_path.write_text(spec_path.read_text().replace('["draw", "echo"]', '["draw", "nope"]'))
    _fill(tmp_path, spec_path)
    with pytest.raises(ReportError, match=r"calibration-test\.toml:16: no cell reported .*'nope'"):
        write_report(tmp_path)


def test_a_cell_that_raises_or_returns_junk_is_an_error_record() -> None:
    status, error, _, metrics = run_cell("sleep", {"seconds": -1}, 0)
    assert (status, metrics) == ("error", {})
    assert error == "ValueError: seconds must be a non-negative number, got -1"
    status, error, _, _ = run_cell("no-such-experiment", {}, 0)
    assert status == "error" and "unknown experiment 'no-such-experiment'" in error


def test_the_same_cell_gives_the_same_bytes() -> None:
    first = run_cell("sleep", {"x": 3}, 7)[3]
    second = run_cell("sleep", {"x": 3}, 7)[3]
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert run_cell("sleep", {"x": 3}, 8)[3] != first


def test_a_store_where_every_cell_failed_still_gets_a_report(tmp_path: Path) -> None:
    spec_path = calibration_spec(tmp_path, xs=2, seeds=1)
    spec_path.write_text(spec_path.read_text().replace("fail = false", "fail = true"))
    _fill(tmp_path, spec_path)
    report = write_report(tmp_path).read_text()
    assert "0 ok, 2 failed" in report and "## Failed cells (2)" in report
    assert "(No finished cells for this plot yet.)" in report
