"""The daemon loop on the lab platform: requests, errors, robustness, the clock, scripts."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.client import Client, DaemonError, DaemonUnavailable
from emulator.daemon.emulation import Emulation
from emulator.daemon.journal import Journal
from emulator.daemon.protocol import HEADER, MAX_REQUEST_BYTES, encode
from emulator.daemon.server import StartError
from emulator.slurmctld.controller import Controller
from tests.daemon.helpers import Running


def raw(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(path))
    return sock


def read_frame(sock: socket.socket) -> dict[str, Any] | None:
    header = b""
    while len(header) < 4:
        chunk = sock.recv(4 - len(header))
        if not chunk:
            return None
        header += chunk
    (length,) = HEADER.unpack(header)
    body = b""
    while len(body) < length:
        body += sock.recv(length - len(body))
    value: dict[str, Any] = json.loads(body)
    return value


def journal_lines(running: Running) -> list[dict[str, Any]]:
    text = (running.state_dir / "journal.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_ping_status_and_a_private_socket(make_daemon: Any) -> None:
    running = make_daemon()
    assert stat.S_IMODE(os.stat(running.socket).st_mode) == 0o600
    ping = running.call("ping")
    assert ping["uid"] == os.getuid() and ping["operator"] is True
    status = running.call("status")
    assert status["pid"] == os.getpid()
    assert status["scheduler"] == "backfill" and status["feed"] == "none"
    assert status["protocol"] == 1 and "handler" not in status
    assert status["clock"]["paused"] is True
    assert (running.state_dir / "daemon.pid").read_text().strip() == str(os.getpid())


def test_commands_run_and_mutating_ones_are_journaled_before_the_answer(make_daemon: Any) -> None:
    running = make_daemon()
    answer = running.run("sbatch", "--wrap", "true", "-t", "5")
    assert answer["stdout"] == "Submitted batch job 1\n" and answer["exit_code"] == 0
    assert journal_lines(running)[-1]["argv"] == ["sbatch", "--wrap", "true", "-t", "5"]
    squeue = running.run("squeue", "-h", "-o", "%i %j %u %t")
    assert squeue["stdout"] == "1 wrap root PD\n"  # paused: the clock has not moved
    bad = running.run("scancel", "x")
    assert bad["exit_code"] == 1 and "Invalid job id" in bad["stderr"]
    records = journal_lines(running)
    assert [r["argv"][0] for r in records[1:]] == ["sbatch", "scancel"]  # squeue is read-only
    assert records[1]["t"] == 0.0 and records[1]["user"] == "root"


def test_requests_echo_ids_and_pipeline_in_order(make_daemon: Any) -> None:
    running = make_daemon()
    sock = raw(running.socket)
    frames = b"".join(
        encode({"version": 1, "id": n, "op": "exec", "argv": ["sbatch", "--wrap", "x"], "cwd": "/"})
        for n in range(20)
    )
    sock.sendall(frames)
    answers = [read_frame(sock) for _ in range(20)]
    assert [a["id"] for a in answers if a] == list(range(20))
    assert [a["stdout"] for a in answers if a][-1] == "Submitted batch job 20\n"
    sock.close()


def test_wrong_version_bad_frames_and_bad_requests_get_errors_and_the_connection_goes_on(
    make_daemon: Any,
) -> None:
    running = make_daemon()
    sock = raw(running.socket)
    sock.sendall(encode({"version": 7, "op": "ping"}))
    answer = read_frame(sock)
    assert answer is not None and answer["error"]["code"] == "unsupported_version"
    assert answer["supported"] == [1] and answer["version"] == 1
    for body in (b"{oops", b"[]", b"\xc3\x28"):
        sock.sendall(HEADER.pack(len(body)) + body)
        answer = read_frame(sock)
        assert answer is not None and answer["error"]["code"] == "bad_frame"
    sock.sendall(encode({"version": 1, "op": "exec", "argv": "squeue", "cwd": "/"}))
    answer = read_frame(sock)
    assert answer is not None and answer["error"]["code"] == "bad_request"
    sock.sendall(encode({"version": 1, "op": "teleport"}))
    answer = read_frame(sock)
    assert answer is not None and answer["error"]["code"] == "unknown_op"
    sock.sendall(encode({"version": 1, "op": "ping"}))
    answer = read_frame(sock)
    assert answer is not None and answer["ok"] is True
    sock.close()


def test_an_oversized_frame_is_refused_and_the_connection_closed(make_daemon: Any) -> None:
    running = make_daemon()
    sock = raw(running.socket)
    sock.sendall(HEADER.pack(MAX_REQUEST_BYTES + 1) + b"{")
    answer = read_frame(sock)
    assert answer is not None and answer["error"]["code"] == "too_large"
    assert read_frame(sock) is None  # closed
    sock.close()
    assert running.call("ping")["ok"]


def test_clients_that_vanish_mid_request_do_not_hurt(make_daemon: Any) -> None:
    running = make_daemon()
    frame = encode({"version": 1, "op": "exec", "argv": ["sbatch", "--wrap", "x"], "cwd": "/"})
    for cut in (1, 3, 4, len(frame) // 2, len(frame) - 1):
        sock = raw(running.socket)
        sock.sendall(frame[:cut])
        sock.close()
    sock = raw(running.socket)  # a whole request, then gone before the answer
    sock.sendall(frame)
    sock.close()
    for _ in range(3):
        raw(running.socket).close()
    answer = running.run("sbatch", "--wrap", "y")
    assert answer["stdout"] == "Submitted batch job 2\n"  # only the complete one was taken
    assert len(journal_lines(running)) == 3


def test_a_burst_from_many_clients_loses_nothing(make_daemon: Any) -> None:
    running = make_daemon()
    accepted: list[int] = []
    lock = threading.Lock()

    def submit(count: int) -> None:
        with Client(running.socket, 30) as client:
            for _ in range(count):
                answer = client.call("exec", argv=["sbatch", "--wrap", "x"], cwd="/", env={})
                with lock:
                    accepted.append(int(answer["stdout"].split()[-1]))

    threads = [threading.Thread(target=submit, args=(25,)) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(accepted) == list(range(1, 801))
    assert len(journal_lines(running)) == 801
    assert running.call("status")["journal_seq"] == 800


def test_private_daemon_refuses_other_users(make_daemon: Any) -> None:
    running = make_daemon(patch={"operator_uids": frozenset({123456})})
    sock = raw(running.socket)
    answer = read_frame(sock)
    assert answer is not None and answer["error"]["code"] == "permission_denied"
    sock.close()


def test_only_the_operator_may_act_for_others_steer_the_clock_or_stop(make_daemon: Any) -> None:
    running = make_daemon(shared=True)
    assert stat.S_IMODE(os.stat(running.socket).st_mode) == 0o666
    answer = running.run("sbatch", "--wrap", "x", as_user="alice")
    assert answer["exit_code"] == 0
    assert journal_lines(running)[-1]["user"] == "alice"
    assert "alice" in running.run("squeue")["stdout"]
    running.daemon.operator_uids = frozenset({123456})  # from now on we are a plain user
    with Client(running.socket) as client:
        assert client.call("ping")["operator"] is False
        for op, fields in (
            ("exec", {"argv": ["sbatch", "--wrap", "x"], "cwd": "/", "as_user": "alice"}),
            ("clock", {"action": "resume"}),
            ("shutdown", {}),
        ):
            with pytest.raises(DaemonError) as caught:
                client.call(op, **fields)
            assert caught.value.code == "permission_denied"
        assert client.call("clock", action="show")["clock"]["now"] == 0.0
        assert client.call("exec", argv=["sbatch", "--wrap", "y"], cwd="/")["exit_code"] == 0


def test_a_plain_user_cannot_make_the_daemon_read_a_file_for_them(
    make_daemon: Any, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.sh"
    secret.write_text("#!/bin/sh\n# the operator's secret\n")
    running = make_daemon(shared=True, patch={"operator_uids": frozenset({123456})})
    answer = running.run("sbatch", str(secret))
    assert answer["exit_code"] == 1
    assert answer["stderr"] == f"sbatch: error: Unable to open file {secret}\n"
    sent = running.run("sbatch", str(secret), script={"index": 1, "text": "#!/bin/sh\nmine\n"})
    assert sent["exit_code"] == 0


def test_scripts_are_read_from_what_the_client_sent(make_daemon: Any, tmp_path: Path) -> None:
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH -J ondisk\n")
    running = make_daemon()
    same = running.call(
        "exec",
        argv=["sbatch", "job.sh"],
        cwd=str(tmp_path),
        script={"index": 1, "text": "#!/bin/sh\n#SBATCH -J ondisk\n"},
    )
    assert same["stdout"] == "Submitted batch job 1\n", same
    changed = running.call(
        "exec",
        argv=["sbatch", "-t", "5", "job.sh"],
        cwd=str(tmp_path),
        script={"index": 3, "text": "#!/bin/sh\n#SBATCH -J sent\n"},
    )
    assert changed["stdout"] == "Submitted batch job 2\n", changed
    for job, name in ((1, "ondisk"), (2, "sent")):
        show = running.run("scontrol", "show", "job", str(job))["stdout"]
        assert f"JobName={name}" in show and f"Command={script}" in show
    assert running.daemon.service.emulation.controller.files == {}  # for that command only
    assert journal_lines(running)[2]["script"] == {
        "index": 3,
        "text": "#!/bin/sh\n#SBATCH -J sent\n",
    }


def test_clock_steering(make_daemon: Any) -> None:
    running = make_daemon()
    for minutes in (2, 5):
        running.run("sbatch", "--wrap", "x", "-t", str(minutes))
    clock = running.call("clock", action="show")["clock"]
    assert clock["now"] == 0.0 and clock["next_event"] == 0.0 and clock["mode"] == "paused"
    clock = running.call("clock", action="step")["clock"]  # the arrivals
    assert clock["now"] == 0.0 and clock["next_event"] == 120.0
    assert running.call("clock", action="step")["clock"]["now"] == 120.0
    assert running.call("clock", action="advance", value=30)["clock"]["now"] == 150.0
    assert running.call("clock", action="until", value=200)["clock"]["now"] == 200.0
    with pytest.raises(DaemonError, match="in the past"):
        running.call("clock", action="until", value=10)
    idle = running.call("clock", action="idle")["clock"]
    assert idle["now"] == 300.0 and idle["next_event"] is None
    assert running.call("clock", action="step")["note"] == "no pending event"
    speed = running.call("clock", action="speed", value=None)["clock"]
    assert speed["speed"] is None and speed["paused"] is True
    assert running.call("clock", action="resume")["clock"]["mode"] == "as fast as possible"
    checkpoint = json.loads((running.state_dir / "clock.json").read_text())
    assert checkpoint == {"t": 300.0, "advanced": True, "seq": 2, "paused": False, "speed": None}


def test_as_fast_as_possible_runs_everything(make_daemon: Any) -> None:
    running = make_daemon(paused=False, speed=float("inf"))
    for _ in range(3):
        running.run("sbatch", "--wrap", "x", "-t", "1")
    for _ in range(1000):
        if running.call("clock", action="show")["clock"]["next_event"] is None:
            break
    assert "COMPLETED" in running.run("sacct")["stdout"]


def test_a_waiting_clock_request_does_not_block_others(make_daemon: Any) -> None:
    running = make_daemon()
    running.run("sbatch", "--wrap", "x", "-t", "1")
    slow = raw(running.socket)
    slow.sendall(encode({"version": 1, "op": "clock", "action": "until", "value": 1e9}))
    assert running.call("ping")["ok"]  # served while the other request runs
    answer = read_frame(slow)
    assert answer is not None and answer["clock"]["now"] == 1e9
    slow.close()


def test_a_goal_is_dropped_when_its_client_leaves(make_daemon: Any) -> None:
    running = make_daemon()
    running.run("sbatch", "--wrap", "x", "-t", "UNLIMITED")
    sock = raw(running.socket)
    sock.sendall(encode({"version": 1, "op": "clock", "action": "until", "value": 1e300}))
    for _ in range(1000):
        if running.call("status")["clock"]["goals"] == 1:
            break
    sock.close()
    for _ in range(1000):
        if running.call("status")["clock"]["goals"] == 0:
            break
    assert running.call("status")["clock"]["goals"] == 0


def test_shutdown_removes_socket_and_pid_file(make_daemon: Any) -> None:
    running = make_daemon()
    assert running.call("shutdown")["stopping"] is True
    running.thread.join(10)
    assert not running.thread.is_alive()
    assert not running.socket.exists()
    assert not (running.state_dir / "daemon.pid").exists()


def test_a_live_socket_is_never_replaced_and_a_stale_one_is(make_daemon: Any) -> None:
    running = make_daemon()
    with pytest.raises(StartError, match="already listening"):
        make_daemon(state_dir=running.state_dir.parent / "other")
    running.stop()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(running.socket))  # bound, never listening: what a killed daemon leaves
    stale.close()
    again = make_daemon()
    assert again.call("ping")["ok"]


def test_one_daemon_per_state_dir_and_no_clobbering(make_daemon: Any, short_dir: Path) -> None:
    running = make_daemon()
    with pytest.raises(StartError, match="in use by daemon pid"):
        make_daemon(socket_path=short_dir / "t.sock")
    running.stop()
    (short_dir / "file").write_text("not a socket")
    with pytest.raises(StartError, match="not a socket"):
        make_daemon(socket_path=short_dir / "file")


def test_bugs_cost_an_answer_not_the_daemon(
    make_daemon: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that raises, and a simulation that raises at t=1000."""
    execute, advance = Controller.execute, Emulation.advance

    def flaky_execute(self: Controller, argv: list[str], **kwargs: Any) -> Any:
        if argv[0] == "boom":
            raise RuntimeError("boom")
        return execute(self, argv, **kwargs)

    def flaky_advance(self: Emulation, until: float) -> None:
        if until >= 1000:
            raise RuntimeError("the scheduler broke")
        advance(self, until)

    monkeypatch.setattr(Controller, "execute", flaky_execute)
    monkeypatch.setattr(Emulation, "advance", flaky_advance)
    running = make_daemon()
    boom = running.run("boom")
    assert boom["exit_code"] == 1 and "internal error: RuntimeError('boom')" in boom["stderr"]
    running.run("sbatch", "--wrap", "x", "-t", "60")
    with pytest.raises(DaemonError, match="the scheduler broke") as caught:
        running.call("clock", action="until", value=5000)
    assert caught.value.code == "simulation_failed"
    status = running.call("status")
    assert "the scheduler broke" in status["failure"] and status["clock"]["paused"]
    assert running.run("squeue", "-h", "-o", "%i %j %u %t")["stdout"] == "1 wrap root R\n"


