"""``sbatch -W`` through the daemon: the submitted line at once, the exit status when the job
ends, and the daemon serving everyone else meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from emulator.daemon.client import Client
from tests.daemon.helpers import REPO


def _exec(*argv: str) -> dict[str, Any]:
    return {"op": "exec", "argv": list(argv), "env": {}, "cwd": "/"}


def test_a_waiting_sbatch_does_not_block_other_clients(make_daemon: Any) -> None:
    running = make_daemon()
    partial: list[dict[str, Any]] = []
    with running.client() as waiter, running.client() as other:
        waiter.send(_exec("sbatch", "-W", "-t", "20", "--wrap", "sleep 600\nexit 3"))
        first = waiter.receive()  # answered at once, before the job even started
        assert first["partial"] is True and first["stdout"] == "Submitted batch job 1\n"
        # the other client is served while job 1 waits to end (the clock is paused)
        assert other.call(**_exec("sbatch", "--wrap", "sleep 60"))["stdout"] == (
            "Submitted batch job 2\n"
        )
        other.call("clock", action="advance", value=300)
        squeue = other.call(**_exec("squeue", "-h", "-o", "%i %T"))["stdout"]
        assert squeue == "1 RUNNING\n"
        assert other.call("ping")["ok"]
        other.call("clock", action="advance", value=301)  # job 1 ends at 600
        final = waiter.request({"op": "ping"}, partial.append)  # reads the -W answer first
        assert final["ok"] and final["exit_code"] == 3 and final["stdout"] == ""
        assert "partial" not in final and partial == []
        assert waiter.receive()["user"]  # then the ping's answer, in order


def test_the_job_ending_early_ends_the_wait_with_its_status(make_daemon: Any) -> None:
    running = make_daemon()
    with running.client() as waiter, running.client() as other:
        shown: list[dict[str, Any]] = []
        waiter.send(_exec("sbatch", "-W", "--array=1-2", "-t", "20", "--wrap", "sleep 600"))
        shown.append(waiter.receive())
        other.call("clock", action="advance", value=10)
        assert other.call(**_exec("scancel", "1_2"))["exit_code"] == 0
        other.call("clock", action="advance", value=600)
        final = waiter.receive()
        assert shown[0]["stdout"] == "Submitted batch job 1\n"
        assert final["exit_code"] == 1  # a cancelled task: 1, the highest of the array's codes


def test_the_client_prints_the_line_then_exits_with_the_job_s_code(make_daemon: Any) -> None:
    running = make_daemon()
    command = [sys.executable, "-m", "emulator.cli", "--socket", str(running.socket), "sbatch"]
    waiting = subprocess.Popen(
        [*command, "-W", "--wrap", "sleep 100\nexit 7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "BATCHLAB_SOCKET": str(running.socket)},
    )
    try:
        assert waiting.stdout is not None
        assert waiting.stdout.readline() == "Submitted batch job 1\n"  # printed, still waiting
        assert waiting.poll() is None
        with Client(running.socket) as other:
            assert other.call(**_exec("squeue", "-h", "-o", "%i"))["stdout"] == "1\n"
            other.call("clock", action="advance", value=101)
        assert waiting.wait(30) == 7
        assert waiting.stderr is not None and waiting.stderr.read() == ""
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.wait()


def test_a_waiter_that_hangs_up_is_forgotten_and_its_job_kept(make_daemon: Any) -> None:
    running = make_daemon()
    waiter = running.client()
    waiter.send(_exec("sbatch", "-W", "--wrap", "sleep 60"))
    assert waiter.receive()["partial"]
    waiter.close()
    with running.client() as other:
        other.call("clock", action="advance", value=61)
        sacct = other.call(**_exec("sacct", "-X", "-n", "-o", "jobid,state"))["stdout"]
    assert sacct.split() == ["1", "COMPLETED"]
    assert running.daemon.service.job_waits == []


def test_a_waiting_submission_replays_without_running_the_clock(make_daemon: Any) -> None:
    running = make_daemon()
    with running.client() as waiter:
        waiter.send(_exec("sbatch", "-W", "--wrap", "sleep 60"))
        assert waiter.receive()["partial"]
    running.stop()
    again = make_daemon()
    assert again.call("status")["recovered"] == 1
    assert again.call("clock", action="show")["clock"]["now"] == 0.0
    assert again.run("squeue", "-h", "-o", "%i %T")["stdout"] == "1 PENDING\n"
