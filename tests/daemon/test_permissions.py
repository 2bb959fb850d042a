"""Two users: a child that becomes ``nobody`` talks to the root-owned daemon."""

from __future__ import annotations

import json
import os
import pwd
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.client import Client

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root to setuid a child to another user (nobody)"
)


def _nobody() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' on this machine")


def as_other_user(uid: int, gid: int, work: Callable[[], Any]) -> Any:
    """Run ``work`` in a forked child that dropped to ``uid``; its JSON result or error text."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            result: Any = {"result": work()}
        except BaseException as problem:
            result = {"error": f"{type(problem).__name__}: {problem}"}
        os.write(write_end, json.dumps(result).encode())
        os._exit(0)
    os.close(write_end)
    data = b""
    while chunk := os.read(read_end, 65536):
        data += chunk
    os.close(read_end)
    os.waitpid(child, 0)
    return json.loads(data)


def test_a_shared_daemon_sees_the_callers_uid(make_daemon: Any, short_dir: Path) -> None:
    nobody = _nobody()
    running = make_daemon(shared=True)
    path = str(running.socket)

    def work() -> Any:
        with Client(path, 10) as client:
            ping = client.call("ping")
            answer = client.call(
                "exec", argv=["sbatch", "--wrap", "x"], env={}, cwd="/", stdin=None
            )
            refused = client.request(
                {"op": "exec", "argv": ["sbatch", "--wrap", "y"], "cwd": "/", "as_user": "root"}
            )
            return [ping, answer["stdout"], refused["error"]["code"], os.getuid()]

    outcome = as_other_user(nobody.pw_uid, nobody.pw_gid, work)
    assert "error" not in outcome, outcome
    ping, stdout, refused, child_uid = outcome["result"]
    assert child_uid == nobody.pw_uid
    assert ping == {
        "version": 1,
        "ok": True,
        "user": nobody.pw_name,
        "uid": nobody.pw_uid,
        "operator": False,
    }
    assert stdout == "Submitted batch job 1\n"
    assert refused == "permission_denied"
    squeue = running.run("squeue", "-h", "-o", "%i %j %u %t")["stdout"]
    assert squeue == f"1 wrap {nobody.pw_name} PD\n"  # paused: the clock has not moved
    journal = (running.state_dir / "journal.jsonl").read_text().splitlines()
    assert json.loads(journal[-1])["user"] == nobody.pw_name


def test_a_private_daemon_is_closed_to_other_users(make_daemon: Any) -> None:
    nobody = _nobody()
    running = make_daemon()
    path = str(running.socket)

    def work() -> Any:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except PermissionError:
            return "EACCES"
        return "connected"

    assert as_other_user(nobody.pw_uid, nobody.pw_gid, work) == {"result": "EACCES"}
