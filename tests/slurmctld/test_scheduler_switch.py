"""``scontrol update scheduler=SPEC`` and ``scontrol show config``: switching the scheduler at
runtime, for operators only, with a bad spec changing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.api.registry import available
from emulator.daemon.commands import is_mutating
from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

ROOT = Path(__file__).resolve().parents[2]
LAB = load_platform(ROOT / "resources/platforms/lab.toml")  # 4 nodes x 4 cores
KNOWN = ", ".join(available())  # cbf, coalloc, easy, fcfs, lsf, ...


def blocked_queue() -> Controller:
    """Under FCFS at t = 60: job 1 (12 cores, to t = 600) runs, job 2 (16 cores) waits for
    resources, and job 3 (4 cores, 5 minutes) waits behind it, though it would end before job 1
    and so could be backfilled."""
    ctl = Controller(LAB, "fcfs")
    for cores, minutes in ((12, 10), (16, 10), (4, 5)):
        argv = ["sbatch", "-n", str(cores), "-t", str(minutes), "--emulate-runtime", str(minutes)]
        assert ctl.execute([*argv, "--wrap", "work"]).exit_code == 0
    ctl.advance_to(60)
    return ctl


def states(ctl: Controller) -> str:
    return ctl.execute(["squeue", "-h", "-o", "%i %t %r"]).stdout


def scheduler_type(ctl: Controller) -> str:
    lines = ctl.execute(["scontrol", "show", "config"]).stdout.splitlines()
    return next(line for line in lines if line.startswith("SchedulerType"))


def test_the_operator_switches_and_the_next_pass_uses_the_new_scheduler() -> None:
    ctl = blocked_queue()
    assert states(ctl) == "2 PD Resources\n3 PD Priority\n1 R None\n"
    assert scheduler_type(ctl) == "SchedulerType           = fcfs"
    result = ctl.execute(["scontrol", "update", "scheduler=easy"], user="root")
    assert (result.stdout, result.stderr, result.exit_code) == ("", "", 0)
    assert scheduler_type(ctl) == "SchedulerType           = easy"
    ctl.advance_to(61)
    assert states(ctl) == "2 PD Resources\n1 R None\n3 R None\n"
    assert ctl.engine.jobs[3].start == 60  # the pass right after the switch backfilled it


def test_a_user_may_not_switch() -> None:
    ctl = blocked_queue()
    result = ctl.execute(["scontrol", "update", "scheduler=easy"], user="alice")
    assert (result.stderr, result.exit_code) == (
        "slurm_update error: Access/permission denied\n",
        1,
    )
    ctl.advance_to(120)
    assert scheduler_type(ctl) == "SchedulerType           = fcfs"
    assert states(ctl) == "2 PD Resources\n3 PD Priority\n1 R None\n"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bogus", f"unknown scheduler 'bogus' (available: {KNOWN})"),
        (
            "easy:depth=3",
            f"scheduler 'easy' has no option 'depth' (options: none); known schedulers: {KNOWN}",
        ),
        (
            "easy+cbf",
            "scheduler 'easy' is a local policy, expected a grid one here; "
            f"known schedulers: {KNOWN}",
        ),
    ],
)
def test_a_bad_spec_is_refused_and_changes_nothing(spec: str, message: str) -> None:
    assert {"cbf", "coalloc", "easy", "fcfs", "lsf"} <= set(available())
    ctl = blocked_queue()
    result = ctl.execute(["scontrol", "update", f"scheduler={spec}"], user="root")
    expected = f"slurm_update error: Invalid scheduler specification: {message}\n"
    assert (result.stdout, result.stderr, result.exit_code) == ("", expected, 1)
    ctl.advance_to(120)
    assert str(ctl.engine.spec) == "fcfs"
    assert states(ctl) == "2 PD Resources\n3 PD Priority\n1 R None\n"


def test_scheduler_type_alias_options_and_mixing() -> None:
    ctl = blocked_queue()
    spec = "coalloc:order=sjf,alloc=firstfit+easy"
    assert ctl.execute(["scontrol", "update", f"SchedulerType={spec}"]).exit_code == 0
    assert scheduler_type(ctl) == f"SchedulerType           = {spec}"
    mixed = ctl.execute(["scontrol", "update", "scheduler=cbf", "JobId=3"])
    assert (mixed.stderr, mixed.exit_code) == (
        "Update of this parameter is not supported: JobId=3\nRequest aborted\n",
        1,
    )
    assert str(ctl.engine.spec) == spec
    assert is_mutating(["scontrol", "update", "scheduler=cbf"])  # the daemon journals it


def test_show_config_layout() -> None:
    ctl = blocked_queue()
    assert ctl.execute(["scontrol", "show", "config"]).stdout == (
        "Configuration data as of 2026-11-22T00:01:00\n"
        "ClusterName             = lab\n"
        "EnforcePartLimits       = NO\n"
        "FirstJobId              = 1\n"
        "MaxArraySize            = 1001\n"
        "MaxNodeCount            = 4\n"
        "MinJobAge               = 300 sec\n"
        "NEXT_JOB_ID             = 4\n"
        "PriorityType            = priority/basic\n"
        "SchedulerType           = fcfs\n"
        "SelectType              = select/cons_tres\n"
        "SelectTypeParameters    = CR_CORE\n"
        "SLURM_VERSION           = 22.05.8\n"
        "\n"
        "Slurmctld(primary) at localhost is UP\n"
    )


def test_the_lines_match_the_real_slurm_show_config() -> None:
    sample = Path("/work/shared/reference/slurm-samples/extra-scontrol-show-config.txt")
    if not sample.exists():
        pytest.skip("Slurm samples not available")
    real = sample.read_text().splitlines()
    ours = Controller(LAB, "easy").execute(["scontrol", "show", "config"]).stdout.splitlines()
    keys = [line.partition(" ")[0] for line in ours[1:-2]]
    assert keys == [line.partition(" ")[0] for line in real if line.partition(" ")[0] in keys]
    differ = {"NEXT_JOB_ID", "SchedulerType"}  # 28 there; batchlab's spec for sched/backfill
    same = [line for line in ours[1:-2] if line.partition(" ")[0] not in differ]
    assert len(same) == 10 and set(same) <= set(real)  # same keys, values, layout and order
    assert ours[-2:] == ["", "Slurmctld(primary) at localhost is UP"]  # the sample's host: vm
