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
        last = waiter_2.receive()
        assert last["exit_code"] == 0
        assert last["stderr"] == (  # salloc's lines once its job has ended (real 22.05.8's)
            "salloc: job 2 has been allocated resources\n"
            "salloc: Granted job allocation 2\n"
            "salloc: Relinquishing job allocation 2\n"
        )
        waiter_2.close()


def test_srun_and_salloc_jobs_survive_a_restart(make_daemon: Any) -> None:
    running = make_daemon()
    exec_ = {"op": "exec", "env": {}, "cwd": "/"}
    with running.client() as waiter, running.client() as waiter_2:
        waiter.send({**exec_, "argv": ["srun", "-n", "16", "sleep", "100"]})
        assert waiter.receive()["partial"] is True
        running.call("clock", action="advance", value=10)
        waiter_2.send({**exec_, "argv": ["salloc", "-n", "1", "true"]})  # waits behind job 1
        assert waiter_2.receive()["partial"] is True
        before = running.run("squeue", "-h", "-o", "%i %j %T %M")["stdout"]
    assert before == "2 interactive PENDING 0:00\n1 sleep RUNNING 0:10\n"  # salloc's name
    running.stop()
    again = make_daemon()  # the journal replayed: same jobs, same states, same time
    assert again.run("squeue", "-h", "-o", "%i %j %T %M")["stdout"] == before
