"""The one interpreter of the console and command-file words.

A line typed in the window's console, sent by a program embedding a session, or read from a
command file (``batchlab run``) means the same thing everywhere; this module says what. It turns
words into typed requests and keeps the shell's own state (who acts, the working directory, the
environment); each front end then executes the requests its way: :mod:`emulator.commandfile` on a
controller (``batchlab run``, an in-process :class:`~emulator.session.Session`), and
:class:`~emulator.remote.RemoteSession` as requests to a daemon. Nothing here runs a command or
moves a clock, so the front ends cannot disagree on what a word means.

The words::

    sleep 90                       advance simulated time (seconds, or 5m, 2h, 1d, 1w, or 1:30)
    @ 01:35:56                     run the clock to 01:35:56 after the origin (@ 03:50: 3 h 50 min)
    @ 2026-11-22T02:00:00          run the clock to a date and time (UTC)
    wait                           run until nothing is left to happen (no argument: refused)
    as alice                       act as alice from now on (``as alice squeue``: one command)
    cd /home/alice                 the working directory of what follows (``cd``: the home)
    export SBATCH_PARTITION=short  an environment variable for what follows (``unset`` removes)
    cat > job.sh <<EOF             write a file of the session's own file system (a command file's)
    anything else                  a Slurm command: sbatch squeue sinfo scancel scontrol sacct

Command files add here-documents (``<<EOF``, ``<<'EOF'``, ``<<-EOF``): the lines up to the
delimiter are the command's stdin (:func:`script_lines`). Tokens are split with :mod:`shlex`;
variables are not expanded.
"""

from __future__ import annotations

import dataclasses
import math
import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from emulator.model.durations import DurationError, parse_duration
from emulator.slurmctld.controller import CommandResult

__all__ = [
    "Advance",
    "ConsoleLine",
    "Execute",
    "Request",
    "RunUntil",
    "ScriptLine",
    "Shell",
    "ShellChanged",
    "ShellError",
    "SwitchUser",
    "WriteFile",
    "heredoc_echo",
    "outcome",
    "parse_at",
    "parse_sleep",
    "prompt",
    "read_console",
    "script_lines",
    "split",
    "strip_as",
    "transcript_entry",
]


class ShellError(ValueError):
    """Words the interpreter cannot understand. The message does not name the word: a command
    file puts ``file:line:`` in front of it (``line``: where :func:`script_lines` found it), the
    console the word (``sleep: ...``)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


# --- the requests ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Advance:
    """``sleep``: run the clock this many simulated seconds from wherever it is then."""

    seconds: float


@dataclass(frozen=True, slots=True)
class RunUntil:
    """``@ TIME`` (seconds after the origin) and ``wait`` (``inf``: until nothing is left)."""

    time: float


@dataclass(frozen=True, slots=True)
class Execute:
    """A Slurm command, as ``user``, in the shell's directory and environment at the time."""

    argv: tuple[str, ...]
    user: str
    cwd: str
    env: dict[str, str]
    stdin: str | None


@dataclass(frozen=True, slots=True)
class WriteFile:
    """``cat > PATH <<EOF``: the file's absolute path and text."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class SwitchUser:
    """``as NAME``: the shell acts as ``user`` from now on (not echoed in a transcript)."""

    user: str


@dataclass(frozen=True, slots=True)
class ShellChanged:
    """``cd``, ``export``, ``unset``: the shell's state changed, nothing to execute."""


Request = Advance | RunUntil | Execute | WriteFile | SwitchUser | ShellChanged


# --- durations and times -----------------------------------------------------------------------

_DURATION = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhdw]?)$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def parse_sleep(text: str) -> float:
    """Seconds of ``sleep`` (and ``batchlab clock advance``): ``N[smhdw]`` as coreutils' sleep
    (a bare number is seconds), or a Slurm duration ``M:S``, ``H:M:S``, ``D-H[:M[:S]]``."""
    value = text.strip().lower()
    match = _DURATION.match(value)
    if match:
        return float(match[1]) * _UNITS[match[2]]
    if ":" in value or "-" in value:
        try:
            seconds = parse_duration(value)
        except DurationError:
            seconds = math.nan
        if math.isfinite(seconds):
            return seconds
    raise ShellError(f"invalid duration {text!r}")


