"""Slurm's node ranges (issue 19, Deliver 2): ``sbatch -N MIN-MAX`` starts under every local
policy with as many nodes as are free, up to MAX, and squeue / scontrol show the count as Slurm
prints it (squeue's NODES: MIN while pending; scontrol's NumNodes: MIN-MAX while pending)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.model.job import JobState, Moldable
from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller
from resources import platform_path

ROOT = Path(__file__).resolve().parents[2]
LAB = load_platform(ROOT / "resources/platforms/lab.toml")  # node[01-04], 4 cores each
POLICIES = ["fcfs", "easy", "cbf", "lsf"]


def submit(ctl: Controller, *argv: str) -> None:
    result = ctl.execute(["sbatch", *argv, "--wrap", "sleep 100"])
    assert (result.stderr, result.exit_code) == ("", 0)


def line(ctl: Controller, command: list[str], prefix: str) -> str:
    text = ctl.execute(command).stdout
    return next(row.strip() for row in text.splitlines() if row.strip().startswith(prefix))


@pytest.mark.parametrize("policy", POLICIES)
def test_a_range_with_tasks_starts_on_as_many_nodes_as_are_free(policy: str) -> None:
    ctl = Controller(LAB, policy)
    submit(ctl, "-N", "1-3", "-n", "6")  # idle: 3 nodes, 2 tasks each
    ctl.advance_to(1)
    job = ctl.engine.jobs[1]
    assert (len(job.nodes), job.node_cores, job.cores) == (3, (2, 2, 2), 6)
    assert line(ctl, ["squeue"], "1 ").split()[-2:] == ["3", "node[01-03]"]
    assert "NumNodes=3 NumCPUs=6 NumTasks=6" in ctl.execute(["scontrol", "show", "job", "1"]).stdout


@pytest.mark.parametrize("policy", POLICIES)
def test_a_range_without_tasks_takes_one_task_per_node_it_gets(policy: str) -> None:
    ctl = Controller(LAB, policy)
    submit(ctl, "-N", "1-3", "-n", "6")
    submit(ctl, "-N", "2-4")  # each node has room: all four, one task each
    ctl.advance_to(1)
    job = ctl.engine.jobs[2]
    assert (len(job.nodes), job.cores) == (4, 4)
    assert "NumNodes=4 NumCPUs=4 NumTasks=4" in ctl.execute(["scontrol", "show", "job", "2"]).stdout


@pytest.mark.parametrize("policy", POLICIES)
def test_a_pending_range_shows_min_in_squeue_and_the_range_in_scontrol(policy: str) -> None:
    ctl = Controller(LAB, policy)
    submit(ctl, "-N", "4", "--exclusive")  # the whole cluster
    submit(ctl, "-N", "2-3", "--exclusive", "-t", "10")
    ctl.advance_to(1)
    assert line(ctl, ["squeue"], "2 ").split()[-2] == "2"
    assert "NumNodes=2-3 " in ctl.execute(["scontrol", "show", "job", "2"]).stdout
    ctl.advance_to(101)  # the first ends at 100: the range gets 3 of the 4 nodes
    assert len(ctl.engine.jobs[2].nodes) == 3
    assert "NumNodes=3 " in ctl.execute(["scontrol", "show", "job", "2"]).stdout


@pytest.mark.parametrize("policy", POLICIES)
def test_a_range_is_planned_with_min_and_backfilled(policy: str) -> None:
    ctl = Controller(LAB, policy)
    submit(ctl, "-N", "3", "--exclusive")  # 3 nodes busy until 100
    submit(ctl, "-N", "1-2", "--exclusive", "-t", "5")  # MIN = 1 fits on node04 now
    ctl.advance_to(1)
    assert [LAB.nodes[n].name for n in ctl.engine.jobs[2].nodes] == ["node04"]


def test_sbatch_bpu_options_make_a_moldable_job_with_a_home_site() -> None:
    ctl = Controller(load_platform(platform_path("bpu-3sites")), "bpu")
    argv = ["sbatch", "--bpu=4", "--bpu-serial=0.1", "--home-site", "east", "-t", "10"]
    assert ctl.execute([*argv, "--wrap", "sleep 60"]).exit_code == 0
    request = ctl.engine.jobs[1].request
    assert (request.moldable, request.origin) == (Moldable(4.0, 0.1), "east")
    ctl.advance_to(1)
    job = ctl.engine.jobs[1]
    # north leads the table (1.40), but the home site east had the BPUs: 2 x 2.0
    assert (job.state, job.cluster, len(job.nodes)) == (JobState.RUNNING, 2, 2)


@pytest.mark.parametrize(
    ("argv", "stderr"),
    [
        (["--bpu=0"], "sbatch: error: Invalid --bpu specification\n"),
        (["--bpu=x"], "sbatch: error: Invalid --bpu specification\n"),
        (["--bpu-serial=0.5"], "sbatch: error: Invalid --bpu-serial specification\n"),
        (["--bpu=2", "--bpu-serial=1"], "sbatch: error: Invalid --bpu-serial specification\n"),
        (
            ["--bpu=2", "--home-site=mars"],
            "sbatch: error: Invalid --home-site specification: no cluster mars\n",
        ),
    ],
)
def test_bad_bpu_options_are_refused_in_one_line(argv: list[str], stderr: str) -> None:
    result = Controller(LAB, "fcfs").execute(["sbatch", *argv, "--wrap", "x"])
    assert (result.stderr, result.exit_code != 0) == (stderr, True)


def test_scontrol_update_numnodes_sets_a_range() -> None:
    ctl = Controller(LAB, "fcfs")
    submit(ctl, "-N", "4", "--exclusive")
    submit(ctl, "-N", "1", "--exclusive")
    result = ctl.execute(["scontrol", "update", "JobId=2", "NumNodes=2-3"])
    assert (result.stderr, result.exit_code) == ("", 0)
    request = ctl.engine.jobs[2].request
    assert (request.min_nodes, request.max_nodes) == (2, 3)
    assert "NumNodes=2-3 " in ctl.execute(["scontrol", "show", "job", "2"]).stdout
