"""What a client saw survives ``kill -9``: the time, the jobs' states, the scripts; and a start
that fails leaves the state dir as it was."""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.client import Client
from emulator.daemon.server import StartError
from emulator.daemon.state import Settings, open_daemon
from tests.daemon.helpers import LAB, spawn_foreground, wait_for_socket

_ORDER = {"PENDING": 0, "RUNNING": 1, "COMPLETED": 2, "TIMEOUT": 2, "CANCELLED": 2}


def _exec(client: Client, *argv: str, **fields: Any) -> dict[str, Any]:
    return client.call("exec", argv=list(argv), env={}, cwd="/", **fields)


def _where(short_dir: Path) -> tuple[Path, Path, list[str]]:
    socket, state = short_dir / "s.sock", short_dir / "state"
    return socket, state, ["--state-dir", str(state), "--socket", str(socket)]


def _seen(socket: Path) -> tuple[float, dict[str, str]]:
    """The time and every job's state, as a client reads them (the time last)."""
    with Client(socket) as client:
        rows = _exec(client, "sacct", "-X", "-P", "-n", "-o", "jobid,state")["stdout"]
        now = client.call("clock", action="show")["clock"]["now"]
    states = dict(line.split("|") for line in rows.splitlines())
    return float(now), {job: state.split()[0] for job, state in states.items()}


@pytest.mark.slow
@pytest.mark.parametrize("speed", ["1000", "max"])
def test_no_time_or_job_state_a_client_saw_is_taken_back(short_dir: Path, speed: str) -> None:
    socket, _, where = _where(short_dir)
    daemon = spawn_foreground("--platform", str(LAB), "--paused", *where)
    try:
        wait_for_socket(socket, daemon)
        with Client(socket) as client:
            for number in range(200):
                minutes = 1 + number % 7
                _exec(client, "sbatch", "--wrap", "x", "-t", str(minutes), "-n", str(8))
            client.call("clock", action="speed", value=None if speed == "max" else 1000.0)
            client.call("clock", action="resume")
        for _ in range(3):  # read, kill at once, restart, read again: never earlier
            time.sleep(0.5)  # at 1000x, some jobs end meanwhile
            seen_at, seen = _seen(socket)
            daemon.kill()
            daemon.wait()
            daemon = spawn_foreground("--paused", *where)  # so that time stands where it was
            wait_for_socket(socket, daemon)
            after_at, after = _seen(socket)
            assert after_at >= seen_at
            assert after.keys() == seen.keys()
            taken_back = [j for j in seen if _ORDER[after[j]] < _ORDER[seen[j]]]
            assert taken_back == [], f"at t={seen_at} then t={after_at}"
            with Client(socket) as client:
                client.call("clock", action="resume")
        assert seen_at > 0 and "COMPLETED" in seen.values()
    finally:
        daemon.kill()
        daemon.wait()


def test_a_script_given_by_path_survives_its_file(short_dir: Path) -> None:
    socket, state, where = _where(short_dir)
    script = short_dir / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH -J fromfile\n#SBATCH -t 5\nhostname\n")
    daemon = spawn_foreground("--platform", str(LAB), "--paused", *where)
    try:
        wait_for_socket(socket, daemon)
        with Client(socket) as client:  # no script text sent: the daemon reads the file
            assert _exec(client, "sbatch", str(script))["stdout"] == "Submitted batch job 1\n"
            _exec(client, "sbatch", "--wrap", "y")
        daemon.kill()
        daemon.wait()
        script.unlink()
        daemon = spawn_foreground(*where)
        wait_for_socket(socket, daemon)
        with Client(socket) as client:
            names = _exec(client, "squeue", "-h", "-o", "%i %j")["stdout"]
            assert names == "1 fromfile\n2 wrap\n"
            assert _exec(client, "sbatch", "--wrap", "z")["stdout"] == "Submitted batch job 3\n"
            assert client.call("status")["replay_mismatches"] == 0
    finally:
        daemon.kill()
        daemon.wait()
    assert "#SBATCH -J fromfile" in (state / "journal.jsonl").read_text()


