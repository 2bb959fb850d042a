"""The interpreter of the console and command-file words (:mod:`emulator.shell`): what each word
requests and how it changes the shell, independent of any front end."""

from __future__ import annotations

import math

import pytest

from emulator.shell import (
    Advance,
    Execute,
    Request,
    RunUntil,
    Shell,
    ShellChanged,
    ShellError,
    SwitchUser,
    WriteFile,
    parse_sleep,
    read_console,
    script_lines,
    split,
    transcript_entry,
)
from emulator.slurmctld.controller import CommandResult

ORIGIN = 1_800_000_000.0


def read(shell: Shell, line: str, stdin: str | None = None, now: float = 0.0) -> Request:
    return shell.read(split(line), stdin, origin=ORIGIN, now=now)


def test_time_words() -> None:
    shell = Shell()
    assert read(shell, "sleep 90") == Advance(90.0)
    assert read(shell, "sleep 1.5m") == Advance(90.0)
    assert read(shell, "sleep 1:30") == Advance(90.0)  # Slurm's M:S
    assert read(shell, "sleep 1w") == Advance(604800.0)
    assert read(shell, "@ 03:50") == RunUntil(13800.0)  # a clock time: 3 h 50 min
    assert read(shell, "@ 1-00:00:00") == RunUntil(86400.0)
    assert read(shell, "@ 90") == RunUntil(5400.0)  # a bare number: Slurm's minutes
    assert read(shell, "wait") == RunUntil(math.inf)
    with pytest.raises(ShellError, match="before the current time"):
        read(shell, "@ 00:10", now=3600.0)
    for word in ("sleep soon", "sleep -1", "sleep UNLIMITED"):
        with pytest.raises(ShellError, match="invalid duration"):
            read(shell, word)
    with pytest.raises(ShellError, match="invalid time 'UNLIMITED'"):
        read(shell, "@ UNLIMITED")
    assert parse_sleep("2H") == 7200.0


def test_shell_words_change_the_shell_and_what_commands_get() -> None:
    shell = Shell(user="root", cwd="/root", home="/root")
    assert read(shell, "cd /work/../data") == ShellChanged() and shell.cwd == "/data"
    assert read(shell, "cd lab") == ShellChanged() and shell.cwd == "/data/lab"
    assert read(shell, "cd ~/x") == ShellChanged() and shell.cwd == "/root/x"
    assert read(shell, "cd") == ShellChanged() and shell.cwd == "/root"
    assert read(shell, "export A=1 B=two") == ShellChanged()
    assert read(shell, "unset A") == ShellChanged() and shell.env == {"B": "two"}
    with pytest.raises(ShellError, match="export needs NAME=value, got 'C'"):
        read(shell, "export C")
    assert read(shell, "as alice") == SwitchUser("alice") and shell.user == "alice"
    assert read(shell, "squeue -u bob") == Execute(
        ("squeue", "-u", "bob"), "alice", "/root", {"B": "two"}, None
    )
    once = read(shell, "as bob sbatch job.sh")
    assert isinstance(once, Execute) and once.user == "bob"
    assert shell.user == "alice"  # one command only
    assert read(shell, "cat > job.sh", stdin="#!/bin/sh\n") == WriteFile(
        "/root/job.sh", "#!/bin/sh\n"
    )


def test_console_lines_refuse_as_a_shell_would() -> None:
    shell = Shell()
    line = read_console(shell, "sleep soon", origin=ORIGIN, now=0.0)
    assert line.request is None and line.shown_in_transcript
    assert line.refused == CommandResult("", "sleep: invalid duration 'soon'\n", 1)
    quoted = read_console(shell, "sbatch --wrap 'true", origin=ORIGIN, now=0.0)
    assert quoted.refused is not None and quoted.refused.exit_code == 2
    assert not read_console(shell, "   ", origin=ORIGIN, now=0.0).shown_in_transcript
    assert not read_console(shell, "as carol", origin=ORIGIN, now=0.0).shown_in_transcript
    mine = read_console(shell, "as dave squeue", "erin", origin=ORIGIN, now=0.0)
    assert mine.user == "dave" and mine.shown == "squeue"
    entry = transcript_entry("dave", "sbatch", CommandResult("x\n", "", 1), stdin="a\nb\n")
    assert entry == "dave$ sbatch <<'EOF'\n> a\n> b\n> EOF\nx\n[exit 1]\n"


def test_script_lines_gather_here_documents() -> None:
    text = "# c\n\nsbatch <<-'END'\n\t#!/bin/sh\n\tsleep 5\nEND\nsqueue # mine\n"
    first, second = script_lines(text)
    assert (first.number, first.words, first.stdin) == (3, ["sbatch"], "#!/bin/sh\nsleep 5\n")
    assert first.command_text == "sbatch"
    assert (second.number, second.words, second.body) == (7, ["squeue"], None)
    with pytest.raises(ShellError) as error:
        list(script_lines("squeue\nsbatch <<EOF\n#!/bin/sh\n"))
    assert error.value.line == 2 and "here-document ended before 'EOF'" in str(error.value)
