"""BSP jobs submitted with sbatch (``-n``, ``--emulate-runtime`` as Tb, ``--bsp-sigma``,
``--bsp-task-bw``) run exactly as the same jobs read from a BSP CSV workload
(workloads/bsp_csv.py): same nodes, same start and end under the network model."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.engine import Engine
from emulator.model.job import Communication, JobState
from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller
from resources import platform_path
from workloads.bsp_csv import read_bsp_csv

TESTBED = load_platform(platform_path("oas-testbed"))
WORKLOAD = """\
job_id,submit,tasks,base_time,sigma,task_bw,time_limit
1,0,3,100,0.5,0.6,1200
2,10,3,100,0.5,0.6,1200
3,20,2,50,0.2,0.3,1200
4,30,4,80,0.7,0.5,600
5,30,1,40,1,0,600
6,45,5,90,0.4,0.25,1200
"""


def script(tasks: int, base_time: int, sigma: str, task_bw: str, limit: int) -> str:
    """A job script giving the BSP parameters as #SBATCH directives."""
    return (
        f"#!/bin/sh\n#SBATCH -n {tasks} -t {limit // 60}\n"
        f"#SBATCH --emulate-runtime={base_time // 60}:{base_time % 60:02d}\n"
        f"#SBATCH --bsp-sigma={sigma} --bsp-task-bw={task_bw}\n./bsp\n"
    )


def through_sbatch(scheduler: str) -> Controller:
    ctl = Controller(TESTBED, scheduler)
    for row in WORKLOAD.splitlines()[1:]:
        _, submit, tasks, base_time, sigma, task_bw, limit = row.split(",")
        ctl.advance_to(float(submit))
        text = script(int(tasks), int(base_time), sigma, task_bw, int(limit))
        result = ctl.execute(["sbatch"], stdin=text)
        assert (result.stderr, result.exit_code) == ("", 0)
    ctl.wait()
    return ctl


@pytest.mark.parametrize("scheduler", ["coalloc", "coalloc:alloc=firstfit", "coalloc:order=sjf"])
def test_sbatch_and_csv_give_the_same_schedule(tmp_path: Path, scheduler: str) -> None:
    csv = tmp_path / "bsp.csv"
    csv.write_text(WORKLOAD)
    engine = Engine(TESTBED, scheduler)
    engine.feed(read_bsp_csv(csv))
    engine.run()
    ctl = through_sbatch(scheduler)
    assert len(ctl.engine.jobs) == len(engine.jobs) == 6
    spanning = 0
    for job_id, expected in engine.jobs.items():
        job = ctl.engine.jobs[job_id]
        assert job.request.communication == expected.request.communication
        assert (job.state, job.nodes) == (expected.state, expected.nodes)
        assert (job.start, job.end) == (expected.start, expected.end)
        assert job.slowdown_max == expected.slowdown_max
        clusters = {TESTBED.nodes[n].cluster for n in job.nodes}
        spanning += len(clusters) > 1
    assert spanning >= 2  # the network model was exercised
    assert any(job.slowdown_max > 1 for job in ctl.engine.jobs.values())


def test_the_options_on_the_command_line() -> None:
    ctl = Controller(TESTBED, "coalloc")
    argv = ["sbatch", "-n", "2", "-t", "10", "--emulate-runtime=1:30", "--bsp-sigma=0.25"]
    assert ctl.execute([*argv, "--bsp-task-bw", "0.1", "--wrap", "x"]).exit_code == 0
    assert ctl.execute(["sbatch", "--bsp-task-bw=2", "--wrap", "sleep 120"]).exit_code == 0
    assert ctl.execute(["sbatch", "--wrap", "z"]).exit_code == 0
    first, second, plain = (ctl.engine.jobs[i].request for i in (1, 2, 3))
    assert first.communication == Communication(90.0, 0.25, 0.1)
    assert first.clusters == ()  # under a grid scheduler, the grid places it
    assert second.communication == Communication(120.0, 1.0, 2.0)  # Tb from the sleep line
    assert plain.communication is None
    ctl.wait()
    assert ctl.engine.jobs[1].state is JobState.COMPLETED
    assert ctl.engine.jobs[1].end == pytest.approx(90 * (0.25 + 0.75))  # one cluster: SC = 1


def test_without_a_grid_scheduler_sbatch_keeps_slurms_cluster_rule() -> None:
    ctl = Controller(TESTBED, "easy")
    assert ctl.execute(["sbatch", "--bsp-task-bw=1", "--wrap", "x"]).exit_code == 0
    assert ctl.engine.jobs[1].request.clusters == ("c0",)  # the local cluster, as in Slurm


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--bsp-sigma=1.5", "Invalid --bsp-sigma specification"),
        ("--bsp-sigma=-0.1", "Invalid --bsp-sigma specification"),
        ("--bsp-sigma=half", "Invalid --bsp-sigma specification"),
        ("--bsp-task-bw=-1", "Invalid --bsp-task-bw specification"),
        ("--bsp-task-bw=inf", "Invalid --bsp-task-bw specification"),
        ("--bsp-task-bw=nan", "Invalid --bsp-task-bw specification"),
    ],
)
def test_bad_values_are_refused_as_sbatch_refuses(option: str, message: str) -> None:
    ctl = Controller(TESTBED, "coalloc")
    result = ctl.execute(["sbatch", option, "--wrap", "x"])
    assert (result.stdout, result.stderr, result.exit_code) == (
        "",
        f"sbatch: error: {message}\n",
        255,
    )
    directive = ctl.execute(["sbatch"], stdin=f"#!/bin/sh\n#SBATCH {option}\nx\n")
    assert (directive.stderr, directive.exit_code) == (f"sbatch: error: {message}\n", 255)
    assert not ctl.engine.jobs


def test_help_documents_the_extensions() -> None:
    ctl = Controller(TESTBED, "coalloc")
    result = ctl.execute(["sbatch", "--help"])
    assert result.exit_code == 0 and not ctl.engine.jobs
    for text in ("--emulate-runtime=time", "--bsp-sigma=fraction", "--bsp-task-bw=bw", "-n tasks"):
        assert text in result.stdout
    assert ctl.execute(["sbatch", "--usage"]).stdout.startswith("Usage: sbatch")