def _digests(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
        if path.is_file() and path.name != "lock"
    }


def _settings(short_dir: Path, **options: Any) -> Settings:
    return Settings(state_dir=short_dir / "state", socket_path=short_dir / "s.sock", **options)


def test_a_torn_tail_is_reported_and_a_failed_start_changes_nothing(short_dir: Path) -> None:
    logs: list[str] = []
    daemon = open_daemon(_settings(short_dir, platform=LAB, paused=True), log=logs.append)
    daemon.service.answer(_peer(), _sbatch())
    daemon.service.commit()
    daemon._close(flush=True)
    journal = short_dir / "state" / "journal.jsonl"
    with open(journal, "ab") as file:
        file.write(b'{"kind":"exec","seq":2,"t":0.0,"us')  # a crash mid-write
    before = _digests(short_dir / "state")
    with pytest.raises(StartError, match="another setup"):
        open_daemon(_settings(short_dir, scheduler="fcfs"), log=logs.append)
    assert _digests(short_dir / "state") == before
    assert not any("torn" in line for line in logs)  # refused before recovery
    daemon = open_daemon(_settings(short_dir), log=logs.append)
    daemon._close(flush=True)
    torn = [line for line in logs if "torn" in line]
    assert len(torn) == 1 and re.search(r"journal.jsonl:3: torn last record \(request 2,", torn[0])
    assert "not been acknowledged" in torn[0]
    assert journal.read_bytes().endswith(b"\n") and b'"seq":2' not in journal.read_bytes()


def test_a_new_run_that_fails_to_start_writes_nothing(short_dir: Path) -> None:
    (short_dir / "state").mkdir()
    with pytest.raises(StartError):
        open_daemon(_settings(short_dir, platform=LAB, scheduler="no-such-policy"), log=print)
    assert _digests(short_dir / "state") == {}


def test_an_empty_journal_is_a_run_never_recorded(short_dir: Path) -> None:
    state = short_dir / "state"
    state.mkdir()
    (state / "journal.jsonl").write_bytes(b"")
    logs: list[str] = []
    with pytest.raises(StartError, match="--platform is needed to start a new run"):
        open_daemon(_settings(short_dir), log=logs.append)
    assert any("holds no run (no whole header)" in line for line in logs)
    assert (state / "journal.jsonl").read_bytes() == b""
    daemon = open_daemon(_settings(short_dir, platform=LAB), log=logs.append)
    daemon._close(flush=True)
    assert b'"kind":"init"' in (state / "journal.jsonl").read_bytes()


def _peer() -> Any:
    from emulator.daemon.service import Peer

    return Peer(0, "root", True)


def _sbatch() -> dict[str, Any]:
    return {"version": 1, "op": "exec", "argv": ["sbatch", "--wrap", "x"], "env": {}, "cwd": "/"}


def test_the_daemon_reads_only_a_regular_file_as_a_script(
    make_daemon: Any, short_dir: Path
) -> None:
    running = make_daemon()
    fifo = short_dir / "fifo.sh"
    os.mkfifo(fifo)  # reading it would wait for a writer: the daemon refuses it at once
    answer = running.run("sbatch", str(fifo))
    assert (answer["exit_code"], answer["stderr"]) == (
        1,
        f"sbatch: error: Unable to open file {fifo}\n",
    )
    assert running.run("sbatch", str(short_dir))["exit_code"] == 1  # a directory


def test_a_fresh_start_that_fails_keeps_the_old_run(short_dir: Path) -> None:
    daemon = open_daemon(_settings(short_dir, platform=LAB, paused=True), log=print)
    daemon.service.answer(_peer(), _sbatch())
    daemon._close(flush=True)
    before = _digests(short_dir / "state")
    with pytest.raises(StartError):
        open_daemon(_settings(short_dir, platform=LAB, scheduler="no-such", fresh=True), log=print)
    assert _digests(short_dir / "state") == before
    daemon = open_daemon(_settings(short_dir, platform=LAB, fresh=True), log=print)
    daemon._close(flush=True)
    assert (short_dir / "state" / "journal.jsonl.1").exists()
