"""Two users: a child that becomes ``nobody`` talks to the root-owned daemon."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pwd
import socket
import subprocess
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


def test_other_users_run_the_shims_and_cannot_stop_the_daemon(
    make_daemon: Any, short_dir: Path
) -> None:
    from emulator.daemon.control import stop
    from emulator.daemon.protocol import SCRIPT_TOO_LARGE
    from emulator.daemon.shims import write_shims

    nobody = _nobody()
    running = make_daemon(shared=True)
    bin_dir = short_dir / "bin"
    write_shims(bin_dir, running.socket)
    big = short_dir / "big.sh"
    big.write_text("#!/bin/sh\n" + "#" * (5 << 20))
    big.chmod(0o644)

    def work() -> Any:
        env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": "/"}
        ran = [
            subprocess.run([name, *args], env=env, capture_output=True, text=True, cwd="/")
            for name, args in (("sbatch", ["--wrap", "x"]), ("sbatch", [str(big)]))
        ]
        refusal = io.StringIO()
        with contextlib.redirect_stderr(refusal):
            code = stop(running.socket)
        return [[r.returncode, r.stdout, r.stderr] for r in ran], code, refusal.getvalue()

    outcome = as_other_user(nobody.pw_uid, nobody.pw_gid, work)
    assert "error" not in outcome, outcome
    (small, large), code, refusal = outcome["result"]
    assert small == [0, "Submitted batch job 1\n", ""]
    assert large == [1, "", SCRIPT_TOO_LARGE]  # the size, not "Unable to open file"
    assert code == 1
    assert refusal == (
        "batchlab daemon: error: permission denied: only the daemon's operator may stop "
        "the daemon\n"
    )
    assert running.call("ping")["ok"]  # still running