def parse_at(text: str, origin: float) -> float:
    """``@`` times, in seconds after the origin (the epoch second ``origin``): a clock time
    ``HH:MM`` (``03:50`` is 3 h 50 min: a time of day, not Slurm's ``M:S``), a Slurm duration
    ``[D-]HH:MM:SS`` (a bare number is minutes, as Slurm reads it), or an ISO date and time,
    UTC (``2026-11-22T02:00:00``, a ``Z`` allowed)."""
    if "T" in text:
        try:
            moment = datetime.fromisoformat(text.removesuffix("Z") + "+00:00")
        except ValueError:
            raise ShellError(f"invalid time {text!r}") from None
        return moment.timestamp() - origin
    try:
        if text.count(":") == 1:
            hours, minutes = text.split(":")
            if not (hours.isdecimal() and minutes.isdecimal()):
                raise DurationError(text)
            seconds = float(int(hours) * 3600 + int(minutes) * 60)
        else:
            seconds = parse_duration(text)
    except DurationError:
        raise ShellError(f"invalid time {text!r}") from None
    if math.isinf(seconds):
        raise ShellError(f"invalid time {text!r}")
    return seconds


# --- the shell ---------------------------------------------------------------------------------


def split(line: str) -> list[str]:
    """A line's words, as a POSIX shell splits them (``#`` starts a comment)."""
    try:
        return shlex.split(line, comments=True)
    except ValueError as error:
        raise ShellError(str(error)) from None


@dataclass
class Shell:
    """Who acts, where and with what environment: the state the words change. ``home`` is
    where a bare ``cd`` goes and what ``~`` stands for."""

    user: str = "root"
    cwd: str = "/root"
    home: str = "/root"
    env: dict[str, str] = field(default_factory=dict)

    def read(
        self, words: list[str], stdin: str | None = None, *, origin: float, now: float
    ) -> Request:
        """The request of one line's ``words`` (``stdin``: its here-document, or what a front
        end passes as the command's input), changing this shell's state for ``as``, ``cd``,
        ``export``, ``unset``. ``origin`` (epoch second of simulated 0) reads ``@`` dates;
        ``now`` refuses an ``@`` in the past. Raises :class:`ShellError`."""
        head, rest = words[0], words[1:]
        if head == "@" and len(rest) == 1:
            target = parse_at(rest[0], origin)
            if target < now:
                raise ShellError(f"{rest[0]} is before the current time")
            return RunUntil(target)
        if head == "sleep" and len(rest) == 1:
            return Advance(parse_sleep(rest[0]))
        if head == "wait":
            if rest:
                raise ShellError(
                    "wait takes no argument: it runs until nothing is left to happen "
                    "(sleep N advances N seconds, @ TIME runs to a time)"
                )
            return RunUntil(math.inf)
        if head == "as" and len(rest) == 1:
            self.user = rest[0]
            return SwitchUser(rest[0])
        if head == "as" and len(rest) > 1:
            return self._execute(rest[1:], rest[0], stdin)
        if head == "cd" and len(rest) <= 1:
            self.cwd = self.path(rest[0] if rest else "~")
            return ShellChanged()
        if head == "export" and rest:
            for item in rest:
                key, eq, value = item.partition("=")
                if not eq:
                    raise ShellError(f"export needs NAME=value, got {item!r}")
                self.env[key] = value
            return ShellChanged()
        if head == "unset" and rest:
            for key in rest:
                self.env.pop(key, None)
            return ShellChanged()
        if head == "cat" and len(rest) == 2 and rest[0] == ">" and stdin is not None:
            return WriteFile(self.path(rest[1]), stdin)
        return self._execute(words, self.user, stdin)

    def path(self, text: str) -> str:
        """``text`` as an absolute, normalised path (``~`` is the home)."""
        if text == "~" or text.startswith("~/"):
            text = self.home + text[1:]
        return posixpath.normpath(posixpath.join(self.cwd, text))

    def _execute(self, argv: list[str], user: str, stdin: str | None) -> Execute:
        return Execute(tuple(argv), user, self.cwd, dict(self.env), stdin)


@dataclass(frozen=True, slots=True)
class ConsoleLine:
    """One console line read: its request (None: nothing to do, or ``refused``), who the
    transcript shows typing it, what it shows after the prompt, and the result of a line the
    interpreter refused (a console shows it as the command's error)."""

    request: Request | None
    user: str
    shown: str
    refused: CommandResult | None = None

    @property
    def shown_in_transcript(self) -> bool:
        """Whether a transcript shows the line: not a blank one, nor ``as NAME``."""
        return self.refused is not None or (
            self.request is not None and not isinstance(self.request, SwitchUser)
        )


