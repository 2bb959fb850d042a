"""Command files and console lines, executed in-process on a controller, deterministically.

A command file is one command per line, exactly as typed in a shell; the words and what each
means are :mod:`emulator.shell`'s (``sleep``, ``@``, ``wait``, ``as``, ``cd``, ``export``,
``unset``, ``cat >``, and the Slurm commands)::

    # a comment (not printed)
    @ 01:35:56                     the simulated clock runs to 01:35:56 after the origin
    sbatch -J post <<EOF           a here-document is the command's stdin (<<EOF, <<'EOF', <<-EOF)
    #!/bin/sh
    sleep 60
    EOF
    as alice squeue                one command as alice

The output echoes each command as ``$ command`` (``alice$`` for another user than root), a
here-document's lines as ``> line``, then what the command printed on stdout and stderr, and
``[exit N]`` when its status is not 0. Among the comment lines that open the file, ``# platform:
NAME`` and ``# scheduler: SPEC`` name what the file needs, ``# allow-failures: yes`` says that
it shows commands failing on purpose (:func:`read_header`): ``batchlab run`` follows them unless
told otherwise. Jobs submitted at an instant are scheduled when the clock
next moves, as Slurm's scheduler runs a moment after a submission.

:class:`CommandFile` executes the requests on a controller. Its clock is the controller's for
``batchlab run``; an in-process session passes itself, so that a workload it feeds arrives while
the words move time.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Protocol

from emulator.shell import (
    Advance,
    ConsoleLine,
    Execute,
    Request,
    RunUntil,
    ScriptLine,
    Shell,
    ShellError,
    SwitchUser,
    WriteFile,
    heredoc_echo,
    outcome,
    prompt,
    read_console,
    script_lines,
    strip_as,
)
from emulator.slurmctld.controller import CommandResult, Controller

__all__ = [
    "Clock",
    "CommandFile",
    "CommandFileError",
    "ControllerClock",
    "Header",
    "Step",
    "read_header",
    "run_text",
]

_YES = ("yes", "true", "1")
_NO = ("no", "false", "0")
_SETTING = re.compile(r"#\s*(platform|scheduler|allow-failures)\s*:\s*(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class Header:
    """What a command file says about itself in its opening comment lines ("": not said)."""

    platform: str = ""
    scheduler: str = ""
    # the file shows commands failing on purpose (permission denied, ...): ``run`` exits 0
    allow_failures: bool = False


def read_header(text: str) -> Header:
    """The ``# platform: NAME``, ``# scheduler: SPEC`` and ``# allow-failures: yes`` lines
    among the comment lines that open ``text`` (blank lines between them allowed); the first
    command ends the header."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        match = _SETTING.match(stripped)
        if match:
            found.setdefault(match[1], match[2])
    allow = found.get("allow-failures", "no").lower()
    if allow not in _YES + _NO:
        raise CommandFileError(f"# allow-failures: {allow}: say yes or no")
    return Header(found.get("platform", ""), found.get("scheduler", ""), allow in _YES)


class CommandFileError(ValueError):
    """A line the runner cannot understand: ``file:line: message``."""


@dataclass(frozen=True, slots=True)
class Step:
    """One executed command: its line as written, who ran it, when, and its result."""

    line: int
    text: str  # the command line (without here-document body)
    argv: tuple[str, ...]
    user: str
    time: float
    result: CommandResult


class Clock(Protocol):
    """What moves simulated time for the words ``sleep``, ``@`` and ``wait``."""

    def advance(self, seconds: float) -> object: ...

    def run_until(self, time: float) -> object:
        """Run to ``time`` (``inf``: until nothing is left to happen)."""


@dataclass(frozen=True, slots=True)
class ControllerClock:
    """The controller's own clock (``batchlab run``)."""

    controller: Controller

    def advance(self, seconds: float) -> None:
        self.controller.advance(seconds)

    def run_until(self, time: float) -> None:
        if math.isinf(time):
            self.controller.wait()
        else:
            self.controller.advance_to(time)


@dataclass
class CommandFile:
    """Executes the interpreter's requests on ``controller``, keeping ``batchlab run``'s
    transcript (:attr:`output`) and the Slurm commands run (:attr:`steps`)."""

    controller: Controller
    name: str = "<commands>"
    shell: Shell = field(default_factory=Shell)
    clock: Clock | None = None  # None: the controller's (ControllerClock)
    steps: list[Step] = field(default_factory=list)
    output: list[str] = field(default_factory=list)

    def run(self, text: str) -> str:
        """Run a whole file's text; returns the transcript (also kept in :attr:`output`).
        Raises :class:`CommandFileError` at the first line it cannot run."""
        try:
            for line in script_lines(text):
                self._run_line(line)
        except ShellError as error:
            raise CommandFileError(f"{self.name}:{error.line}: {error}") from None
        return "".join(self.output)

    def _run_line(self, line: ScriptLine) -> None:
        words = line.words
        named, _, shown = strip_as(words, line.shown)
        if words[:1] != ["as"] or len(words) > 2:  # (``as NAME`` alone is not echoed)
            self._echo(shown, named or self.shell.user)
        ctl = self.controller
        try:
            request = self.shell.read(words, line.stdin, origin=ctl.origin, now=ctl.now)
        except ShellError as error:
            raise ShellError(str(error), line.number) from None
        if line.body is not None and isinstance(request, Execute | WriteFile):
            self.output.append(heredoc_echo(line.body, line.delimiter))
        time = ctl.now
        result = self.perform(request)
        if isinstance(request, Execute):
            text = strip_as(words, line.command_text)[2]
            self.steps.append(Step(line.number, text, request.argv, request.user, time, result))
            self.output.append(outcome(result))

    def _echo(self, text: str, user: str) -> None:
        self.output.append(f"{prompt(user)} {text}\n")

    def perform(self, request: Request) -> CommandResult:
        """Execute one request; what a Slurm command printed, an empty result for the rest."""
        ctl = self.controller
        clock = self.clock or ControllerClock(ctl)
        if isinstance(request, Execute):
            return ctl.execute(
                list(request.argv),
                user=request.user,
                env=request.env,
                stdin=request.stdin,
                cwd=request.cwd,
            )
        if isinstance(request, Advance):
            clock.advance(request.seconds)
        elif isinstance(request, RunUntil):
            clock.run_until(request.time)
        elif isinstance(request, WriteFile):
            ctl.files[request.path] = request.text
        elif isinstance(request, SwitchUser):
            ctl.users.uid(request.user)  # users get their ids in the order they appear
        return CommandResult()

    def console(
        self, line: str, user: str | None = None, stdin: str | None = None
    ) -> tuple[ConsoleLine, CommandResult]:
        """Run one console line (errors come back as the command's result, as a shell prints
        them); returns the line as read and its result. The transcript entry is the caller's
        (:func:`~emulator.shell.transcript_entry`)."""
        ctl = self.controller
        read = read_console(self.shell, line, user, stdin, origin=ctl.origin, now=ctl.now)
        if read.refused is not None:
            return read, read.refused
        if read.request is None:
            return read, CommandResult()
        return read, self.perform(read.request)


def run_text(
    text: str, controller: Controller, *, name: str = "<commands>"
) -> tuple[str, list[Step]]:
    """Run a command file's text; returns the transcript and the executed commands."""
    runner = CommandFile(controller, name)
    transcript = runner.run(text)
    return transcript, runner.steps