def test_a_journal_that_cannot_be_written_stops_the_daemon_unanswered(
    make_daemon: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = make_daemon()
    running.run("sbatch", "--wrap", "x")

    def broken(self: Journal, record: dict[str, Any]) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Journal, "append", broken)
    with pytest.raises(DaemonUnavailable):  # the connection closes without an answer
        running.run("sbatch", "--wrap", "y")
    running.thread.join(10)
    assert not running.thread.is_alive()
    monkeypatch.undo()
    again = make_daemon()
    squeue = again.run("squeue", "-h", "-o", "%i %j %u %t")
    assert squeue["stdout"] == "1 wrap root PD\n"  # the unanswered one is not there


def test_many_short_connections_at_once(make_daemon: Any) -> None:
    running = make_daemon()
    answers: list[str] = []

    def once() -> None:
        answer = running.run("sbatch", "--wrap", "x")
        answers.append(answer["stdout"])

    threads = [threading.Thread(target=once) for _ in range(150)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == sorted(f"Submitted batch job {n}\n" for n in range(1, 151))


def test_connections_over_the_cap_are_refused_politely(make_daemon: Any) -> None:
    running = make_daemon(patch={"max_connections": 2})
    first, second = running.client(), running.client()
    first.call("ping")
    second.call("ping")
    third = raw(running.socket)
    answer = read_frame(third)
    assert answer is not None and answer["error"]["code"] == "busy"
    first.close()
    second.close()
    for _ in range(500):
        try:
            assert running.call("ping")["ok"]
            break
        except DaemonError:
            time.sleep(0.01)  # the daemon has not seen the closes yet (a loaded machine)
    else:
        raise AssertionError("still busy after 5 s")
