"""srun and salloc through the daemon: they answer when their job ends in simulated time, and
the daemon serves everyone else meanwhile (the ``sbatch -W`` wait)."""

from __future__ import annotations

from typing import Any


def test_srun_in_the_daemon_waits_without_blocking_others(make_daemon: Any) -> None:
    running = make_daemon()
    exec_ = {"op": "exec", "env": {}, "cwd": "/"}
    with running.client() as waiter, running.client() as other:
        waiter.send({**exec_, "argv": ["srun", "-n", "16", "sleep", "100"]})
        first = waiter.receive()
        assert first["partial"] is True and first["stdout"] == first["stderr"] == ""
        waiter_2 = running.client()
        waiter_2.send({**exec_, "argv": ["salloc", "-n", "1", "sleep", "10"]})
        second = waiter_2.receive()  # waits behind job 1
        assert second["stderr"] == (
            "salloc: Pending job allocation 2\nsalloc: job 2 queued and waiting for resources\n"
        )
        other.call("clock", action="advance", value=99)
        assert other.call(**exec_, argv=["squeue", "-h", "-o", "%i %T"])["stdout"] == (
            "2 PENDING\n1 RUNNING\n"  # squeue lists pending jobs first
        )
        other.call("clock", action="advance", value=20)  # job 1 ends at 100, job 2 at 110
        assert waiter.receive()["exit_code"] == 0
        assert waiter_2.receive()["exit_code"] == 0
        waiter_2.close()
