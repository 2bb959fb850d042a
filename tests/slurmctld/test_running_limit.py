"""``scontrol update JobId=N TimeLimit=T`` on a running job (Slurm 22.05.8 on the lab: root
raised a running job's limit with no message, tests/differential/golden/errors.json line 21): an
operator may raise it, the owner only lower it; the job then ends at the new limit or when its
work is done, whichever comes first."""

from __future__ import annotations

from pathlib import Path

from emulator.model.job import JobState
from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

LAB = load_platform(Path(__file__).resolve().parents[2] / "resources/platforms/lab.toml")


def _state(ctl: Controller) -> JobState:
    return next(iter(ctl.engine.jobs.values())).state


def test_root_raises_a_running_jobs_limit_and_it_runs_to_its_end() -> None:
    ctl = Controller(LAB, "backfill")
    ctl.execute(["sbatch", "-t", "1", "--wrap", "sleep 300"], user="alice", cwd="/tmp")
    ctl.advance(30)
    assert _state(ctl) is JobState.RUNNING
    raised = ctl.execute(["scontrol", "update", "JobId=1", "TimeLimit=10"])
    assert (raised.stdout, raised.stderr, raised.exit_code) == ("", "", 0)
    assert "TimeLimit=00:10:00" in ctl.execute(["scontrol", "show", "job", "1"]).stdout
    ctl.advance(100)  # past the old limit (60 s after its start)
    assert _state(ctl) is JobState.RUNNING
    ctl.advance(200)  # its 300 s of work done, inside the new limit
    job = next(iter(ctl.engine.jobs.values()))
    assert job.state is JobState.COMPLETED and job.end - job.start == 300


def test_the_owner_may_only_lower_it_and_is_then_held_to_it() -> None:
    ctl = Controller(LAB, "backfill")
    ctl.execute(["sbatch", "-t", "5", "--wrap", "sleep 300"], user="alice", cwd="/tmp")
    ctl.advance(90)
    denied = ctl.execute(["scontrol", "update", "JobId=1", "TimeLimit=10"], user="alice")
    assert denied.exit_code == 1
    assert denied.stderr == "slurm_update error: Access/permission denied\n"
    lowered = ctl.execute(["scontrol", "update", "JobId=1", "TimeLimit=1"], user="alice")
    assert lowered.exit_code == 0
    ctl.advance(1)  # already past one minute: killed at once
    job = next(iter(ctl.engine.jobs.values()))
    assert job.state is JobState.TIMEOUT and job.end == job.start + 90
