"""The console of a session on a daemon: the words of :mod:`emulator.shell`, executed as
requests to the daemon, and the transcript of what ran.

A Slurm command is an ``exec`` request, answered at once (the end of an ``sbatch -W`` comes
later, on its own connection and thread); ``sleep``, ``@`` and ``wait`` are clock requests the
daemon answers when its clock gets there, each waited for on a connection and thread of its
own; ``cd``, ``export``, ``unset`` and ``as`` change this console's shell. What the waiting
threads report joins the transcript on the caller's thread (:meth:`RemoteConsole.take_later`).
"""

from __future__ import annotations

import math
import os
import shlex
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any

from emulator.daemon.client import Client, DaemonError, DaemonUnavailable, build_exec, call
from emulator.daemon.commands import slurm_environment
from emulator.shell import (
    Advance,
    Execute,
    RunUntil,
    Shell,
    WriteFile,
    read_console,
    transcript_entry,
)
from emulator.slurmctld.controller import CommandResult

__all__ = ["RemoteConsole"]

_LOST = (DaemonUnavailable, DaemonError, OSError)  # TimeoutError is an OSError


class RemoteConsole:
    """Console lines for the daemon on ``path``, run as ``user`` (the connecting one) in this
    process's directory and with its Slurm environment, exactly as ``batchlab sbatch ...``
    typed in the same shell would. ``changed`` is called whenever the daemon's state may have
    changed (a command ran, a clock request was answered); ``wall`` reads wall seconds."""

    def __init__(
        self,
        path: Path,
        user: str,
        *,
        timeout: float,
        changed: Callable[[], None],
        wall: Callable[[], float],
    ) -> None:
        self.path = path
        self.user = user
        self.timeout = timeout
        self._changed = changed
        self._wall = wall
        # as NAME is the operator's right, checked by the daemon
        self.shell = Shell(user, _cwd(), os.path.expanduser("~"), slurm_environment(os.environ))
        self.transcript: deque[str] = deque(maxlen=1000)
        self.transcript_count = 0  # entries ever added (the deque drops the oldest)
        self._later: SimpleQueue[str] = SimpleQueue()  # transcript text from waiting threads
        self._reaching: list[threading.Event] = []  # the clock requests out
        self._client: Client | None = None  # the connection commands are sent on

    def command(
        self, line: str, user: str | None, stdin: str | None, *, origin: float, now: float
    ) -> CommandResult:
        """Run one console line (``origin`` and ``now``: the daemon's, for ``@``); returns what
        the CLI prints and adds the line to the transcript, as ``batchlab run`` prints them."""
        read = read_console(self.shell, line, user, stdin, origin=origin, now=now)
        request = read.request
        result = read.refused or CommandResult()
        if isinstance(request, Execute):
            result = self.execute(request)
        elif isinstance(request, Advance):
            clock = {"action": "advance", "value": request.seconds}
            self._reaching.append(self.reach(clock, read.shown))
        elif isinstance(request, RunUntil):
            goal = request.time
            until = {"action": "until", "value": goal}
            clock = until if math.isfinite(goal) else {"action": "idle"}
            self._reaching.append(self.reach(clock, read.shown))
        elif isinstance(request, WriteFile):
            result = CommandResult("", "cat: a daemon's session writes no files\n", 1)
        if read.shown_in_transcript:
            self.add(transcript_entry(read.user, read.shown, result, stdin))
        return result

    def run(self, argv: tuple[str, ...]) -> CommandResult:
        """Run a Slurm command as the shell's user, in its directory and environment."""
        shell = self.shell
        return self.execute(Execute(argv, shell.user, shell.cwd, dict(shell.env), None))

    def execute(self, request: Execute) -> CommandResult:
        argv = list(request.argv)
        message = build_exec(argv, request.env, request.cwd, None)
        if request.stdin is not None:
            message["stdin"] = request.stdin
        if request.user != self.user:
            message["as_user"] = request.user
        self._changed()
        try:
            if self._client is None:
                self._client = Client(self.path, self.timeout).connect()
            client = self._client
            client.send(message)
            response = client.receive()
        except _LOST as problem:
            self.close()
            return CommandResult("", f"{argv[0]}: error: {problem}\n", 1)
        if not response.get("ok"):
            refusal = response.get("error") or {}
            return CommandResult("", f"{argv[0]}: error: {refusal.get('message')}\n", 1)
        if response.get("partial"):  # sbatch -W: the rest comes when the jobs end
            self._client = None  # this connection now belongs to the thread that waits
            shown = shlex.join(argv)
            threading.Thread(target=self._wait_exec, args=(client, shown), daemon=True).start()
        return CommandResult(
            str(response.get("stdout", "")),
            str(response.get("stderr", "")),
            int(response.get("exit_code") or 0),
        )

    def _wait_exec(self, client: Client, shown: str) -> None:
        try:
            response = client.finish()
            text = f"{response.get('stdout', '')}{response.get('stderr', '')}"
            text += f"[{shown}: exit {response.get('exit_code', 1)}]\n"
        except _LOST as problem:
            text = f"[{shown}: lost the daemon: {problem}]\n"
        finally:
            client.close()
        self._later.put(text)

    def reach(self, request: dict[str, Any], shown: str, *, fresh: bool = True) -> threading.Event:
        """Send a clock request that the daemon answers when its clock gets there (``until``,
        ``advance``, ``idle``) on a connection and thread of its own. The event is set once it
        is answered, and with ``fresh`` the state is then asked for again at once (not in the
        background); if it fails, the transcript says why, after ``shown``."""
        reached = threading.Event()

        def wait() -> None:
            try:
                call(self.path, "clock", timeout=None, **request)
                if fresh:
                    self._changed()
            except _LOST as problem:
                self._later.put(f"[{shown}: {getattr(problem, 'message', problem)}]\n")
            finally:
                reached.set()

        threading.Thread(target=wait, name="clock", daemon=True).start()
        return reached

    def wait_for_clock(self, timeout: float) -> bool:
        """Wait until the daemon answered every clock request this console sent, at most
        ``timeout`` seconds; False if one is still out."""
        deadline = self._wall() + timeout
        while self._reaching:
            if not self._reaching[0].wait(max(0.0, deadline - self._wall())):
                return False
            self._reaching.pop(0)
        self.take_later()
        return True

    def add(self, text: str) -> None:
        self.transcript.append(text)
        self.transcript_count += 1

    def take_later(self) -> None:
        """Move what the waiting threads reported into the transcript (on the caller's thread,
        so that readers of the transcript never see it change under them)."""
        while True:
            try:
                text = self._later.get_nowait()
            except Empty:
                return
            self.add(text)
            self._changed()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return "/"
