"""A pending array task cancelled on its own leaves no record (Slurm 22.05.8's behaviour, as
captured in tests/differential/golden/arrays.json), and a window still sees new jobs after it."""

from __future__ import annotations

from pathlib import Path

from emulator.model.platform_file import load_platform
from emulator.session import Session
from emulator.slurmctld import Controller

LAB = load_platform(Path(__file__).resolve().parents[2] / "resources/platforms/lab.toml")


def test_a_cancelled_pending_task_is_gone_from_every_view() -> None:
    ctl = Controller(LAB, "backfill")
    assert ctl.execute(["sbatch", "--array=1-6%2", "--wrap", "sleep 300"]).exit_code == 0
    ctl.advance(5)
    assert ctl.execute(["scancel", "1_6"]).exit_code == 0
    shown = ctl.execute(["scontrol", "show", "job", "1_6"])
    assert (shown.stdout, shown.exit_code) == ("Job 1_6 not found\n", 1)
    assert "1_6" not in ctl.execute(["squeue", "-r", "-t", "all"]).stdout
    assert "1_6" not in ctl.execute(["sacct", "-X"]).stdout
    assert "1_[3-5%2]" in ctl.execute(["squeue"]).stdout  # out of the pending range
    running = ctl.execute(["scancel", "1_1"])  # a running task is cancelled, and kept
    assert running.exit_code == 0
    assert "1_1" in ctl.execute(["squeue", "-t", "all"]).stdout


def test_a_session_sees_jobs_submitted_after_a_forgotten_task() -> None:
    session = Session(LAB, "backfill")
    session.command('sbatch --array=1-6%2 --wrap "sleep 300"')
    session.run_until(5)
    assert len(session.snapshot().jobs.name) == 6
    session.command("scancel 1_6")
    session.command('sbatch -J after --wrap "sleep 300"')
    assert "after" in session.snapshot().jobs.name
