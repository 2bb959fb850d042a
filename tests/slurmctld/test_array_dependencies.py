"""Dependencies naming array tasks, as Slurm 22.05.8 takes them: ``afterany:1_1`` waits for that
one task, ``afterok:1_*`` (or ``afterok:1``) for every task, and ``aftercorr:1`` makes each task
wait for the other array's task of the same id (sbatch.1, ``--dependency``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

LAB = load_platform(Path(__file__).resolve().parents[2] / "resources/platforms/lab.toml")


def _array() -> Controller:
    ctl = Controller(LAB, "backfill")
    result = ctl.execute(["sbatch", "--array=0-2", "--wrap", "sleep 30"])
    assert result.stdout == "Submitted batch job 1\n"
    return ctl


def _state(ctl: Controller, job: str) -> str:
    out = ctl.execute(["squeue", "-h", "-r", "-t", "all", "-j", job, "-o", "%T"]).stdout
    return out.strip()


@pytest.mark.parametrize(
    ("kind", "shown"),
    [
        ("afterany:1_1", "afterany:1_1(unfulfilled)"),
        ("afterok:1_1", "afterok:1_1(unfulfilled)"),
        ("afternotok:1_1", "afternotok:1_1(unfulfilled)"),
        ("after:1_1+1", "after:1_1+1(unfulfilled)"),
        ("afterok:1_*", "afterok:1_*(unfulfilled)"),
        ("afterany:1", "afterany:1_*(unfulfilled)"),
    ],
)
def test_a_task_dependency_is_accepted_and_shown(kind: str, shown: str) -> None:
    ctl = _array()
    ctl.execute(["scontrol", "hold", "1"])  # the array waits: nothing fulfils the dependency
    result = ctl.execute(["sbatch", f"--dependency={kind}", "--wrap", "sleep 5"])
    assert result.stdout == "Submitted batch job 2\n"
    ctl.advance(1)
    assert ctl.execute(["squeue", "-h", "-j", "2", "-o", "%E"]).stdout == shown + "\n"


def test_afterany_on_one_task_waits_for_that_task_only() -> None:
    ctl = _array()
    ctl.execute(["sbatch", "--dependency=afterany:1_0", "--wrap", "sleep 100"])  # job 2
    ctl.execute(["sbatch", "--dependency=afterany:1_1", "--wrap", "sleep 100"])  # job 3
    ctl.advance(5)
    ctl.execute(["scancel", "1_1"])
    ctl.advance(5)
    assert (_state(ctl, "2"), _state(ctl, "3")) == ("PENDING", "RUNNING")
    ctl.advance(25)  # task 0 ended at 30 s
    assert _state(ctl, "2") == "RUNNING"


def test_a_dependency_on_a_task_that_does_not_exist_is_dropped() -> None:
    ctl = _array()
    ctl.execute(["sbatch", "--dependency=afterok:1_7", "--wrap", "sleep 5"])
    ctl.advance(1)
    assert _state(ctl, "2") == "RUNNING"


def test_afterok_on_a_failed_task_is_never_satisfied() -> None:
    ctl = Controller(LAB, "backfill")
    ctl.execute(["sbatch", "--array=0-1", "--wrap", "sleep 5; exit 3"])
    ctl.execute(["sbatch", "--dependency=afterok:1_1", "--wrap", "sleep 50"])
    ctl.execute(["sbatch", "--dependency=afternotok:1_1", "--wrap", "sleep 50"])
    ctl.advance(10)
    reasons = ctl.execute(["squeue", "-h", "-t", "all", "-o", "%i %T %r"]).stdout
    assert "2 PENDING DependencyNeverSatisfied" in reasons
    assert "3 RUNNING None" in reasons


def test_aftercorr_pairs_tasks_of_the_same_id() -> None:
    """Task 1_0 is cancelled at 5 s, 1_1 completes at 30 s, array 1 has no task 3: 2_0 can
    never run, 2_1 waits for 1_1 alone and 2_3 runs at once. ``afterok`` on the whole array
    would keep every task of 2 pending for ever."""
    ctl = _array()
    ctl.execute(["sbatch", "--array=0,1,3", "--dependency=aftercorr:1", "--wrap", "sleep 100"])
    ctl.advance(5)
    ctl.execute(["scancel", "1_0"])
    ctl.advance(5)
    rows = ctl.execute(["squeue", "-h", "-r", "-j", "2", "-o", "%i %T %r"]).stdout.splitlines()
    assert sorted(rows) == [
        "2_0 PENDING DependencyNeverSatisfied",
        "2_1 PENDING Dependency",
        "2_3 RUNNING None",
    ]
    ctl.advance(25)
    assert _state(ctl, "2_1") == "RUNNING"


def test_tasks_freed_by_a_dependency_keep_their_array_place_in_the_queue() -> None:
    """Array 2's tasks and jobs 3 and 4 are freed when array 1 ends: they start in submission
    order, so 2_0-2_2 and 3 fill node01 and 4 goes to node02 (real Slurm 22.05.8, the
    differential scenario array-deps); an array task's engine id must not put it last."""
    ctl = Controller(LAB, "backfill")
    ctl.execute(["sbatch", "--array=0-2", "-t", "1", "--wrap", "sleep 15"])
    ctl.execute(["sbatch", "--array=0-2", "--dependency=aftercorr:1", "--wrap", "sleep 300"])
    ctl.execute(["sbatch", "--dependency=afterok:1", "--wrap", "sleep 300"])
    ctl.execute(["sbatch", "--dependency=afterany:1_1", "--wrap", "sleep 300"])
    ctl.advance(31)
    rows = ctl.execute(["squeue", "-h", "-r", "-o", "%i %N"]).stdout.splitlines()
    assert sorted(rows) == ["2_0 node01", "2_1 node01", "2_2 node01", "3 node01", "4 node02"]


def test_scontrol_update_gives_an_array_task_its_corresponding_dependency() -> None:
    ctl = _array()
    ctl.execute(["sbatch", "--array=0,3", "-H", "--wrap", "sleep 100"])  # job 2
    ctl.execute(["scontrol", "update", "JobId=2", "Dependency=aftercorr:1"])
    ctl.execute(["scontrol", "release", "2"])
    ctl.advance(5)
    rows = ctl.execute(["squeue", "-h", "-r", "-j", "2", "-o", "%i %T"]).stdout.splitlines()
    assert sorted(rows) == ["2_0 PENDING", "2_3 RUNNING"]  # array 1 has no task 3
