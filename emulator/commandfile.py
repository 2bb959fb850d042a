"""Command files: a scripted Slurm session, run in-process and deterministically.

One command per line, exactly as typed in a shell::

    # a comment (not printed)
    @ 01:35:56                     the simulated clock jumps to 01:35:56 after the origin
    sbatch --wrap "true"           a Slurm command: sbatch squeue sinfo scancel scontrol sacct
    sbatch -J post <<EOF           a here-document is the command's stdin (<<EOF, <<'EOF', <<-EOF)
    #!/bin/sh
    sleep 60
    EOF
    cat > job.sh <<EOF             writes a file of the session's own file system
    ...
    EOF
    sleep 90                       advance simulated time (seconds, or 5m, 2h, 1d, or 1:30)
    @ 2026-11-22T02:00:00          jump to an absolute time (UTC)
    as alice                       act as alice from now on (``as alice squeue``: one command)
    cd /home/alice                 the working directory of what follows
    export SBATCH_PARTITION=short  an environment variable for what follows (``unset`` removes)
    wait                           run until nothing is left to happen

The output echoes each command as ``$ command`` (``alice$`` for another user than root), then
what it printed on stdout and stderr, and ``[exit N]`` when its status is not 0. Tokens are split
with :mod:`shlex`; variables are not expanded. Jobs submitted at an instant are scheduled when the
clock next moves, as Slurm's scheduler runs a moment after a submission.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath

from emulator.model.durations import DurationError, parse_duration
from emulator.slurmctld.controller import CommandResult, Controller

__all__ = ["CommandFileError", "Session", "Step", "parse_sleep", "run_text"]


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


_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2\s*$")
_SLEEP = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_sleep(text: str) -> float:
    """``sleep`` durations: ``N[smhd]`` (as coreutils) or a Slurm duration ``[D-]H:M:S``."""
    match = _SLEEP.match(text)
    if match:
        return float(match[1]) * _UNITS[match[2]]
    if ":" in text or "-" in text:
        return parse_duration(text)
    raise ValueError(f"invalid duration {text!r}")


@dataclass
class Session:
    """Runs command-file lines against a controller, collecting the transcript."""

    controller: Controller
    name: str = "<commands>"
    user: str = "root"
    cwd: str = "/root"
    env: dict[str, str] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    output: list[str] = field(default_factory=list)

    def run(self, text: str) -> str:
        """Run a whole file's text; returns the transcript (also kept in :attr:`output`)."""
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        index = 0
        while index < len(lines):
            number = index + 1
            raw = lines[index]
            index += 1
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            stdin: str | None = None
            body_lines: list[str] = []
            heredoc = _HEREDOC.search(line)
            if heredoc:
                strip_tabs, delimiter = heredoc[1] == "-", heredoc[3]
                line = line[: heredoc.start()].rstrip()
                while True:
                    if index >= len(lines):
                        raise self._error(number, f"here-document ended before {delimiter!r}")
                    content = lines[index]
                    index += 1
                    if strip_tabs:
                        content = content.lstrip("\t")
                    if content == delimiter:
                        break
                    body_lines.append(content)
                stdin = "".join(item + "\n" for item in body_lines)
            try:
                words = shlex.split(line, comments=True)
            except ValueError as error:
                raise self._error(number, str(error)) from None
            if not words:
                continue
            self._line(number, raw.strip(), words, stdin, body_lines, heredoc)
        return "".join(self.output)

    def _error(self, number: int, message: str) -> CommandFileError:
        return CommandFileError(f"{self.name}:{number}: {message}")

    def _echo(self, text: str, user: str | None = None) -> None:
        who = user or self.user
        prompt = "$" if who == "root" else f"{who}$"
        self.output.append(f"{prompt} {text}\n")

    def _line(
        self,
        number: int,
        shown: str,
        words: list[str],
        stdin: str | None,
        body: list[str],
        heredoc: re.Match[str] | None,
    ) -> None:
        ctl = self.controller
        head = words[0]
        if head == "@" and len(words) == 2:
            self._echo(shown)
            target = self._absolute(number, words[1])
            if target < ctl.now:
                raise self._error(number, f"@ {words[1]} is before the current time")
            ctl.advance_to(target)
            return
        if head == "sleep" and len(words) == 2:
            self._echo(shown)
            try:
                seconds = parse_sleep(words[1])
            except (ValueError, DurationError) as error:
                raise self._error(number, str(error)) from None
            ctl.advance(seconds)
            return
        if head == "wait" and len(words) == 1:
            self._echo(shown)
            ctl.wait()
            return
        if head == "as" and len(words) >= 2:
            if len(words) == 2:
                self.user = words[1]
                ctl.users.uid(words[1])
                return
            self._command(number, shown, words[2:], stdin, body, heredoc, words[1])
            return
        if head == "cd" and len(words) <= 2:
            self._echo(shown)
            directory = words[1] if len(words) == 2 else "/root"
            self.cwd = str(PurePosixPath(self.cwd) / directory)
            return
        if head == "export" and len(words) >= 2:
            self._echo(shown)
            for item in words[1:]:
                key, eq, value = item.partition("=")
                if not eq:
                    raise self._error(number, f"export needs NAME=value, got {item!r}")
                self.env[key] = value
            return
        if head == "unset" and len(words) >= 2:
            self._echo(shown)
            for key in words[1:]:
                self.env.pop(key, None)
            return
        if head == "cat" and len(words) == 3 and words[1] == ">" and stdin is not None:
            self._echo(shown)
            self._show_body(body, heredoc)
            ctl.files[str(PurePosixPath(self.cwd) / words[2])] = stdin
            return
        self._command(number, shown, words, stdin, body, heredoc, self.user)

    def _show_body(self, body: list[str], heredoc: re.Match[str] | None) -> None:
        if heredoc is None:
            return
        self.output.extend(f"> {line}\n" for line in body)
        self.output.append(f"> {heredoc[3]}\n")

    def _command(
        self,
        number: int,
        shown: str,
        argv: list[str],
        stdin: str | None,
        body: list[str],
        heredoc: re.Match[str] | None,
        user: str,
    ) -> None:
        ctl = self.controller
        text = shown.removeprefix("as ").split(None, 1)[1] if shown.startswith("as ") else shown
        self._echo(text, user)
        self._show_body(body, heredoc)
        time = ctl.now
        result = ctl.execute(argv, user=user, env=dict(self.env), stdin=stdin, cwd=self.cwd)
        self.steps.append(Step(number, _without_heredoc(text), tuple(argv), user, time, result))
        self.output.append(result.stdout)
        self.output.append(result.stderr)
        if result.exit_code:
            self.output.append(f"[exit {result.exit_code}]\n")

    def _absolute(self, number: int, text: str) -> float:
        """``@`` times: ``[D-]HH:MM:SS`` after the origin, or an ISO date-time (UTC)."""
        if "T" in text:
            try:
                moment = datetime.fromisoformat(text.removesuffix("Z") + "+00:00")
            except ValueError:
                raise self._error(number, f"invalid time {text!r}") from None
            return moment.timestamp() - self.controller.origin
        try:
            seconds = parse_duration(text) if text.count(":") != 1 else _minutes_seconds(text)
        except DurationError:
            raise self._error(number, f"invalid time {text!r}") from None
        if math.isinf(seconds):
            raise self._error(number, f"invalid time {text!r}")
        return seconds


def _minutes_seconds(text: str) -> float:
    """``HH:MM`` for ``@`` (a clock time, not Slurm's ``M:S``)."""
    hours, minutes = text.split(":")
    if not (hours.isdigit() and minutes.isdigit()):
        raise DurationError(text)
    return float(int(hours) * 3600 + int(minutes) * 60)


def _without_heredoc(text: str) -> str:
    match = _HEREDOC.search(text)
    return text[: match.start()].rstrip() if match else text


def run_text(
    text: str, controller: Controller, *, name: str = "<commands>"
) -> tuple[str, list[Step]]:
    """Run a command file's text; returns the transcript and the executed commands."""
    session = Session(controller, name)
    transcript = session.run(text)
    return transcript, session.steps
