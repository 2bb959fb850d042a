"""Unclean stops: ``kill -9`` a daemon subprocess, start it again on the same state dir."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.client import Client, DaemonError, DaemonUnavailable
from emulator.daemon.server import StartError
from emulator.daemon.state import is_locked
from tests.daemon.helpers import LAB, spawn_foreground, wait_for_socket


def _exec(client: Client, *argv: str) -> dict[str, Any]:
    return client.call("exec", argv=list(argv), env={}, cwd="/")


def _places(short_dir: Path) -> tuple[Path, Path, list[str]]:
    """The socket, the state dir, and the daemon options that name them."""
    socket, state = short_dir / "s.sock", short_dir / "state"
    return socket, state, ["--state-dir", str(state), "--socket", str(socket)]


def _snapshot(socket: Path) -> tuple[str, str, dict[str, Any]]:
    with Client(socket) as client:
        clock = client.call("clock", action="show")["clock"]
        return _exec(client, "squeue")["stdout"], _exec(client, "sacct")["stdout"], clock


def _session(socket: Path) -> None:
    """Submissions, a cancellation, clock moves, more submissions."""
    with Client(socket) as client:
        for minutes in (1, 3, 10, 2, 7):
            assert (
                _exec(client, "sbatch", "--wrap", "x", "-t", str(minutes), "-n", "2")["exit_code"]
                == 0
            )
        _exec(client, "scancel", "3")
        client.call("clock", action="step")
        client.call("clock", action="advance", value=100)
        for minutes in (4, 1):
            _exec(client, "sbatch", "--wrap", "y", "-t", str(minutes))
        client.call("clock", action="advance", value=30.5)


def test_kill_9_then_restart_recovers_jobs_states_and_time(short_dir: Path) -> None:
    socket, state, where = _places(short_dir)
    first = spawn_foreground("--platform", str(LAB), "--paused", *where)
    try:
        wait_for_socket(socket, first)
        _session(socket)
        before = _snapshot(socket)
    finally:
        first.kill()  # SIGKILL: no cleanup at all
        first.wait()
    assert socket.exists() and not is_locked(state)  # a stale socket is left behind
    second = spawn_foreground(*where)  # platform, scheduler, pace: all from the state dir
    try:
        wait_for_socket(socket, second)
        after = _snapshot(socket)
        assert after == before
        assert before[2]["now"] > 130 and before[2]["paused"] is True
        with Client(socket) as client:
            assert _exec(client, "sbatch", "--wrap", "z")["stdout"].startswith(
                "Submitted batch job 8"
            )
            assert client.call("status")["recovered"] == 8
            assert client.call("status")["replay_mismatches"] == 0
    finally:
        second.terminate()
        assert second.wait(10) == 0
    assert not socket.exists()


def test_every_answered_submission_survives_a_kill_mid_burst(short_dir: Path) -> None:
    socket, _, where = _places(short_dir)
    daemon = spawn_foreground("--platform", str(LAB), "--speed", "max", *where)
    accepted: list[str] = []
    lock = threading.Lock()
    wait_for_socket(socket, daemon)

    def burst() -> None:
        try:
            with Client(socket, 10) as client:
                for _ in range(10_000):
                    answer = _exec(client, "sbatch", "--wrap", "x", "-t", "1")
                    with lock:
                        accepted.append(answer["stdout"].split()[-1])
        except (DaemonUnavailable, DaemonError, OSError):
            return

    threads = [threading.Thread(target=burst) for _ in range(8)]
    try:
        for thread in threads:
            thread.start()
        for _ in range(2000):
            if len(accepted) >= 300:
                break
            time.sleep(0.005)
    finally:
        daemon.kill()  # mid-burst: some requests are in flight, unanswered
        daemon.wait()
    for thread in threads:
        thread.join()
    assert len(accepted) >= 300
    again = spawn_foreground(*where)
    try:
        wait_for_socket(socket, again)
        with Client(socket) as client:
            client.call("clock", action="pause")
            sacct = _exec(client, "sacct", "-X", "-P", "-n", "-o", "jobid")["stdout"]
        known = set(sacct.split())
        assert set(accepted) <= known
        assert len(known) >= len(accepted)
    finally:
        again.terminate()
        again.wait(10)


def test_a_running_clock_is_recovered_to_its_last_checkpoint(short_dir: Path) -> None:
    socket, state, where = _places(short_dir)
    daemon = spawn_foreground("--platform", str(LAB), "--speed", "1000", *where)
    try:
        wait_for_socket(socket, daemon)
        with Client(socket) as client:
            _exec(client, "sbatch", "--wrap", "x", "-t", "1")
            client.call("clock", action="speed", value=1000)  # checkpoints at once
    finally:
        daemon.kill()
        daemon.wait()
    checkpoint = json.loads((state / "clock.json").read_text())
    again = spawn_foreground(*where)
    try:
        wait_for_socket(socket, again)
        with Client(socket) as client:
            clock = client.call("clock", action="pause")["clock"]
            assert clock["now"] >= checkpoint["t"] > 0
            assert clock["speed"] == 1000.0
            sacct = _exec(client, "sacct", "-X", "-P", "-n", "-o", "jobid,jobname,user")
            assert sacct["stdout"] == "1|wrap|root\n"
    finally:
        again.terminate()
        again.wait(10)


def test_restarting_with_another_setup_is_refused(make_daemon: Any, short_dir: Path) -> None:
    running = make_daemon()
    running.run("sbatch", "--wrap", "x")
    running.stop()
    other = Path(__file__).resolve().parents[2] / "resources/platforms/oas-testbed.toml"
    with pytest.raises(StartError, match="another setup: platform"):
        make_daemon(platform=other)
    with pytest.raises(StartError, match="scheduler cbf"):
        make_daemon(scheduler="cbf")
    fresh = make_daemon(platform=other, fresh=True)
    assert fresh.call("status")["journal_seq"] == 0
    assert (short_dir / "state" / "journal.jsonl.1").exists()


def test_a_new_state_dir_needs_a_platform(make_daemon: Any) -> None:
    with pytest.raises(StartError, match="--platform is needed"):
        make_daemon(platform=None)
    with pytest.raises(StartError, match="no such platform file"):
        make_daemon(platform=Path("no-such-platform"))


def test_the_accounting_file_is_whole_after_a_stop_and_rebuilt_on_start(short_dir: Path) -> None:
    socket, state, where = _places(short_dir)
    first = spawn_foreground("--platform", str(LAB), "--paused", *where)
    try:
        wait_for_socket(socket, first)
        with Client(socket) as client:
            for minutes in (1, 5, 5):
                _exec(client, "sbatch", "--wrap", "x", "-t", str(minutes), "-n", "2")
            client.call("clock", action="advance", value=120)
            sacct = _exec(client, "sacct", "-X", "-P", "-o", "jobid,state")["stdout"]
            assert sacct.splitlines()[1:] == ["1|COMPLETED", "2|RUNNING", "3|RUNNING"]
            _exec(client, "scancel", "3")  # after the last read: only the stop writes it
            assert client.call("shutdown")["stopping"] is True
        assert first.wait(10) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    with sqlite3.connect(state / "accounting.sqlite") as db:
        rows = db.execute("SELECT job_id, state FROM jobs ORDER BY job_id").fetchall()
    assert rows == [(1, "COMPLETED"), (2, "RUNNING"), (3, "CANCELLED")]
    second = spawn_foreground(*where)
    try:
        wait_for_socket(socket, second)
        with Client(socket) as client:
            again = _exec(client, "sacct", "-X", "-P", "-o", "jobid,state")["stdout"]
            assert again.splitlines()[1:] == [
                "1|COMPLETED",
                "2|RUNNING",
                f"3|CANCELLED by {os.getuid()}",
            ]
            assert _exec(client, "sbatch", "--wrap", "y")["stdout"] == "Submitted batch job 4\n"
    finally:
        second.terminate()
        assert second.wait(10) == 0
    with sqlite3.connect(state / "accounting.sqlite") as db:
        ids = [i for (i,) in db.execute("SELECT job_id FROM jobs ORDER BY job_id")]
    assert ids == [1, 2, 3, 4]  # rebuilt by the replay, not appended to the old rows


def test_node_states_survive_a_kill(short_dir: Path) -> None:
    """Drained and down nodes, and the job the down node killed, come back after ``kill -9``."""
    socket, _, where = _places(short_dir)
    first = spawn_foreground("--platform", str(LAB), "--paused", *where)
    try:
        wait_for_socket(socket, first)
        with Client(socket) as client:
            _exec(client, "sbatch", "-N", "2", "--ntasks-per-node=4", "--wrap", "sleep 600")
            client.call("clock", action="advance", value=10)
            for node, verb in (("node04", "DRAIN"), ("node01", "DOWN")):
                update = ("scontrol", "update", f"NodeName={node}", f"State={verb}", "Reason=x")
                assert _exec(client, *update)["exit_code"] == 0
            client.call("clock", action="advance", value=10)
            before = [_exec(client, *argv)["stdout"] for argv in (["sinfo", "-R"], ["sacct"])]
    finally:
        first.kill()
        first.wait()
    second = spawn_foreground(*where)
    try:
        wait_for_socket(socket, second)
        with Client(socket) as client:
            after = [_exec(client, *argv)["stdout"] for argv in (["sinfo", "-R"], ["sacct"])]
    finally:
        second.terminate()
        assert second.wait(10) == 0
    assert after == before
    assert "node[01,04]" in before[0] and "NODE_FAIL" in before[1]