def strip_as(words: list[str], line: str) -> tuple[str | None, list[str], str]:
    """``as NAME COMMAND...``: NAME, the command's words and its text (what a transcript shows
    NAME typing); any other line: None, its words and text."""
    if len(words) > 2 and words[0] == "as":
        return words[1], words[2:], line.split(None, 2)[2]
    return None, words, line


def read_console(
    shell: Shell,
    line: str,
    user: str | None = None,
    stdin: str | None = None,
    *,
    origin: float,
    now: float,
) -> ConsoleLine:
    """A console line (or one sent by a program): as :meth:`Shell.read`, with ``user``
    running a Slurm command instead of the shell's user (``as NAME COMMAND`` too), and an
    error as the result a shell would give rather than an exception."""
    try:
        words = split(line)
    except ShellError as error:
        return ConsoleLine(
            None, user or shell.user, line, CommandResult("", f"batchlab: {error}\n", 2)
        )
    if not words:
        return ConsoleLine(None, user or shell.user, line)
    named, words, line = strip_as(words, line)
    user = named or user
    try:
        request = shell.read(words, stdin, origin=origin, now=now)
    except ShellError as error:
        refused = CommandResult("", f"{words[0]}: {error}\n", 1)
        return ConsoleLine(None, user or shell.user, line, refused)
    if isinstance(request, Execute) and user is not None:
        request = dataclasses.replace(request, user=user)
    return ConsoleLine(request, user or shell.user, line)


# --- command files -----------------------------------------------------------------------------

_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2\s*$")


@dataclass(frozen=True, slots=True)
class ScriptLine:
    """One command of a command file: its line number, the line as written (stripped, with its
    here-document marker), its words, and its here-document (body lines and delimiter)."""

    number: int
    shown: str
    words: list[str]
    body: tuple[str, ...] | None = None  # None: no here-document
    delimiter: str = ""

    @property
    def stdin(self) -> str | None:
        return None if self.body is None else "".join(line + "\n" for line in self.body)

    @property
    def command_text(self) -> str:
        """The line without its here-document marker."""
        match = _HEREDOC.search(self.shown)
        return self.shown[: match.start()].rstrip() if match else self.shown


def script_lines(text: str) -> Iterator[ScriptLine]:
    """The commands of a command file's ``text``: blank and comment lines left out,
    here-documents gathered. Raises :class:`ShellError` whose first argument is the message
    and second the line number."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    index = 0
    while index < len(lines):
        number = index + 1
        shown = lines[index].strip()
        index += 1
        if not shown or shown.startswith("#"):
            continue
        line, body, delimiter = shown, None, ""
        heredoc = _HEREDOC.search(shown)
        if heredoc:
            strip_tabs, delimiter = heredoc[1] == "-", heredoc[3]
            line = shown[: heredoc.start()].rstrip()
            gathered: list[str] = []
            while True:
                if index >= len(lines):
                    raise ShellError(f"here-document ended before {delimiter!r}", number)
                content = lines[index]
                index += 1
                if strip_tabs:
                    content = content.lstrip("\t")
                if content == delimiter:
                    break
                gathered.append(content)
            body = tuple(gathered)
        try:
            words = split(line)
        except ShellError as error:
            raise ShellError(str(error), number) from None
        if words:
            yield ScriptLine(number, shown, words, body, delimiter)


# --- transcripts -------------------------------------------------------------------------------


def prompt(user: str) -> str:
    """The prompt a transcript shows before a command: ``$`` for root, ``alice$`` else."""
    return "$" if user == "root" else f"{user}$"


def heredoc_echo(body: tuple[str, ...], delimiter: str) -> str:
    """A here-document as a transcript shows it after its command line."""
    return "".join(f"> {line}\n" for line in body) + f"> {delimiter}\n"


def outcome(result: CommandResult) -> str:
    """What a command printed and its status, as a transcript shows them after its line."""
    text = f"{result.stdout}{result.stderr}"
    return text + f"[exit {result.exit_code}]\n" if result.exit_code else text


def transcript_entry(user: str, line: str, result: CommandResult, stdin: str | None = None) -> str:
    """A console line and its outcome as ``batchlab run`` prints them: the prompt and line (a
    ``stdin`` as the here-document that would give it), stdout, stderr, ``[exit N]``."""
    text = f"{prompt(user)} {line.strip()}"
    if stdin is not None:
        text += " <<'EOF'\n" + heredoc_echo(tuple(stdin.splitlines()), "EOF").removesuffix("\n")
    return f"{text}\n{outcome(result)}"
