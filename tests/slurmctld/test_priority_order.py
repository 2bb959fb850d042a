"""An operator's priority reorders the queue (priority/basic: higher first, then FIFO):
``scontrol update JobId=N Priority=P`` and ``sbatch --priority``; a released job goes below
every other (its new priority is the lowest)."""

from __future__ import annotations

from pathlib import Path

from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

LAB = load_platform(Path(__file__).resolve().parents[2] / "resources/platforms/lab.toml")


def _starts(ctl: Controller) -> list[int]:
    """Slurm ids in the order they started."""
    jobs = sorted(
        (job for job in ctl.engine.jobs.values() if job.start == job.start),
        key=lambda job: (job.start, job.id),
    )
    return [ctl.records[job.id].slurm_id for job in jobs]


def _filled(ctl: Controller) -> None:
    """Jobs 1 to 4 each hold every node for 100 s: they run one after the other."""
    for _ in range(4):
        ctl.execute(["sbatch", "-N", "4", "--exclusive", "-t", "2", "--wrap", "sleep 100"])
    ctl.advance(10)


def test_scontrol_update_priority_moves_a_job_ahead() -> None:
    ctl = Controller(LAB, "backfill")
    _filled(ctl)
    done = ctl.execute(["scontrol", "update", "JobId=4", "Priority=4294967000"])
    assert (done.stderr, done.exit_code) == ("", 0)
    shown = ctl.execute(["squeue", "-h", "-o", "%i %Q"]).stdout
    assert shown.split("\n")[0] == "4 4294967000"
    ctl.execute(["sbatch", "-N", "4", "--exclusive", "-t", "2", "--wrap", "sleep 100"])  # job 5
    ctl.execute(["scontrol", "update", "JobId=2", "Priority=1"])  # below every other job
    ctl.advance(1000)
    assert _starts(ctl) == [1, 4, 3, 5, 2]


def test_sbatch_priority_and_who_may_raise_it() -> None:
    ctl = Controller(LAB, "backfill")
    _filled(ctl)
    refused = ctl.execute(["scontrol", "update", "JobId=4", "Priority=4294967000"], user="alice")
    assert refused.exit_code == 1  # (root's job: not alice's to touch)
    ctl.execute(
        ["sbatch", "--priority=4294967000", "-N", "4", "--exclusive", "-t", "2", "--wrap", "x"]
    )
    ctl.advance(1000)
    assert _starts(ctl) == [1, 5, 2, 3, 4]  # root's --priority puts job 5 first


def test_a_released_job_goes_below_the_others() -> None:
    ctl = Controller(LAB, "backfill")
    _filled(ctl)
    ctl.execute(["scontrol", "hold", "2"])
    ctl.execute(["scontrol", "release", "2"])
    ctl.advance(1000)
    assert _starts(ctl) == [1, 3, 4, 2]
