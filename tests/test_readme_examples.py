"""The README's examples as a newcomer types them, from a directory that is not the repository
(issue 24 item 3): each ``batchlab`` replay, run and schedulers line of the README's and the
package description's bash blocks runs there without an error, and the README's Slurm session
prints what the README shows. (``gui``, ``daemon`` and ``sweep`` have tests of their own.)
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DESCRIPTION = ROOT / "docs" / "package-description.md"
RUN_HERE = ("schedulers", "replay", "run")  # quick, and they need no daemon


def fenced(path: Path, language: str) -> list[list[str]]:
    """The lines of each ```language block of ``path``."""
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(rf"^```{language}\n(.*?)^```", text, re.M | re.S)
    return [block.splitlines() for block in blocks]


def batchlab_lines(path: Path) -> list[str]:
    return [
        line
        for block in fenced(path, "bash")
        for line in block
        if line.startswith("batchlab ") and shlex.split(line, comments=True)[1] in RUN_HERE
    ]


EXAMPLES = sorted(set(batchlab_lines(README) + batchlab_lines(DESCRIPTION)))


def test_the_examples_are_found() -> None:
    """The oracle below sees the README's replays and command files, and the description's."""
    assert {
        "batchlab replay kth-sp2-first-2000 --platform kth-sp2 --out out/kth-easy",
        "batchlab run teaching-scenario       # resources/commands/teaching-scenario.txt, by name",
    } <= set(EXAMPLES)
    assert any("run --help" in line for line in EXAMPLES)


@pytest.mark.parametrize("line", EXAMPLES)
def test_an_example_runs_from_another_directory(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        code = main(shlex.split(line, comments=True)[1:])
    except SystemExit as done:  # --help
        code = int(done.code or 0)
    err = capsys.readouterr().err
    assert (code, err) == (0, "")


# --- the Slurm session ---------------------------------------------------------------------------
def session() -> list[tuple[str, list[str]]]:
    """The README's console block: each ``$ command`` with the lines it shows after it."""
    (block,) = fenced(README, "console")
    steps: list[tuple[str, list[str]]] = []
    for line in block:
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


@pytest.fixture
def private_daemon_place() -> Iterator[dict[str, str]]:
    """A socket and a state directory of the test's own (a socket path must be short)."""
    place = Path(tempfile.mkdtemp(prefix="bl-", dir="/tmp"))
    env = {**os.environ, "BATCHLAB_SOCKET": str(place / "s"), "XDG_STATE_HOME": str(place)}
    yield env
    pid_file = place / "batchlab" / "daemon.pid"
    if pid_file.exists():  # a failed step must not leave the daemon running
        with contextlib.suppress(ValueError, ProcessLookupError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
    shutil.rmtree(place, ignore_errors=True)


def words(lines: list[str]) -> list[list[str]]:
    """Lines as their words: columns line up differently for a user name other than root."""
    user = getpass.getuser()
    return [[user if word == "root" else word for word in line.split()] for line in lines]


@pytest.mark.slow  # eight commands, each a new process
def test_the_readme_session_prints_what_the_readme_shows(
    private_daemon_place: dict[str, str], tmp_path: Path
) -> None:
    steps = session()
    assert steps[0][0].split()[:3] == ["batchlab", "daemon", "start"]
    assert steps[-1][0] == "batchlab daemon stop"
    for command, shown in steps:
        argv = shlex.split(command, comments=True)
        done = subprocess.run(
            [sys.executable, "-m", "emulator.cli", *argv[1:]],
            capture_output=True,
            text=True,
            env=private_daemon_place,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        assert (done.returncode, done.stderr) == (0, ""), command
        if shown:  # (the README leaves out what daemon start and stop print)
            assert words(done.stdout.splitlines()) == words(shown), command


# --- docs/experiments/oas.md: the shipped 8-job batch ------------------------------------------
def test_the_shipped_oas_batch_is_our_eight_jobs() -> None:
    """``oas-eight`` is EIGHT_JOBS (PTBW in Mbit/s there, Gbit/s as oas-testbed's links)."""
    from resources import workload_path
    from solvers.oas.paper import EIGHT_JOBS
    from workloads.bsp_csv import read_bsp_csv

    shipped = [
        (job.job_id, job.submit, job.request.tasks, job.request.communication)
        for job in read_bsp_csv(workload_path("oas-eight"))
    ]
    assert [(i, at, tasks, c.base_time, c.sigma, c.task_bw) for i, at, tasks, c in shipped] == [
        (job.id, 0, job.tasks, job.base_time, job.sigma, job.task_bw / 1000) for job in EIGHT_JOBS
    ]


@pytest.mark.slow  # one MIP solve
def test_the_oas_write_up_example_ends_where_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/experiments/oas.md: ``batchlab replay oas-eight --platform oas-testbed -s oas -o out``
    "carried out in continuous time (the default) it ends at 650.0 s"."""
    (line,) = [
        line
        for block in fenced(ROOT / "docs" / "experiments" / "oas.md", "")
        for line in block
        if line.startswith("batchlab replay oas-eight")
    ]
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(line, comments=True)[1:]) == 0
    assert capsys.readouterr().err == ""
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["makespan"] == pytest.approx(650.0)
