"""What a request does, without a socket (:mod:`emulator.daemon.service`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.emulation import Feed, open_emulation
from emulator.daemon.journal import Journal
from emulator.daemon.protocol import ProtocolError
from emulator.daemon.server import StartError
from emulator.daemon.service import Peer, Service
from tests.daemon.helpers import LAB


@pytest.fixture
def service(tmp_path: Path) -> Service:
    emulation = open_emulation(LAB, "easy", tmp_path, Feed())
    return Service(emulation, Journal(tmp_path / "journal.jsonl"), tmp_path, log=lambda _: None)


def _exec(*argv: str) -> dict[str, Any]:
    return {"version": 1, "op": "exec", "argv": list(argv), "env": {}, "cwd": "/"}


def test_a_clock_goal_is_answered_when_the_simulation_reaches_it(service: Service) -> None:
    owner = Peer(0, "root", operator=True)
    assert service.answer(owner, _exec("sbatch", "--wrap", "x", "-t", "2")) is not None
    goal = {"version": 1, "op": "clock", "action": "until", "value": 300, "id": 7}
    assert service.answer(owner, goal) is None and owner.waiting
    assert service.settle() == []  # not there yet
    replies = []
    while not replies:  # a slice may stop early on a loaded machine
        assert service.simulate() == []
        replies = service.settle()
    (reply,) = replies
    assert reply.peer is owner and reply.request is goal and not owner.waiting
    assert reply.response["clock"]["now"] == 300.0


def test_records_wait_for_the_commit(service: Service, tmp_path: Path) -> None:
    owner = Peer(0, "root", operator=True)
    service.answer(owner, _exec("sbatch", "--wrap", "x"))
    journal = tmp_path / "journal.jsonl"
    assert journal.read_text() == ""
    service.commit()
    (record,) = [json.loads(line) for line in journal.read_text().splitlines()]
    assert record["argv"] == ["sbatch", "--wrap", "x"] and record["seq"] == 1
    assert json.loads((tmp_path / "clock.json").read_text())["seq"] == 1


def test_a_plain_user_may_not_steer_the_clock_and_a_leaver_is_forgotten(
    service: Service,
) -> None:
    plain = Peer(1000, "alice", operator=False)
    with pytest.raises(ProtocolError, match="only the daemon's operator"):
        service.answer(plain, {"version": 1, "op": "clock", "action": "resume"})
    owner = Peer(0, "root", operator=True)
    service.answer(owner, {"version": 1, "op": "clock", "action": "until", "value": 1e9})
    assert len(service.goals) == 1
    service.forget(owner)
    assert service.goals == []


def test_a_journal_of_the_toy_handler_is_refused(make_daemon: Any) -> None:
    running = make_daemon()
    running.stop()
    journal = running.state_dir / "journal.jsonl"
    header = json.loads(journal.read_text().splitlines()[0])
    journal.write_text(json.dumps({**header, "handler": "toy"}) + "\n")
    with pytest.raises(StartError, match="a run of handler toy; use --fresh"):
        make_daemon()
