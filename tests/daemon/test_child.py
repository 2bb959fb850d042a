"""A window's own daemon (:mod:`emulator.child`): what ``batchlab gui --platform/--workload/
--commands/--demo`` runs its emulator in. It must emulate what the in-process session would,
tell why it cannot start in the loader's words, and never outlive its window."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emulator.child import ChildDaemon, ChildError, Feed, open_child
from emulator.model.platform_file import load_platform
from emulator.session import DEMO_PLATFORM, demo_session, open_session
from resources import platform_path
from tests.daemon.helpers import LAB, REPO

SWF = "; MaxProcs: 16\n" + "".join(  # 20 jobs of 1-4 processors, 10 s apart
    f"{job} {10 * job} -1 {100 + 7 * job} {1 + job % 4} -1 -1 {1 + job % 4} 400"
    " -1 1 1 1 1 1 1 -1 -1\n"
    for job in range(1, 21)
)


def test_the_demo_in_a_child_is_the_in_process_demo() -> None:
    remote = open_child(platform_path(DEMO_PLATFORM), "easy", Feed(demo=True))
    try:
        local = demo_session("easy")
        assert remote.platform == local.platform
        assert list(remote.transcript) == list(local.transcript)  # the demo's sbatch lines
        assert remote.transcript_count == 3
        reached = remote.reach({"action": "until", "value": 5400.0}, "@ 5400")
        assert reached.wait(60)
        local.run_until(5400.0)
        ours, theirs = remote.snapshot(), local.snapshot()
        assert remote.now == local.now == 5400.0
        assert ours.jobs.label == theirs.jobs.label and ours.jobs.where == theirs.jobs.where
        for mine, yours in zip(ours.clusters, theirs.clusters, strict=True):
            assert mine.job.tolist() == yours.job.tolist()
    finally:
        remote.close()


def test_a_child_saves_the_results_the_in_process_session_saves(tmp_path: Path) -> None:
    trace = tmp_path / "small.swf"
    trace.write_text(SWF)
    remote = open_child(LAB, "cbf", Feed(workload=trace))
    try:
        assert remote.reach({"action": "idle"}, "wait").wait(60)
        remote.save_results(tmp_path / "child")
    finally:
        remote.close()
    local = open_session(load_platform(LAB), "cbf", workload=trace)
    local.run_until(math.inf)
    local.save_results(tmp_path / "here")
    for name in ("jobs.csv", "summary.json"):
        assert (tmp_path / "child" / name).read_text() == (tmp_path / "here" / name).read_text()
    assert json.loads((tmp_path / "child" / "summary.json").read_text())["jobs"] == 20


def test_a_command_file_runs_in_the_child_and_shows_in_its_transcript(tmp_path: Path) -> None:
    commands = tmp_path / "lesson.txt"
    commands.write_text('sbatch -J first -n 2 -t 5 --wrap "sleep 60"\nsqueue\n')
    remote = open_child(LAB, "fcfs", Feed(commands=commands))
    try:
        shown = "".join(remote.transcript)
        assert "Submitted batch job 1" in shown and "first" in shown
        assert remote.snapshot().jobs.label == ("1",)
    finally:
        remote.close()


@pytest.mark.parametrize(
    ("feed", "said"),
    [
        (Feed(workload=Path("/nonexistent/trace.swf")), "no such workload file"),
        (Feed(commands=Path("/nonexistent/lesson.txt")), "no such command file"),
    ],
)
def test_a_child_that_cannot_start_says_why_and_leaves_nothing(feed: Feed, said: str) -> None:
    child = ChildDaemon(LAB, "easy", feed)
    with pytest.raises(ChildError, match=said):
        child.wait_ready()
    assert child.process.poll() is not None and not child.directory.exists()


def test_a_bad_trace_line_is_named_by_the_child(tmp_path: Path) -> None:
    trace = tmp_path / "bad.swf"
    trace.write_text(SWF + "21 900 -1 abc 1\n")
    with pytest.raises(ChildError, match=r"bad\.swf:22: expected 18 fields"):
        open_child(LAB, "easy", Feed(workload=trace))


def test_closing_stops_the_child_and_removes_its_directory() -> None:
    remote = open_child(LAB, "easy")
    child = remote.child
    assert child.process.poll() is None and child.socket.exists()
    remote.close()
    assert child.process.poll() == 0  # SIGTERM: a clean stop
    assert not child.directory.exists()
    remote.close()  # again: nothing to do


def test_the_child_stops_when_its_window_s_process_dies() -> None:
    """A window killed outright (no close) must not leave its emulator running."""
    program = (
        "import os, sys; from pathlib import Path; from emulator.child import ChildDaemon; "
        f"child = ChildDaemon(Path({str(LAB)!r}), 'easy'); child.wait_ready(); "
        "print(child.process.pid, child.directory, flush=True); os._exit(0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    pid_text, directory = done.stdout.split()
    pid = int(pid_text)
    for _ in range(200):  # up to 10 s
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "Z":  # exited, and reaped by nobody yet
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail("the child daemon outlived its parent")
    Path(directory, "socket").unlink(missing_ok=True)
