"""sacct keeps a finished job's row (``JobRecord.final_row``) instead of describing it at every
read; whatever changes the job afterwards (a requeue, its next end, a cancellation, an update)
must show at the next read. The oracle: the same sacct with every kept row dropped."""

from __future__ import annotations

from pathlib import Path

from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

LAB = load_platform(Path(__file__).resolve().parents[2] / "resources/platforms/lab.toml")
SACCT = ["sacct", "-a", "-P", "-o", "JobID,JobName,State,ExitCode,Elapsed,NodeList,Start,End"]


def _sacct(ctl: Controller) -> str:
    result = ctl.execute(SACCT)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _same_as_described_afresh(ctl: Controller) -> str:
    shown = _sacct(ctl)
    kept = {engine_id: record.final_row for engine_id, record in ctl.records.items()}
    for record in ctl.records.values():
        record.final_row = None
    assert _sacct(ctl) == shown
    for engine_id, row in kept.items():  # put them back: the next read uses them again
        ctl.records[engine_id].final_row = row
    return shown


def _run(ctl: Controller, *argv: str) -> None:
    result = ctl.execute(list(argv))
    assert result.exit_code == 0, result.stderr


def test_a_kept_row_never_hides_a_change() -> None:
    ctl = Controller(LAB, "fcfs")
    _run(ctl, "sbatch", "-J", "e", "--array=0-1", "--emulate-runtime", "0:10", "--wrap", "x")
    _run(ctl, "sbatch", "-J", "f", "--emulate-runtime", "5:00", "--wrap", "x")
    _run(ctl, "sbatch", "-J", "g", "--emulate-runtime", "9:00", "--wrap", "x")
    ctl.advance_to(30)
    _run(ctl, "scancel", "3")
    ctl.advance_to(60)
    shown = _same_as_described_afresh(ctl)
    assert "1_0|e|COMPLETED|0:0|00:00:10" in shown and "3|g|CANCELLED by 0|0:0" in shown
    assert "3.batch|batch|CANCELLED|0:15" in shown and "2|f|RUNNING" in shown
    kept = [record for record in ctl.records.values() if record.final_row is not None]
    assert len(kept) == 3  # the finished ones: the next read does not describe them again
    assert all(record.final_row.job.state.finished for record in kept)  # type: ignore[union-attr]

    _run(ctl, "scontrol", "requeue", "1_0")  # finished jobs back in the queue
    _run(ctl, "scontrol", "requeue", "3")
    shown = _same_as_described_afresh(ctl)
    assert "1_[0]|e|PENDING" in shown and "1_0|e|COMPLETED" not in shown
    assert "3|g|PENDING" in shown and "CANCELLED" not in shown
    ctl.advance_to(900)  # they run and end again, later
    shown = _same_as_described_afresh(ctl)
    assert "1_0|e|COMPLETED|0:0|00:00:10|node01|2026-11-22T00:01:00" in shown
    assert "3.batch|batch|COMPLETED|0:0|00:09:00" in shown
