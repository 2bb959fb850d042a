"""``RemoteSession``: a running daemon seen as a session (what ``batchlab gui --socket`` uses),
and the snapshot wire format under it."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest

from emulator.api.registry import SpecError
from emulator.daemon.snapshots import SnapshotFormatError, decode, decode_snapshot, encode
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from emulator.remote import RemoteSession
from emulator.session import Session, Snapshot, demo_session
from tests.daemon.helpers import LAB, FakeWall

DEFAULT_SCHEDULER = "backfill"  # the lab platform's own (its file names it)


def same(left: Any, right: Any, path: str = "snapshot") -> None:
    """Field by field equality of two snapshots (arrays by value and dtype; the version and
    the nodelist memo aside)."""
    if isinstance(left, np.ndarray):
        assert left.dtype == right.dtype and np.array_equal(left, right, equal_nan=True), path
    elif dataclasses.is_dataclass(left):
        for field in dataclasses.fields(left):
            if field.name not in ("version", "nodelist"):
                same(getattr(left, field.name), getattr(right, field.name), f"{path}.{field.name}")
    elif isinstance(left, tuple) and left and dataclasses.is_dataclass(left[0]):
        assert len(left) == len(right), path
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            same(a, b, f"{path}[{index}]")
    else:
        assert left == right, (path, left, right)


COMMANDS = (
    'sbatch -J hello -n 2 -t 10 --wrap "sleep 300"',
    'sbatch -J held -H -n 1 -t 5 --wrap "sleep 60"',
    'sbatch -J sweep -a 1-3 -n 1 -t 5 --wrap "sleep 120"',
)


def test_the_daemon_s_snapshot_is_the_in_process_one(make_daemon: Any) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    local = Session(load_platform(LAB), DEFAULT_SCHEDULER)
    assert remote.platform == local.platform
    assert remote.user == "root" or remote.operator
    for line in COMMANDS:
        shown = remote.command(line)
        assert shown == local.command(line)
    refused = remote.command("sbatch -t nonsense --wrap x")
    assert refused.exit_code != 0 and refused == local.command("sbatch -t nonsense --wrap x")
    # submitted, the clock not moved yet: pending, reason None, as squeue shows them
    before = remote.snapshot()
    assert before.jobs.label == ("1", "2", "3_1", "3_2", "3_3")
    assert before.jobs.where[0] == "(None)"
    same(before, local.snapshot())
    assert remote.step()  # the daemon's step: every event of the next instant, and its pass
    local.run_until(local.now)
    after = remote.snapshot()
    assert after.version != before.version
    assert after.jobs.state_of(0).value == "R" and after.jobs.where[1] == "(JobHeldUser)"
    assert after.clusters[0].free.tolist() == [0, 3, 4, 4]  # 2 + 3 x 1 cores taken
    same(after, local.snapshot())
    assert remote.transcript_count == len(COMMANDS) + 1
    assert remote.transcript[0].startswith("$ sbatch -J hello") or remote.user != "root"
    assert list(remote.transcript)[-1].endswith(f"[exit {refused.exit_code}]\n")


def test_an_unchanged_snapshot_costs_a_tiny_answer(make_daemon: Any) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    first = remote.snapshot()
    assert remote.snapshot() is first  # within the refresh interval: not even asked
    clock.later()
    assert remote.snapshot() is first  # asked, and the daemon said unchanged
    with running.client() as raw:
        answer = raw.call("snapshot", since=first.version)
        assert answer["unchanged"] and "attachment" not in answer and "snapshot" not in answer
        full = raw.call("snapshot", since=None)
        assert full["snapshot"]["version"] == first.version
        assert isinstance(full["attachment"], bytes) and full["clock"]["paused"]
    # another client's command shows without the clock moving (the daemon is paused)
    running.run("sbatch", "-J", "other", "--wrap", "sleep 60")
    clock.later()
    changed = remote.snapshot()
    assert changed is not first and changed.jobs.name == ("other",)


def test_the_nodes_alone_come_in_a_small_answer_with_the_version_and_clock(
    make_daemon: Any,
) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    local = Session(load_platform(LAB), DEFAULT_SCHEDULER)
    for line in COMMANDS:
        remote.command(line)
        local.command(line)
    assert remote.step()
    local.run_until(local.now)
    fetched = remote.fetches
    clock.later()
    nodes = remote.nodes_snapshot()
    same(nodes, local.nodes_snapshot(), "clusters")
    assert nodes[0].free.tolist() == [0, 3, 4, 4]
    assert (remote.now, remote.idle) == (local.now, local.idle)
    assert remote.fetches == fetched  # the nodes, the version and the clock: no job table
    with running.client() as raw:
        answer = raw.call("snapshot", since=None, nodes=True)
        full = raw.call("snapshot", since=None)
        assert "snapshot" not in answer and answer["nodes"]["version"] == remote.version
        assert len(answer["attachment"]) < len(full["attachment"])
        assert raw.call("snapshot", since=remote.version, nodes=True)["unchanged"]
    assert remote.snapshot().version == remote.version


def test_a_window_s_session_fetches_newer_snapshots_in_the_background(make_daemon: Any) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    remote.fetch_in_background = True
    first = remote.snapshot()
    running.call("clock", action="advance", value=60.0)  # the clock moves: no command here
    clock.later()
    assert remote.now == 0.0  # the nodes asked for, not waited for: the last answer
    remote.wait_in_flight()
    assert remote.now == 60.0 and remote.snapshot() is first  # the last one, at once
    remote.wait_in_flight()
    newer = remote.snapshot()
    assert newer.version == remote.version and newer.now == 60.0
    # after a command of its own, the session asks at once, as without the background
    remote.command('sbatch -J mine -n 1 -t 5 --wrap "sleep 60"')
    assert remote.snapshot().jobs.name == ("mine",)


def test_clock_and_scheduler_requests_steer_the_daemon(make_daemon: Any) -> None:
    running = make_daemon()
    remote = RemoteSession(running.socket)
    assert remote.scheduler == DEFAULT_SCHEDULER and remote.clock["paused"]
    remote.steer("speed", 600.0)
    assert remote.steer("resume")["clock"]["mode"] == "running at 600x"
    assert running.call("clock", action="show")["clock"]["paused"] is False
    remote.steer("pause")
    remote.set_scheduler("cbf")
    assert remote.scheduler == "cbf"
    assert running.call("status")["clock"]["paused"] is True
    with pytest.raises(SpecError):
        remote.set_scheduler("no-such-policy")
    assert remote.scheduler == "cbf"
    remote.step()  # the scheduling pass the switch asked for
    assert not remote.step()  # then nothing is left to happen: the daemon says so


def test_console_words_that_wait_do_not_block(make_daemon: Any) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    submitted = remote.command('sbatch -W -t 5 --wrap "sleep 100\nexit 3"')
    assert submitted.stdout == "Submitted batch job 1\n" and submitted.exit_code == 0
    assert remote.command("squeue -h -o %i").stdout == "1\n"  # served while -W waits
    remote.command("sleep 150")  # a clock request, answered in the background
    ended = "[sbatch -W -t 5 --wrap 'sleep 100\nexit 3': exit 3]\n"
    for _ in range(500):
        clock.later()
        remote.snapshot()  # what the waiting threads reported joins the transcript here
        if ended in remote.transcript:
            break
        running.thread.join(0.01)
    assert list(remote.transcript)[-1] == ended
    assert remote.snapshot().now >= 150


def test_losing_the_daemon_keeps_the_last_picture(make_daemon: Any) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    last = remote.snapshot()
    running.stop()
    clock.later()
    assert remote.snapshot() is last and remote.problem is not None
    assert remote.command("squeue").exit_code == 1


def test_a_window_follows_a_new_daemon_whose_versions_start_again(
    make_daemon: Any, short_dir: Any
) -> None:
    running = make_daemon()
    clock = FakeWall()
    remote = RemoteSession(running.socket, clock=clock)
    remote.fetch_in_background = True
    for line in COMMANDS:
        remote.command(line)
    while remote.step():  # to the last event: a version the new daemon's is below
        pass
    assert len(remote.snapshot().jobs.name) == 5
    old_version = remote.version
    running.stop()
    make_daemon(state_dir=short_dir / "other")  # the same socket, no jobs
    for _ in range(4):  # lose the old one, then ask the new one (each answer taken later)
        clock.later(2.0)
        remote.nodes_snapshot()
        remote.wait_in_flight()
        remote.snapshot()
        remote.wait_in_flight()
    assert remote.version < old_version and remote.problem is None
    assert remote.snapshot().jobs.name == () and remote.nodes_snapshot()[0].free.tolist() == [4] * 4


# --- the wire format ---------------------------------------------------------------------------


def roundtrip(value: Any) -> tuple[dict[str, Any], bytes]:
    header, payload = encode(value)
    return json.loads(json.dumps(header, allow_nan=False)), payload


def test_snapshots_and_platforms_survive_the_wire() -> None:
    session = demo_session(count=120)
    session.run_until(9000)
    session.command('sbatch -J "odd~name^`|x" -n 2 --wrap "sleep 60"', user="bob")
    session.command("scontrol update NodeName=north01 State=DRAIN Reason='disk swap'")
    snapshot = session.snapshot()
    assert snapshot.clusters[0].out_of_service[0].reason == "disk swap"
    header, payload = roundtrip(snapshot)
    back = decode_snapshot(header, payload, session.platform)
    same(back, snapshot)
    assert back.version == snapshot.version and not back.jobs.id.flags.writeable
    assert decode(Platform, *roundtrip(session.platform)) == session.platform
    assert back.jobs.name[-1] == "odd~name^`|x"


def test_malformed_headers_are_refused_cleanly() -> None:
    session = demo_session(count=20)
    session.run_until(3000)
    header, payload = roundtrip(session.snapshot())

    def broken(change: Any) -> dict[str, Any]:
        copy = json.loads(json.dumps(header))
        change(copy)
        return copy

    def bad_dtype(h: dict[str, Any]) -> None:
        h["jobs"]["start"][0] = "|O"

    def out_of_range(h: dict[str, Any]) -> None:
        h["jobs"]["start"][2] = len(payload)

    def negative_shape(h: dict[str, Any]) -> None:
        h["jobs"]["start"][1] = [-1]

    def wrong_type(h: dict[str, Any]) -> None:
        h["now"] = [1]

    def short_text(h: dict[str, Any]) -> None:
        h["jobs"]["name"]["count"] += 1

    def missing(h: dict[str, Any]) -> None:
        del h["clusters"][0]["free"]

    for change in (bad_dtype, out_of_range, negative_shape, wrong_type, short_text, missing):
        with pytest.raises(SnapshotFormatError):
            decode(Snapshot, broken(change), payload, nodelist=None)


def test_gui_socket_option_errors(short_dir: Any) -> None:
    from tests.daemon.helpers import cli

    missing = cli("gui", "--socket", str(short_dir / "none.sock"))
    assert missing.returncode == 1
    assert missing.stderr.startswith(f"batchlab: error: cannot attach to {short_dir}/none.sock")
    both = cli("gui", "--socket", str(short_dir / "none.sock"), "--demo", "--scheduler", "cbf")
    assert both.returncode == 1
    assert "--scheduler, --demo do not apply" in both.stderr
    one = cli("gui", "--socket", str(short_dir / "none.sock"), "--screenshot", "x.png")
    assert one.returncode == 1 and "--screenshot does not apply" in one.stderr
    assert "--socket PATH attaches to a running daemon" in " ".join(
        cli("gui", "--help").stdout.split()
    )


def test_a_watched_daemon_replays_to_the_same_state(make_daemon: Any) -> None:
    running = make_daemon()
    remote = RemoteSession(running.socket)  # the daemon's clock now moves through a session
    for line in (*COMMANDS, "scontrol release 2"):
        remote.command(line)
    running.call("clock", action="advance", value=130)
    remote.command('sbatch -n 16 --wrap "sleep 30"')
    running.call("clock", action="advance", value=45.5)
    before = [running.run(*argv)["stdout"] for argv in (["squeue"], ["sacct", "-X"])]
    assert "COMPLETED" in before[1] and " R " in before[0]
    remote.close()
    running.stop()
    again = make_daemon()  # replays the journal, nobody watching
    assert [again.run(*argv)["stdout"] for argv in (["squeue"], ["sacct", "-X"])] == before
    assert again.call("status")["replay_mismatches"] == 0


def test_snapshot_requests_are_checked() -> None:
    from emulator.daemon.protocol import ProtocolError, SnapshotRequest, parse_request

    assert parse_request({"version": 1, "op": "snapshot"}) == SnapshotRequest(None)
    assert parse_request({"version": 1, "op": "snapshot", "since": 7}) == SnapshotRequest(7)
    for since in ("7", 7.5, True, [7]):
        with pytest.raises(ProtocolError, match="since must be an integer"):
            parse_request({"version": 1, "op": "snapshot", "since": since})
    nodes = {"version": 1, "op": "snapshot", "since": 7, "nodes": True}
    assert parse_request(nodes) == SnapshotRequest(7, nodes=True)
    for flag in (1, "true", None):
        with pytest.raises(ProtocolError, match="nodes must be true or false"):
            parse_request({**nodes, "nodes": flag})


def test_windows_watching_one_daemon_each_place_its_jobs(make_daemon: Any) -> None:
    """The daemon records where jobs went; each window, asking since its own version (one
    of them often, one now and then, one that joins late), shows the nodes the in-process
    session shows."""
    running = make_daemon()
    local = Session(load_platform(LAB), DEFAULT_SCHEDULER)
    clock = FakeWall()
    often, seldom = (RemoteSession(running.socket, clock=clock) for _ in range(2))
    late: RemoteSession | None = None
    for step in range(40):
        line = f'sbatch -J w{step} -n {1 + step % 3} -t 5 --wrap "sleep {60 + 37 * step}"'
        assert often.command(line) == local.command(line)
        for _ in range(1 + step % 2):
            assert often.step()
            local.run_until(local.next_time())
        clock.later()
        watching = [often] + ([seldom] if step % 7 == 0 else []) + ([late] if late else [])
        for remote in watching:
            assert [c.job.tolist() for c in remote.nodes_snapshot()] == [
                c.job.tolist() for c in local.nodes_snapshot()
            ]
            assert (
                remote.snapshot().clusters[0].job.tolist()
                == local.snapshot().clusters[0].job.tolist()
            )
        if step == 20:
            late = RemoteSession(running.socket, clock=clock)
    assert sum(c.job.max() >= 0 for c in local.nodes_snapshot()) > 0  # jobs were on the nodes
