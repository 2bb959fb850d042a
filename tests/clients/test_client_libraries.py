"""Four Slurm client libraries submit, poll and cancel through the shims, unchanged: simple-slurm,
submitit, parsl's SlurmProvider and dask-jobqueue's SLURMCluster (the ``dev`` extra installs
them). Each sees its jobs pending, running after the clock moves, and cancelled."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest


def advance(running: Any, seconds: float) -> None:
    running.call("clock", action="advance", value=seconds)


def states(running: Any) -> dict[str, str]:
    out = running.run("squeue", "-h", "-t", "all", "-o", "%i %T")["stdout"]
    return dict(line.split() for line in out.splitlines())


def test_simple_slurm(shimmed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    simple_slurm = pytest.importorskip("simple_slurm")
    monkeypatch.chdir(tmp_path)
    slurm = simple_slurm.Slurm(
        job_name="simple", ntasks=2, time="00:10:00", mem_per_cpu="100M", open_mode="append"
    )
    job_id = slurm.sbatch("sleep 300", verbose=False)
    assert job_id == 1
    slurm.squeue.update_squeue()
    assert slurm.squeue.jobs[1]["ST"] == "PD"
    advance(shimmed, 60)
    slurm.squeue.update_squeue()
    assert slurm.squeue.jobs[1]["ST"] == "R" and slurm.squeue.jobs[1]["NAME"] == "simple"
    slurm.scancel.cancel_job(job_id)
    assert states(shimmed) == {"1": "CANCELLED"}
    # srun returns when its job ends in simulated time (a new Slurm: this one keeps its commands)
    interactive = simple_slurm.Slurm(ntasks=1, time="00:10:00")
    waiting = threading.Thread(target=lambda: results.append(interactive.srun("sleep 20")))
    results: list[int] = []
    waiting.start()
    for _ in range(400):  # until srun's job 2 is in
        if "2" in states(shimmed):
            break
        time.sleep(0.01)
    assert states(shimmed)["2"] == "RUNNING" and results == []
    advance(shimmed, 20)
    waiting.join(10)
    assert results == [0] and states(shimmed)["2"] == "COMPLETED"


@pytest.mark.slow
def test_submitit(shimmed: Any, tmp_path: Path) -> None:
    submitit = pytest.importorskip("submitit")
    executor = submitit.SlurmExecutor(folder=tmp_path / "logs")
    executor.update_parameters(time=10, ntasks_per_node=1, mem="1G", signal_delay_s=60)
    job = executor.submit(sum, [1, 2])
    assert job.job_id == "1"
    assert job.state == "PENDING"
    advance(shimmed, 5)
    job.watcher.update()
    assert job.state == "RUNNING"
    job.cancel(check=True)
    job.watcher.update()
    assert job.state.startswith("CANCELLED")
    text = shimmed.run("scontrol", "show", "job", "1")["stdout"]
    assert "Requeue=1" in text and "StdOut=" + str(tmp_path / "logs") in text


@pytest.mark.slow
def test_parsl_slurm_provider(shimmed: Any, tmp_path: Path) -> None:
    pytest.importorskip("parsl")
    from parsl.providers import SlurmProvider

    provider = SlurmProvider(
        partition="batch", nodes_per_block=1, walltime="00:10:00", exclusive=False
    )
    provider.script_dir = str(tmp_path)
    job_id = provider.submit("sleep 300", 1, job_name="parsl.test")
    assert job_id == "1"
    assert [s.state.name for s in provider.status([job_id])] == ["PENDING"]
    advance(shimmed, 5)
    assert [s.state.name for s in provider.status([job_id])] == ["RUNNING"]
    assert provider.cancel([job_id]) == [True]
    assert [s.state.name for s in provider.status([job_id])] == ["CANCELLED"]


@pytest.mark.slow
def test_dask_jobqueue(shimmed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dask_jobqueue = pytest.importorskip("dask_jobqueue")
    monkeypatch.chdir(tmp_path)
    cluster = dask_jobqueue.SLURMCluster(
        cores=1,
        memory="1GB",
        walltime="00:10:00",
        processes=1,
        log_directory=str(tmp_path),
        scheduler_options={"dashboard_address": None},
    )
    try:
        cluster.scale(jobs=2)
        for _ in range(200):
            if len(states(shimmed)) == 2:
                break
            time.sleep(0.05)
        assert states(shimmed) == {"1": "PENDING", "2": "PENDING"}
        advance(shimmed, 5)
        assert states(shimmed) == {"1": "RUNNING", "2": "RUNNING"}
    finally:
        cluster.close()
    assert states(shimmed) == {"1": "CANCELLED", "2": "CANCELLED"}
