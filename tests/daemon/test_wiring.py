"""The real controller behind the daemon (skipped while :mod:`emulator.slurmctld` is missing)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.handlers import HandlerError, load_factory, make_handler
from emulator.daemon.protocol import Handler
from emulator.daemon.toy import ToyHandler
from tests.daemon.helpers import LAB


def test_factories_by_name(tmp_path: Path) -> None:
    toy = load_factory("toy")(str(LAB), "easy", str(tmp_path))
    assert isinstance(toy, ToyHandler) and isinstance(toy, Handler)
    assert load_factory("emulator.daemon.toy:make_toy")(str(LAB), "easy", "") is not None
    for bad in ("nope", "emulator.daemon.toy:missing", "no.such.module:f", ":f"):
        with pytest.raises(HandlerError):
            load_factory(bad)


def test_a_missing_controller_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "emulator.slurmctld.controller", None)
    with pytest.raises(HandlerError, match="controller is not available"):
        make_handler(str(LAB), "easy", "/tmp")


@pytest.fixture
def controller_module() -> Any:
    return pytest.importorskip("emulator.slurmctld", reason="the Slurm controller is not there yet")


def _session(handler: Handler, steps: list[float]) -> str:
    run = handler.execute
    for minutes in (3, 1, 8, 2, 5, 1):
        run(
            ["sbatch", "--wrap", "x", "-t", str(minutes), "-N", "2"],
            user="a",
            env={},
            stdin=None,
            cwd="/",
        )
    for t in steps:
        handler.advance(t)
    run(["scancel", "5"], user="a", env={}, stdin=None, cwd="/")
    handler.advance(2000.0)
    return run(
        ["sacct", "-X", "-o", "jobid,state,start,end"], user="a", env={}, stdin=None, cwd="/"
    )[0]


def test_the_controller_is_split_invariant(controller_module: Any, tmp_path: Path) -> None:
    one = _session(make_handler(str(LAB), "easy", str(tmp_path)), [600.0])
    many = _session(
        make_handler(str(LAB), "easy", str(tmp_path)), [0.0, 0.0, 59.5, 60.0, 300.0, 600.0]
    )
    assert one == many
    assert "COMPLETED" in one


def test_next_event_and_same_instant_events(controller_module: Any, tmp_path: Path) -> None:
    handler = make_handler(str(LAB), "easy", str(tmp_path))
    assert handler.next_event() == float("inf")
    handler.execute(["sbatch", "--wrap", "x", "-t", "1"], user="a", env={}, stdin=None, cwd="/")
    assert handler.next_event() == 0.0  # the arrival waits for the clock to move
    handler.advance(0.0)
    assert handler.next_event() > 0.0
    squeue = handler.execute(["squeue", "-h", "-o", "%i %t"], user="a", env={}, stdin=None, cwd="/")
    assert squeue[0] == "1 R\n"


def test_the_daemon_hands_the_controller_the_script_the_client_read(
    controller_module: Any, make_daemon: Any, tmp_path: Path
) -> None:
    (tmp_path / "job.sh").write_text("#!/bin/sh\n#SBATCH -J ondisk\n")
    running = make_daemon(handler="slurmctld")
    answer = running.call(
        "exec",
        argv=["sbatch", "job.sh"],
        cwd=str(tmp_path),
        script={"index": 1, "text": "#!/bin/sh\n#SBATCH -J sent\n"},
    )
    assert answer["stdout"] == "Submitted batch job 1\n", answer
    show = running.run("scontrol", "show", "job", "1")["stdout"]
    assert "JobName=sent" in show
    assert f"Command={tmp_path / 'job.sh'}" in show
    assert running.daemon.handler.controller.files == {}  # provided for that command only


def test_status_shows_the_scheduler_switched_at_runtime(
    controller_module: Any, make_daemon: Any
) -> None:
    running = make_daemon(handler="slurmctld")
    assert running.call("status")["scheduler"] == "easy"
    assert running.run("scontrol", "update", "scheduler=coalloc:order=sjf")["exit_code"] == 0
    assert running.call("status")["scheduler"] == "coalloc:order=sjf+fcfs"  # with its local policy
