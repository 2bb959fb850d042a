"""The console and command-file words mean the same everywhere (issue 17): the same text given
to ``batchlab run`` (:class:`~emulator.commandfile.CommandFile`), to an in-process session's
console (:meth:`Session.command <emulator.session.Session.command>`) and to a window's console
over its own daemon (:meth:`RemoteSession.command <emulator.remote.RemoteSession.command>`, the
path ``batchlab gui`` takes) lands at the same times and prints the same."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from emulator.child import Feed, open_child
from emulator.commandfile import CommandFile
from emulator.model.platform_file import load_platform
from emulator.remote import RemoteSession
from emulator.session import Session
from emulator.shell import ShellError, parse_at
from emulator.slurmctld.controller import DEFAULT_ORIGIN, CommandResult, Controller
from resources import platform_path

LAB = platform_path("lab")
# 4 h after the origin, as a date: @ with a date must work everywhere
FOUR_HOURS = datetime.fromtimestamp(DEFAULT_ORIGIN + 4 * 3600, UTC).strftime("%Y-%m-%dT%H:%M:%S")
LESSON = f"""\
cd /tmp
@ 00:00:10
sbatch -n 2 -t 5 -J first --wrap "sleep 60"
export SBATCH_TIMELIMIT=30
as alice
sbatch -n 4 -J second --wrap "sleep 600"
sleep 5
squeue
sleep 1:30
squeue -t all -o "%i %j %u %t %M %l"
@ 03:50
sinfo
as bob sbatch -n 8 -t 60 -J third --wrap "sleep 3000"
unset SBATCH_TIMELIMIT
@ {FOUR_HOURS}
squeue -o "%i %j %u %t %S"
wait
sacct -X -o JobID,JobName,User,State,Elapsed
"""
# the simulated time after each line of LESSON
TIMES = [0, 10, 10, 10, 10, 10, 15, 15, 105, 105, 13800, 13800, 13800, 13800, 14400, 14400]


@pytest.fixture
def remote() -> Iterator[RemoteSession]:
    session = open_child(LAB, "easy", Feed())
    yield session
    session.close()


def test_every_front_end_runs_the_same_text_at_the_same_times(remote: RemoteSession) -> None:
    user = remote.user  # the daemon's commands run as the connecting user: so do the others
    lines = LESSON.splitlines()
    runner = CommandFile(Controller(load_platform(LAB), "easy"), "lesson.txt")
    runner.shell.user = user
    expected = runner.run(LESSON)
    local = Session(load_platform(LAB), "easy", user=user)
    assert remote.origin == local.origin == DEFAULT_ORIGIN
    ran: dict[str, list[CommandResult]] = {"local": [], "remote": []}
    times: dict[str, list[float]] = {"local": [], "remote": []}
    for line in lines:
        ran["local"].append(local.command(line))
        ran["remote"].append(remote.command(line))
        if line.split()[0] in ("sleep", "@", "wait"):
            assert remote.wait_for_clock(), line
        times["local"].append(local.now)
        times["remote"].append(remote.now)
    waited = times["local"][-1]  # wait: until the last job ended
    assert times["local"] == times["remote"] == [*TIMES, waited, waited]
    assert waited > TIMES[-1]
    assert [step.time for step in runner.steps] == [
        t for line, t in zip(lines, [0.0, *times["local"]], strict=False) if _is_slurm(line)
    ]
    assert ran["local"] == ran["remote"]
    assert [step.result for step in runner.steps] == [
        result for line, result in zip(lines, ran["local"], strict=True) if _is_slurm(line)
    ]
    assert "".join(local.transcript) == "".join(remote.transcript) == expected
    assert "alice" in expected and "bob$ sbatch" in expected and "COMPLETED" in expected


def _is_slurm(line: str) -> bool:
    words = line.split()
    shell = words[0] in ("cd", "@", "sleep", "wait", "export", "unset")
    return not shell and not (words[0] == "as" and len(words) == 2)


def test_at_reads_a_clock_time_as_hours_and_minutes_everywhere(remote: RemoteSession) -> None:
    """``@ 03:50`` is 3 h 50 min (13,800 s) in every front end, not Slurm's ``M:S``; ``@`` with
    a date works everywhere."""
    assert parse_at("03:50", DEFAULT_ORIGIN) == 13800.0
    assert parse_at("03:50:00", DEFAULT_ORIGIN) == 13800.0
    assert parse_at(FOUR_HOURS, DEFAULT_ORIGIN) == parse_at(FOUR_HOURS + "Z", DEFAULT_ORIGIN)
    assert parse_at(FOUR_HOURS, DEFAULT_ORIGIN) == 14400.0
    with pytest.raises(ShellError, match="invalid time 'soon'"):
        parse_at("soon", DEFAULT_ORIGIN)
    runner = CommandFile(Controller(load_platform(LAB), "easy"))
    runner.run("@ 03:50\n")
    local = Session(load_platform(LAB), "easy")
    local.command("@ 03:50")
    remote.command("@ 03:50")
    assert remote.wait_for_clock()
    assert runner.controller.now == local.now == remote.now == 13800.0
    for front in (local, remote):
        refused = front.command("@ 00:10")
        assert refused == CommandResult("", "@: 00:10 is before the current time\n", 1)
        assert front.command("@ soon") == CommandResult("", "@: invalid time 'soon'\n", 1)
    for front in (local, remote):
        assert front.command(f"@ {FOUR_HOURS}") == CommandResult()
    assert remote.wait_for_clock()
    assert local.now == remote.now == 14400.0
