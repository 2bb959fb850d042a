"""The command line: client commands, shims, ``clock`` and ``daemon start|stop|status``."""

from __future__ import annotations

import io
import math
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from emulator.cli import main
from emulator.daemon.client import build_exec
from emulator.daemon.commands import CLIENT_COMMANDS, is_mutating, sbatch_script
from emulator.daemon.control import ClockSyntaxError, clock_request, parse_clock_duration
from emulator.daemon.paths import default_socket, default_state_dir
from emulator.daemon.server import StartError
from emulator.daemon.shims import write_shims
from emulator.daemon.state import is_locked, read_pid
from emulator.slurm.not_emulated import NOT_EMULATED
from tests.daemon.helpers import LAB, cli


@pytest.mark.parametrize("command", CLIENT_COMMANDS)
def test_no_daemon_is_a_slurm_like_connect_failure(
    command: str, short_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("BATCHLAB_SOCKET", str(short_dir / "none.sock"))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([command, "--wrap", "x"] if command == "sbatch" else [command]) == 1
    err = capsys.readouterr().err
    failure = "Unable to contact slurm controller (connect failure)\n"
    expected = {
        "sbatch": f"sbatch: error: Batch job submission failed: {failure}",
        "srun": f"srun: error: Unable to allocate resources: {failure}",
        "salloc": f"salloc: error: Job submit/allocate failed: {failure}",
        **{name: f"{name}: error: {name} is not emulated by batchlab\n" for name in NOT_EMULATED},
    }.get(command, f"{command}: error: {failure}")
    assert err == expected


def test_client_commands_through_main(make_daemon: Any, capsys: Any) -> None:
    running = make_daemon()
    assert main(["--socket", str(running.socket), "sbatch", "--wrap", "x", "-t", "2"]) == 0
    assert capsys.readouterr().out == "Submitted batch job 1\n"
    assert main([f"--socket={running.socket}", "squeue", "-h", "-o", "%i %j %u %t"]) == 0
    assert capsys.readouterr().out == "1 wrap root PD\n"  # paused: the clock has not moved
    assert main(["--socket", str(running.socket), "scancel", "x"]) == 1
    assert "Invalid job id x" in capsys.readouterr().err


def test_an_exec_request_carries_script_stdin_env_and_user(tmp_path: Path) -> None:
    (tmp_path / "job.sh").write_text("#!/bin/sh\nsleep 1\n")
    environ = {"SBATCH_PARTITION": "short", "SQUEUE_FORMAT": "%i", "HOME": "/h", "TZ": "UTC"}
    request = build_exec(["sbatch", "-J", "x", "job.sh", "arg"], environ, str(tmp_path), None)
    assert request["script"] == {"index": 3, "text": "#!/bin/sh\nsleep 1\n"}
    assert request["env"] == {"SBATCH_PARTITION": "short", "SQUEUE_FORMAT": "%i", "TZ": "UTC"}
    assert request["stdin"] is None and "as_user" not in request
    piped = build_exec(
        ["sbatch", "-t", "5"], {"BATCHLAB_AS_USER": "bob"}, "/", io.BytesIO(b"#!/bin/sh\n")
    )
    assert piped["stdin"] == "#!/bin/sh\n" and piped["as_user"] == "bob"
    assert "script" not in build_exec(["sbatch", "missing.sh"], {}, str(tmp_path), None)
    assert build_exec(["squeue"], {}, "/", io.BytesIO(b"ignored"))["stdin"] is None


def test_where_sbatch_finds_its_script() -> None:
    assert sbatch_script(["sbatch", "job.sh"]) == (1, False)
    assert sbatch_script(["sbatch", "-n", "2", "--time=5", "-Jx", "job.sh", "-n", "3"]) == (
        5,
        False,
    )
    assert sbatch_script(["sbatch", "-t", "5", "--", "job.sh"]) == (4, False)
    assert sbatch_script(["sbatch", "-t", "5"]) == (None, True)
    assert sbatch_script(["sbatch", "--wrap", "hostname"]) == (None, False)
    assert sbatch_script(["sbatch", "--frobnicate"]) == (None, False)


def test_which_commands_are_journaled() -> None:
    assert is_mutating(["sbatch", "x"]) and is_mutating(["scancel", "1"])
    assert is_mutating(["scontrol", "hold", "1"]) and is_mutating(["scontrol", "-M", "a", "update"])
    assert not is_mutating(["scontrol", "-o", "show", "job"])
    assert not is_mutating(["scontrol", "-M", "show", "show", "job"])
    assert not is_mutating(["squeue"]) and not is_mutating(["/usr/bin/sacct", "-j", "1"])
    assert is_mutating(["srun", "x"])  # unknown: assumed to write


def test_clock_words() -> None:
    assert clock_request([]) == {"action": "show"}
    assert clock_request(["speed", "60"]) == {"action": "speed", "value": 60.0}
    assert clock_request(["speed", "10x"]) == {"action": "speed", "value": 10.0}
    assert clock_request(["speed", "max"]) == {"action": "speed", "value": None}
    assert clock_request(["advance", "1:30:00"]) == {"action": "advance", "value": 5400.0}
    assert clock_request(["until", "2h"]) == {"action": "until", "value": 7200.0}
    assert clock_request(["until", "+90"]) == {"action": "advance", "value": 90.0}
    assert clock_request(["until", "idle"]) == {"action": "idle"}
    assert parse_clock_duration("1-00:00:00") == 86400.0
    assert parse_clock_duration("1.5m") == 90.0
    for words in (
        ["speed", "0"],
        ["speed", "fast!"],
        ["advance", "soon"],
        ["warp"],
        ["pause", "1"],
    ):
        with pytest.raises(ClockSyntaxError):
            clock_request(words)
    assert math.isfinite(parse_clock_duration("2w"))


def test_clock_command(make_daemon: Any, capsys: Any) -> None:
    running = make_daemon()
    running.run("sbatch", "--wrap", "x", "-t", "2")
    socket = ["--socket", str(running.socket)]
    assert main(["clock", *socket]) == 0  # the arrival waits for the clock to move
    assert capsys.readouterr().out == "t=0.000 s (0-00:00:00), paused; next event at t=0.000\n"
    assert main(["clock", "step", *socket]) == 0
    assert capsys.readouterr().out == "t=0.000 s (0-00:00:00), paused; next event at t=120.000\n"
    assert main(["clock", "until", "idle", *socket]) == 0
    assert capsys.readouterr().out == "t=120.000 s (0-00:02:00), paused; idle\n"
    assert main(["clock", "speed", "60", *socket]) == 0
    assert main(["clock", "resume", *socket]) == 0
    assert "running at 60x" in capsys.readouterr().out
    assert main(["clock", "until", "10", *socket]) == 1
    assert "is in the past" in capsys.readouterr().err
    assert main(["clock", "warp", *socket]) == 2


def test_shims_run_the_commands_by_name(make_daemon: Any, short_dir: Path) -> None:
    running = make_daemon()
    bin_dir = short_dir / "bin"
    written = write_shims(bin_dir, running.socket)
    assert sorted(path.name for path in written) == sorted(CLIENT_COMMANDS)
    assert all(os.access(path, os.X_OK) for path in written)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("BATCHLAB_SOCKET", None)
    (short_dir / "job.sh").write_text("#!/bin/sh\nsleep 1\n")
    sbatch = subprocess.run(
        ["sbatch", "-t", "3", "job.sh"], cwd=short_dir, env=env, capture_output=True, text=True
    )
    assert (sbatch.returncode, sbatch.stdout) == (0, "Submitted batch job 1\n")
    piped = subprocess.run(["sbatch"], input="#!/bin/sh\n", env=env, capture_output=True, text=True)
    assert piped.stdout == "Submitted batch job 2\n"
    squeue = subprocess.run(
        ["squeue", "-h", "-o", "%i %j %u %t"], env=env, capture_output=True, text=True
    )
    assert squeue.stdout == "1 job.sh root PD\n2 sbatch root PD\n"  # paused
    bad = subprocess.run(["scancel", "x"], env=env, capture_output=True, text=True)
    assert (bad.returncode, bad.stderr) == (1, "scancel: error: Invalid job id x\n")
    write_shims(bin_dir)  # our own shims are replaced
    (bin_dir / "sinfo").write_text("#!/bin/sh\necho the real one\n")
    with pytest.raises(StartError, match="not a batchlab shim"):
        write_shims(bin_dir)


def test_default_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert default_socket({"BATCHLAB_SOCKET": "/x.sock"}) == Path("/x.sock")
    assert default_socket({"XDG_RUNTIME_DIR": str(tmp_path)}) == tmp_path / "batchlab.sock"
    assert default_socket({"XDG_RUNTIME_DIR": "/nonexistent"}) == Path(
        f"/tmp/batchlab-{os.getuid()}.sock"
    )
    assert default_state_dir({"XDG_STATE_HOME": "/s"}) == Path("/s/batchlab")


def test_daemon_start_status_stop_detached(short_dir: Path) -> None:
    env = {"BATCHLAB_SOCKET": str(short_dir / "d.sock")}
    state = ["--state-dir", str(short_dir / "state")]
    common = ["--paused", *state]
    started = cli("daemon", "start", "--platform", str(LAB), *common, env=env)
    assert started.returncode == 0, started.stderr
    pid = read_pid(short_dir / "state")
    assert pid is not None and f"started, pid {pid}" in started.stdout
    try:
        again = cli("daemon", "start", *common, env=env)
        assert again.returncode == 1 and f"is in use by daemon pid {pid}" in again.stderr
        status = cli("daemon", "status", env=env)
        assert status.returncode == 0 and "feed       none" in status.stdout
        assert cli("sbatch", "--wrap", "x", env=env).stdout == "Submitted batch job 1\n"
        stopped = cli("daemon", "stop", env=env)
        assert stopped.returncode == 0 and "stopped" in stopped.stdout
        assert cli("daemon", "status", env=env).returncode == 3
        assert cli("daemon", "stop", env=env).returncode == 1
    finally:
        if is_locked(short_dir / "state"):  # a failed assertion must not leave it running
            os.kill(pid, signal.SIGKILL)
