"""A window's own daemon: ``batchlab gui --platform/--workload/--commands/--demo`` runs its
emulator in a child process and attaches to it, as ``batchlab gui --socket`` attaches to one
started by hand (``--compare``: two, on one clock, :mod:`gui.paired`).

Why a process: the emulator then has a core of its own, and the window's thread never waits for
it. Sharing one thread slowed the emulator down, and a big platform's instant held the window
(``bench.gui_frames``); a worker thread was no better: both halves hold the GIL.

The child is a plain ``batchlab daemon start --foreground``, fed with its own ``--demo``,
``--workload`` or ``--commands`` (a :class:`Feed`), in a private temporary state directory
(removed when the child stops), on a socket there. It is started by ``python -m
emulator.child``, which asks Linux to stop it when its parent dies (a window killed outright
leaves no emulator running on) and lowers its priority a little (:data:`NICE`): the window
comes first.
"""

from __future__ import annotations

import ctypes
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from emulator.daemon.client import DaemonUnavailable, call
from emulator.daemon.emulation import Feed
from emulator.pacing import Pacer
from emulator.remote import RemoteSession

__all__ = ["ChildDaemon", "ChildError", "ChildSession", "Feed", "open_child"]

LOG_FILE = "daemon.log"
_ERROR = "batchlab: error: "  # how the daemon's CLI prefixes a start error
_PR_SET_PDEATHSIG = 1  # prctl(2)
# the emulator yields the CPU to its window: a comparison window's two daemons and the window
# share two cores, and the window waited for one (a lone window's daemon runs as fast niced)
NICE = 5


class ChildError(Exception):
    """The child daemon did not start; the message says why, as the daemon said it."""


class ChildDaemon:
    """``batchlab daemon start --foreground`` in a child process on ``platform_file`` under
    ``scheduler``, fed ``feed``, paused, at ``speed`` (simulated seconds per wall second, inf:
    as fast as it can). :meth:`wait_ready` before use, :meth:`stop` after (also removes its
    directory)."""

    def __init__(
        self,
        platform_file: Path,
        scheduler: str,
        feed: Feed | None = None,
        *,
        speed: float = 60.0,
    ) -> None:
        self.platform_file = platform_file
        self.directory = Path(tempfile.mkdtemp(prefix="batchlab-"))  # short: a socket path
        self.socket = self.directory / "socket"
        feed = (feed or Feed()).absolute()
        command = [sys.executable, "-m", "emulator.child", str(os.getpid())]
        command += ["--foreground", "--paused", "--scheduler", scheduler]
        command += ["--platform", str(platform_file.absolute())]
        command += ["--state-dir", str(self.directory), "--socket", str(self.socket)]
        command += ["--speed", _speed_word(speed), *(["--demo"] if feed.demo else [])]
        for name, path in feed.named():
            command += [f"--{name}", str(path)]
        with open(self.directory / LOG_FILE, "wb") as log:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=log
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
        for text in call(child.socket, "transcript", timeout=30.0)["lines"]:
            self._add(str(text))

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
    """``python -m emulator.child PARENT_PID ARGS...``: ``batchlab daemon start ARGS...``,
    stopped (SIGTERM) when the process PARENT_PID dies."""
    parent, args = int(argv[0]), argv[1:]
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # it died before prctl took effect
        return 1
    os.nice(NICE)

    from emulator.daemon.cli import start_main

    return start_main(args)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
