"""A window's own daemon: ``batchlab gui --platform/--workload/--commands/--demo`` runs its
emulator in a child process and attaches to it, as ``batchlab gui --socket`` attaches to one
started by hand (``--compare``: two, on one clock, :mod:`gui.paired`).

Why a process: the emulator then has a core of its own, and the window's thread never waits for
it. Sharing one thread, as the window did before, slowed the emulator by 32-35 % at 24 redraws a
second, and a big platform's instant held the window for up to 140 ms (``bench.gui_frames``).
A worker thread was no better: both halves hold the GIL.

The child is ``batchlab daemon start --foreground`` with :func:`handler`, in a private
temporary state directory (removed when the child stops), on a socket there. What its session
starts with (the demo's jobs, a workload, a command file: a :class:`Feed`) is written there as
``feed.json`` for :func:`handler` to read. The child is started by ``python -m emulator.child``,
which asks Linux to stop it when its parent dies (a window killed outright leaves no emulator
running on) and lowers its priority a little (:data:`NICE`): the window comes first.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from emulator.daemon.client import DaemonUnavailable, call
from emulator.daemon.handlers import ControllerHandler, HandlerError
from emulator.daemon.protocol import Handler
from emulator.pacing import Pacer
from emulator.remote import RemoteSession

__all__ = ["ChildDaemon", "ChildError", "ChildSession", "Feed", "handler", "open_child"]

FEED_FILE = "feed.json"
TRANSCRIPT_FILE = "transcript.json"  # what the session ran as it was fed, for the console
LOG_FILE = "daemon.log"
_ERROR = "batchlab: error: "  # how the daemon's CLI prefixes a start error
_PR_SET_PDEATHSIG = 1  # prctl(2)
# the emulator yields the CPU to its window: a comparison window's two daemons and the window
# share two cores, and the window waited for one (on the window benchmark's platform its thread
# was held 26 ms at p95, up to 83-92 ms; niced by 5, 20 ms, up to 63-81; a lone window's daemon
# runs as fast as before)
NICE = 5


class ChildError(Exception):
    """The child daemon did not start; the message says why, as the daemon said it."""


@dataclass(frozen=True, slots=True)
class Feed:
    """What the child's session starts with: the demo's jobs, a workload (SWF, SWF.gz, BSP
    CSV) or a command file; nothing by default."""

    demo: bool = False
    workload: Path | None = None
    commands: Path | None = None

    def write(self, directory: Path) -> None:
        data = {
            "demo": self.demo,
            "workload": None if self.workload is None else str(self.workload.absolute()),
            "commands": None if self.commands is None else str(self.commands.absolute()),
        }
        (directory / FEED_FILE).write_text(json.dumps(data), encoding="utf-8")

    @classmethod
    def read(cls, directory: Path) -> Feed:
        data = json.loads((directory / FEED_FILE).read_text(encoding="utf-8"))
        return cls(
            bool(data["demo"]),
            None if data["workload"] is None else Path(data["workload"]),
            None if data["commands"] is None else Path(data["commands"]),
        )


def handler(platform_file: str, scheduler: str, state_dir: str) -> Handler:
    """The child daemon's handler (``--handler emulator.child:handler``): the real controller,
    under a session fed as ``STATE_DIR/feed.json`` says (:func:`emulator.session.demo_session`
    or :func:`~emulator.session.open_session`, the in-process window's makers). A file it
    cannot use raises :class:`HandlerError` with the loader's own message."""
    from emulator.model.platform_file import load_platform
    from emulator.session import OpenError, demo_session, open_session

    feed = Feed.read(Path(state_dir))
    try:
        if feed.demo:
            session = demo_session(scheduler)
        else:
            platform = load_platform(platform_file)
            session = open_session(
                platform, scheduler, workload=feed.workload, commands=feed.commands
            )
    except OpenError as error:
        raise HandlerError(str(error)) from None
    transcript = json.dumps(list(session.transcript))
    (Path(state_dir) / TRANSCRIPT_FILE).write_text(transcript, encoding="utf-8")
    return ControllerHandler(session.controller, session=session)


class ChildDaemon:
    """``batchlab daemon start --foreground`` in a child process on ``platform_file`` under
    ``scheduler``, fed ``feed``, paused, at ``speed`` (simulated seconds per wall second, inf:
    as fast as it can). ``handler_name`` and ``env`` are the benchmark's (its own workload).
    :meth:`wait_ready` before use, :meth:`stop` after (also removes its directory)."""

    def __init__(
        self,
        platform_file: Path,
        scheduler: str,
        feed: Feed | None = None,
        *,
        speed: float = 60.0,
        handler_name: str = "emulator.child:handler",
        env: dict[str, str] | None = None,
    ) -> None:
        self.platform_file = platform_file
        self.directory = Path(tempfile.mkdtemp(prefix="batchlab-"))  # short: a socket path
        self.socket = self.directory / "socket"
        (feed or Feed()).write(self.directory)
        command = [sys.executable, "-m", "emulator.child", str(os.getpid())]
        command += ["daemon", "start", "--foreground", "--paused"]
        command += ["--platform", str(platform_file.absolute()), "--scheduler", scheduler]
        command += ["--handler", handler_name, "--state-dir", str(self.directory)]
        command += ["--socket", str(self.socket), "--speed", _speed_word(speed)]
        with open(self.directory / LOG_FILE, "wb") as log:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env
            )

    def wait_ready(self, timeout: float = 300.0) -> None:
        """Return once the daemon answers; raise :class:`ChildError` (and stop) if it exits
        first or does not answer within ``timeout`` seconds."""
        wall = Pacer(paused=True).wall  # the one reader of the wall clock
        deadline = wall() + timeout
        while True:
            try:
                call(self.socket, "ping", timeout=5.0)
                return
            except DaemonUnavailable:
                pass
            status = self.process.poll()
            if status is not None or wall() > deadline:
                why = self._said() or (
                    f"the emulator exited with status {status}"
                    if status is not None
                    else f"the emulator did not answer within {timeout:g} s"
                )
                self.stop()
                raise ChildError(why)
            time.sleep(0.05)

    def _said(self) -> str:
        """The daemon's start error, as it printed it (its prefix aside), or ''."""
        try:
            lines = (self.directory / LOG_FILE).read_text(errors="replace").splitlines()
        except OSError:
            return ""
        errors = [line.removeprefix(_ERROR) for line in lines if line.startswith(_ERROR)]
        return errors[-1] if errors else ""

    def stop(self) -> None:
        """Stop the daemon (SIGTERM: a clean stop; SIGKILL after 10 s) and remove its
        directory. Safe to call again."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


class ChildSession(RemoteSession):
    """The session of a window on its own :class:`ChildDaemon`; :meth:`close` stops it. Its
    transcript starts with what the child's session ran as it was fed (the demo's ``sbatch``
    lines, a command file), as an in-process session's does."""

    def __init__(self, child: ChildDaemon) -> None:
        self.child = child
        super().__init__(child.socket)
        fed = (child.directory / TRANSCRIPT_FILE).read_text(encoding="utf-8")
        for text in json.loads(fed):
            self._add(text)

    def close(self) -> None:
        super().close()
        self.child.stop()


def open_child(
    platform_file: Path, scheduler: str, feed: Feed | None = None, *, speed: float = 60.0
) -> ChildSession:
    """A window's session on a new child daemon, paused (see :class:`ChildDaemon`); raises
    :class:`ChildError` if the daemon does not start (a file it cannot use, say)."""
    child = ChildDaemon(platform_file, scheduler, feed, speed=speed)
    child.wait_ready()
    try:
        return ChildSession(child)
    except BaseException:
        child.stop()
        raise


def _speed_word(speed: float) -> str:
    return "max" if math.isinf(speed) else repr(speed)


def main(argv: list[str]) -> int:
    """``python -m emulator.child PARENT_PID ARGS...``: ``batchlab ARGS...``, stopped (SIGTERM)
    when the process PARENT_PID dies."""
    parent, args = int(argv[0]), argv[1:]
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # it died before prctl took effect
        return 1
    os.nice(NICE)

    from emulator.cli import main as batchlab

    return batchlab(args)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
