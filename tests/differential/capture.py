"""Capture real Slurm's outputs for the differential scenarios (tests/differential/scenarios/).

Run as root on a machine where ``/work/shared/reference/slurm-lab/up.sh`` has brought up the
4-node Slurm 22.05.8 cluster ``lab`` (or set ``SLURM_LAB`` to that folder)::

    .venv/bin/python -m tests.differential.capture [SCENARIO ...]   # default: all of them

For each scenario it runs ``reset.sh`` (job ids start again at 1), then reads the file with the
same interpreter as ``batchlab run`` (:class:`emulator.shell.Shell`), so a word means the same on
both sides. A Slurm command runs as the samples' were captured: ``bash -c`` in a clean
environment (``lab.env`` plus the scenario's ``export``s), in the scenario's directory, stdout to
a pipe, ``runuser -u USER`` for ``as USER``. ``sleep N`` waits until N more seconds of the
scenario have passed since its start, so the time a command spends does not push the rest later
and the capture's clock is the one batchlab's replay uses. ``@`` and ``wait`` are refused: real
time has no origin to run to. The outputs go to ``tests/differential/golden/NAME.json``, with
each command's exact stdout, stderr and exit status.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from emulator.shell import Advance, Execute, Shell, script_lines, strip_as

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
GOLDEN = HERE / "golden"
LAB = Path(os.environ.get("SLURM_LAB", "/work/shared/reference/slurm-lab"))
LAB_DIR = Path(os.environ.get("LAB_DIR", "/var/spool/lab"))


@dataclass(frozen=True)
class Captured:
    """One Slurm command of a scenario and what real Slurm answered."""

    line: int  # in the scenario file
    command: str  # as written, without ``as USER``
    user: str
    at: float  # seconds since the scenario started (the wall clock's)
    stdout: str
    stderr: str
    exit: int


def lab_environment() -> dict[str, str]:
    """The clean environment of the samples' captures (``$LAB_DIR/lab.env``)."""
    text = (LAB_DIR / "lab.env").read_text()
    return dict(item.split("=", 1) for item in shlex.split(text))


def run_command(request: Execute, command: str, base_env: dict[str, str]) -> tuple[str, str, int]:
    argv = ["bash", "-c", command]
    if request.user != "root":
        argv = ["runuser", "-u", request.user, "--", *argv]
    done = subprocess.run(
        argv,
        input=(request.stdin or "").encode(),
        capture_output=True,
        cwd=request.cwd,
        env={**base_env, **request.env},
        check=False,
    )
    return done.stdout.decode(), done.stderr.decode(), done.returncode


def capture(name: str) -> list[Captured]:
    """Run scenario ``name`` against the lab's real Slurm; its commands and their outputs."""
    subprocess.run([str(LAB / "reset.sh")], check=True, stdout=subprocess.DEVNULL)
    base_env = lab_environment()
    shell = Shell()
    start = time.monotonic()
    due = 0.0  # the scenario's time: the sum of its sleeps
    result: list[Captured] = []
    for line in script_lines((SCENARIOS / f"{name}.txt").read_text()):
        request = shell.read(line.words, line.stdin, origin=0.0, now=due)
        if isinstance(request, Advance):
            due += request.seconds
            time.sleep(max(0.0, start + due - time.monotonic()))
        elif isinstance(request, Execute):
            command = strip_as(line.words, line.command_text)[2]
            at = time.monotonic() - start
            stdout, stderr, code = run_command(request, command, base_env)
            result.append(
                Captured(line.number, command, request.user, round(at, 2), stdout, stderr, code)
            )
        elif line.words[0] in ("@", "wait"):
            sys.exit(
                f"{name}.txt:{line.number}: '{line.words[0]}' means nothing in real time; use sleep"
            )
    return result


def main(names: list[str]) -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name in names or sorted(p.stem for p in SCENARIOS.glob("*.txt")):
        steps = capture(name)
        version = subprocess.run(
            ["sinfo", "--version"],
            capture_output=True,
            text=True,
            env=lab_environment(),
            check=False,
        ).stdout.strip()
        record = {"scenario": name, "slurm": version, "steps": [asdict(step) for step in steps]}
        (GOLDEN / f"{name}.json").write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n"
        )
        print(f"{name}: {len(steps)} commands captured", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
