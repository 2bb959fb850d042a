"""Replaying the Slurm sample scenario and comparing with the captures (times masked)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from emulator.commandfile import CommandFile, Step
from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path("/work/shared/reference/slurm-samples")
SCENARIO = ROOT / "resources/commands/slurm-sample-scenario.txt"
# The samples' slurmctld started at 01:35:48 (BOOT_TIME in their ``scontrol show config``), long
# before the first command: its backfill cycles ran 30 s apart from there.
SCHEDULER = "backfill:controller_start=5748"
_NOBODY = "runuser -u nobody -- "


@dataclass(frozen=True)
class Capture:
    name: str  # the sample's file name without .txt
    command: str
    user: str
    stdout: str
    stderr: str
    exit_code: int


def captures() -> list[Capture]:
    """The captured commands in order (raw bytes), as root or as nobody."""
    result = []
    log = (SAMPLES / "raw/_capture-log.tsv").read_text().splitlines()
    for line in log:
        _, filename, _, command = line.split("\t", 3)
        name = filename.removesuffix(".txt")
        user = "root"
        if command.startswith(_NOBODY):
            command, user = command[len(_NOBODY) :], "nobody"
        raw = SAMPLES / "raw" / name
        result.append(
            Capture(
                name,
                command,
                user,
                (raw.with_suffix(".stdout")).read_text(),
                (raw.with_suffix(".stderr")).read_text(),
                int((raw.with_suffix(".exit")).read_text().strip()),
            )
        )
    return result


def replay() -> list[Step]:
    controller = Controller(load_platform(ROOT / "resources/platforms/lab.toml"), SCHEDULER)
    session = CommandFile(controller, name=SCENARIO.name)
    session.run(SCENARIO.read_text())
    return session.steps


def pair(steps: list[Step], wanted: list[Capture]) -> dict[str, Step]:
    """Each capture's step: the next one run with the same command line and user."""
    paired: dict[str, Step] = {}
    position = 0
    for capture in wanted:
        for index in range(position, len(steps)):
            step = steps[index]
            if step.text == capture.command and step.user == capture.user:
                paired[capture.name] = step
                position = index + 1
                break
    return paired


_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
_CTIME = re.compile(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (UTC )?\d{4}$", re.M)
_CLOCK = re.compile(r" *\b(\d+-)?\d+:\d\d:\d\d\b")
_SHORT_CLOCK = re.compile(r" *\b\d+:\d\d\b")
_SID = re.compile(r"AllocNode:Sid=(\S+):\d+")
_EXPLANATION = re.compile(r"(\n   | )Explanation=[^\n]*")  # batchlab's addition to show job


def mask(text: str, command: str) -> str:
    """Blank what is the machine's or the moment's: timestamps, elapsed times, session ids."""
    text = _EXPLANATION.sub("", text)
    text = _CTIME.sub("<ctime>", text)
    text = _ISO.sub("<timestamp>", text)
    text = _SID.sub(r"AllocNode:Sid=\1:<sid>", text)
    text = _CLOCK.sub(" <time>", text)
    if command.startswith("squeue"):
        text = _SHORT_CLOCK.sub(" <time>", text)
    return text
