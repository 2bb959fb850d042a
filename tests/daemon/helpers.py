"""Daemons for the tests: in a thread of the test process, or as a subprocess of the CLI."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.client import Client
from emulator.daemon.server import Daemon
from emulator.daemon.state import Settings, open_daemon
from resources import platform_path

LAB = platform_path("lab")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path (a socket path must fit in 107 bytes), world-traversable."""
    path = Path(tempfile.mkdtemp(prefix="bl-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class Running:
    """A daemon serving in a background thread."""

    daemon: Daemon
    socket: Path
    state_dir: Path
    thread: threading.Thread
    logs: list[str] = field(default_factory=list)

    def client(self, timeout: float | None = 10.0) -> Client:
        return Client(self.socket, timeout).connect()

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        with self.client() as client:
            return client.call(op, **fields)

    def run(self, *argv: str, **fields: Any) -> dict[str, Any]:
        """Run a Slurm command; the response."""
        return self.call("exec", argv=list(argv), env={}, cwd="/", **fields)

    def stop(self) -> None:
        if self.thread.is_alive():
            self.daemon.request_stop()
            self.thread.join(10)
            assert not self.thread.is_alive(), "the daemon did not stop"


def start_thread(settings: Settings, **patch: Any) -> Running:
    """Open and serve a daemon in one thread (SQLite, in the controller, wants that)."""
    logs: list[str] = []
    opened: list[Daemon | BaseException] = []
    ready = threading.Event()

    def main() -> None:
        try:
            daemon = open_daemon(settings, log=logs.append)
        except BaseException as problem:
            opened.append(problem)
            ready.set()
            return
        for name, value in patch.items():
            setattr(daemon, name, value)
        opened.append(daemon)
        daemon.serve(ready.set)

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    ready.wait(30)
    if isinstance(opened[0], BaseException):
        raise opened[0]
    return Running(opened[0], settings.socket_path, settings.state_dir, thread, logs)


@pytest.fixture
def make_daemon(short_dir: Path) -> Iterator[Any]:
    """``make_daemon(**settings)``: a daemon on the lab platform in a thread (paused unless told
    otherwise)."""
    started: list[Running] = []

    def make(**options: Any) -> Running:
        patch = options.pop("patch", {})
        values: dict[str, Any] = {
            "state_dir": short_dir / "state",
            "socket_path": short_dir / "s.sock",
            "platform": LAB,
            "paused": True,
        }
        values.update(options)
        running = start_thread(Settings(**values), **patch)
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


def wait_for_socket(path: Path, process: subprocess.Popen[bytes] | None = None) -> None:
    """Poll until a daemon answers on ``path`` (or its process died), for up to a minute: a
    restart replays its journal, and a loaded CI machine makes that slow."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
            return
        except OSError:
            if process is not None and process.poll() is not None:
                raise AssertionError(
                    f"daemon exited: {process.stderr.read() if process.stderr else ''!r}"
                ) from None
            time.sleep(0.005)
        finally:
            probe.close()
    raise AssertionError(f"no daemon on {path}")


def cli(
    *args: str, env: dict[str, str] | None = None, **kw: Any
) -> subprocess.CompletedProcess[str]:
    """Run ``batchlab ARGS`` in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "emulator.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
        **kw,
    )


def spawn_foreground(*args: str) -> subprocess.Popen[bytes]:
    """``batchlab daemon start --foreground ARGS`` as a child process."""
    return subprocess.Popen(
        [sys.executable, "-m", "emulator.cli", "daemon", "start", "--foreground", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


class FakeWall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def later(self, seconds: float = 1.0) -> None:
        self.now += seconds
