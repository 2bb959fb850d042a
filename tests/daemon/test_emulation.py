"""The controller the daemon serves (:mod:`emulator.daemon.emulation`) and what it is fed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.emulation import Emulation, Feed, file_digest, open_emulation
from emulator.daemon.server import StartError
from tests.daemon.helpers import LAB


def _emulation(state_dir: Path) -> Emulation:
    state_dir.mkdir(exist_ok=True)
    return open_emulation(LAB, "easy", state_dir, Feed())


def _run(emulation: Emulation, *argv: str) -> str:
    stdout, _, _ = emulation.run(list(argv), user="a", env={}, stdin=None, cwd="/", script=None)
    return stdout


def _session(emulation: Emulation, steps: list[float]) -> str:
    for minutes in (3, 1, 8, 2, 5, 1):
        _run(emulation, "sbatch", "--wrap", "x", "-t", str(minutes), "-N", "2")
    for t in steps:
        emulation.advance(t)
    _run(emulation, "scancel", "5")
    emulation.advance(2000.0)
    return _run(emulation, "sacct", "-X", "-o", "jobid,state,start,end")


def test_the_controller_is_split_invariant(tmp_path: Path) -> None:
    one = _session(_emulation(tmp_path / "one"), [600.0])
    many = _session(_emulation(tmp_path / "many"), [0.0, 0.0, 59.5, 60.0, 300.0, 600.0])
    assert one == many
    assert "COMPLETED" in one


def test_next_event_and_same_instant_events(tmp_path: Path) -> None:
    emulation = _emulation(tmp_path)
    assert emulation.next_event() == float("inf")
    _run(emulation, "sbatch", "--wrap", "x", "-t", "1")
    assert emulation.next_event() == 0.0  # the arrival waits for the clock to move
    emulation.advance(0.0)
    assert emulation.next_event() > 0.0
    assert _run(emulation, "squeue", "-h", "-o", "%i %t") == "1 R\n"


def test_a_feed_is_recorded_with_its_files_digests(tmp_path: Path) -> None:
    commands = tmp_path / "lesson.txt"
    commands.write_text("sbatch -n 2 -t 5 --wrap x\n")
    feed = Feed(commands=commands)
    assert Feed.recorded(feed.record()) == feed
    assert feed.record()["commands_sha256"] == file_digest(commands)
    assert Feed.recorded(None) == Feed() and Feed().describe() == "none"
    assert feed.describe() == f"commands {commands}"
    emulation = open_emulation(LAB, "fcfs", tmp_path, feed)
    assert "Submitted batch job 1" in "".join(emulation.transcript)


def test_status_shows_the_scheduler_switched_at_runtime(make_daemon: Any) -> None:
    running = make_daemon()
    assert running.call("status")["scheduler"] == "backfill"
    assert running.run("scontrol", "update", "scheduler=coalloc:order=sjf")["exit_code"] == 0
    assert running.call("status")["scheduler"] == "coalloc:order=sjf+fcfs"  # with its local policy


def test_a_fed_daemon_recovers_its_feed_and_refuses_a_changed_file(
    make_daemon: Any, short_dir: Path
) -> None:
    commands = short_dir / "lesson.txt"
    commands.write_text('sbatch -J first -n 2 -t 5 --wrap "sleep 60"\n')
    running = make_daemon(feed=Feed(commands=commands))
    assert running.call("transcript")["lines"][0].startswith("$ sbatch -J first")
    running.run("sbatch", "-J", "second", "--wrap", "x")
    running.stop()
    again = make_daemon()  # the feed comes from the journal's header
    assert again.call("status")["feed"] == f"commands {commands}"
    names = again.run("squeue", "-h", "-o", "%i %j")["stdout"]
    assert names == "1 first\n2 second\n"
    again.stop()
    with pytest.raises(StartError, match="another setup: feed workload"):
        make_daemon(feed=Feed(workload=commands))
    commands.write_text("sbatch --wrap y\n")
    with pytest.raises(StartError, match=r"lesson\.txt changed since the journal began"):
        make_daemon()


def test_the_demo_brings_its_own_platform(make_daemon: Any) -> None:
    with pytest.raises(StartError, match="--demo brings its own platform"):
        make_daemon(feed=Feed(demo=True))  # on the lab platform
    running = make_daemon(platform=None, feed=Feed(demo=True))
    assert running.call("status")["feed"] == "demo"
    assert len(running.call("transcript")["lines"]) == 3  # the demo's sbatch lines
