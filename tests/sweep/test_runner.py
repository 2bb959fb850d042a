"""Sweeps on real Dask clusters: a local one, separate scheduler and worker processes, a kill -9
in mid-run followed by --resume, Ctrl-C, and a scheduler that is not there."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.sweep.runner import SweepError, chunk_size, run_sweep
from emulator.sweep.store import JOURNAL, StoreError
from tests.sweep.helpers import batchlab, calibration_spec, load, rows


def without_wall_time(directory: Path) -> list[dict[str, object]]:
    return [{k: v for k, v in row.items() if k != "wall_s"} for row in rows(directory)]


@pytest.mark.slow
def test_a_local_sweep_runs_each_cell_once_and_the_same_on_any_worker_count(
    tmp_path: Path,
) -> None:
    spec = load(calibration_spec(tmp_path, xs=3, seeds=3, fail=True))
    done: list[tuple[int, int, int]] = []
    one = run_sweep(spec, tmp_path / "one", workers=1, progress=lambda *a: done.append(a))
    assert (one.total, one.ran, one.failed, one.interrupted) == (18, 18, 9, False)
    assert done[-1] == (18, 18, 9)
    two = run_sweep(spec, tmp_path / "two", workers=2)
    assert two.ran == 18
    assert without_wall_time(tmp_path / "one") == without_wall_time(tmp_path / "two")
    assert [r["cell"] for r in rows(tmp_path / "one")] == [c.key for c in spec.cells()]

    again = run_sweep(spec, tmp_path / "one", workers=1, resume=True)
    assert (again.already, again.ran) == (9, 9)  # only the failed cells run again
    assert len(rows(tmp_path / "one")) == 18
    with pytest.raises(StoreError, match="already holds a sweep: add --resume"):
        run_sweep(spec, tmp_path / "one", workers=1)


@pytest.mark.slow
def test_quick_runs_the_subset_and_a_full_resume_reuses_it(tmp_path: Path) -> None:
    spec = load(calibration_spec(tmp_path, xs=3, seeds=2))
    quick = run_sweep(spec, tmp_path / "out", quick=True, workers=1)
    assert (quick.total, quick.ran) == (1, 1)  # x = 1, first seed
    full = run_sweep(spec, tmp_path / "out", resume=True, workers=1)
    assert (full.total, full.already, full.ran) == (6, 1, 5)
    assert len(rows(tmp_path / "out")) == 6


def test_a_directory_of_another_spec_is_refused(tmp_path: Path) -> None:
    run_sweep(load(calibration_spec(tmp_path, xs=1, seeds=1)), tmp_path / "out", workers=1)
    other = load(calibration_spec(tmp_path, xs=2, seeds=1))
    with pytest.raises(StoreError, match="holds the cells of another spec"):
        run_sweep(other, tmp_path / "out", workers=1, resume=True)
    retitled = calibration_spec(tmp_path, xs=1, seeds=1)
    retitled.write_text(retitled.read_text().replace('"Draws"', '"Seeded draws"'))
    again = run_sweep(load(retitled), tmp_path / "out", workers=1, resume=True)
    assert (again.already, again.ran) == (1, 0)  # same cells, new report titles: welcome


def test_an_unknown_experiment_names_the_spec_line(tmp_path: Path) -> None:
    path = calibration_spec(tmp_path)
    path.write_text(path.read_text().replace('"sleep"', '"nope"'))
    with pytest.raises(SweepError, match=r"calibration-test\.toml:1: unknown experiment 'nope'"):
        run_sweep(load(path), tmp_path / "out", workers=1)


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('experiment = "sleep"\ntitle = "t"\n[grid]\nx = []\n')
    result = batchlab("sweep", str(bad), "--out", str(tmp_path / "out"))
    assert result.returncode == 1
    assert (
        result.stderr == f"batchlab: error: {bad}:4: grid.x is an empty list: no cell would run\n"
    )
    listing = batchlab("sweep", "--list")
    assert listing.returncode == 0 and "sleep" in listing.stdout


def test_cells_travel_in_chunks_of_about_16_tasks_per_worker() -> None:
    assert chunk_size(1000, 2) == 32
    assert chunk_size(11, 1) == 1  # expensive experiments: one cell per task
    assert chunk_size(100_000, 0) == 50  # workers may join a remote scheduler later


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_an_unreachable_scheduler_is_a_one_line_error_within_10_s(tmp_path: Path) -> None:
    spec = calibration_spec(tmp_path)
    started = time.monotonic()
    result = batchlab(
        "sweep", str(spec), "--out", str(tmp_path / "out"),
        "--scheduler-address", f"tcp://127.0.0.1:{_free_port()}",
    )  # fmt: skip
    assert time.monotonic() - started < 10
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:" in result.stderr


@pytest.mark.slow
def test_an_address_where_no_dask_scheduler_answers(tmp_path: Path) -> None:
    spec = load(calibration_spec(tmp_path))
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def answer_like_a_web_server() -> None:
            connection, _ = server.accept()
            with connection:
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4)

        thread = threading.Thread(target=answer_like_a_web_server, daemon=True)
        thread.start()
        with pytest.raises(
            SweepError, match=f"no Dask scheduler answers at tcp://127.0.0.1:{port}"
        ):
            run_sweep(spec, tmp_path / "out", address=f"tcp://127.0.0.1:{port}")
    with pytest.raises(SweepError, match="invalid scheduler address 'nowhere'"):
        run_sweep(spec, tmp_path / "out", address="nowhere")


@pytest.fixture
def dask_processes(tmp_path: Path) -> Iterator[str]:
    """A ``dask scheduler`` and a ``dask worker`` as separate processes on 127.0.0.1."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
         "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "dask", "worker", address, "--nworkers", "2", "--nthreads", "1",
         "--no-dashboard", "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield address
    finally:
        for process in (worker, scheduler):
            process.terminate()
        for process in (worker, scheduler):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.mark.slow
def test_a_sweep_through_a_separate_scheduler_and_workers(
    tmp_path: Path, dask_processes: str
) -> None:
    spec = calibration_spec(tmp_path, xs=4, seeds=3)
    out = tmp_path / "out"
    result = batchlab("sweep", str(spec), "--out", str(out), "--scheduler-address", dask_processes)
    assert result.returncode == 0, result.stderr
    table = rows(out)
    assert len(table) == 12 and {r["status"] for r in table} == {"ok"}
    local = tmp_path / "local"
    run_sweep(load(spec), local, workers=1)
    assert without_wall_time(out) == without_wall_time(local)
    assert "report.md" in batchlab("report", str(out)).stdout


def _journal_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.slow
def test_kill_9_in_mid_run_then_resume_gives_every_cell_exactly_once(tmp_path: Path) -> None:
    spec = calibration_spec(tmp_path, xs=20, seeds=2, seconds=0.3)
    out = tmp_path / "out"
    sweep = subprocess.Popen(
        [sys.executable, "-m", "emulator.cli", "sweep", str(spec), "--out", str(out), "-w", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 150
    while _journal_lines(out / JOURNAL) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(sweep.pid, signal.SIGKILL)  # the sweep and its local workers, as kill -9 of a job
    sweep.wait()
    finished = _journal_lines(out / JOURNAL)
    assert 8 <= finished < 40, "the kill must land in mid-run"

    resumed = batchlab("sweep", str(spec), "--out", str(out), "-w", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    table = rows(out)
    keys = [str(r["cell"]) for r in table]
    assert sorted(keys) == sorted(c.key for c in load(spec).cells())
    assert len(set(keys)) == len(keys) == 40
    assert all(r["status"] == "ok" and r["echo"] == r["x"] for r in table)


def _hear_sigint() -> None:
    """Start the sweep with SIGINT's default, as a terminal does: in a full test run its
    child once ran to the end without hearing SIGINT, and a signal the test process ignores
    (whatever an earlier test in the same worker did) stays ignored in a child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_cells(tmp_path: Path) -> None:
    spec = calibration_spec(tmp_path, xs=20, seeds=2, seconds=0.5)
    out = tmp_path / "out"
    sweep = subprocess.Popen(
        [sys.executable, "-m", "emulator.cli", "sweep", str(spec), "--out", str(out), "-w", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_hear_sigint,
    )  # fmt: skip
    deadline = time.monotonic() + 150
    while _journal_lines(out / JOURNAL) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _journal_lines(out / JOURNAL) >= 5, "the sweep did not get going in time"
    os.killpg(sweep.pid, signal.SIGINT)  # what a terminal sends its foreground group
    stdout, stderr = sweep.communicate(timeout=60)
    assert sweep.returncode == 130, (stdout, stderr)
    assert "interrupted: finished cells are kept" in stderr
    assert "Traceback" not in stderr
    kept = rows(out)
    assert 5 <= len(kept) < 40 and {r["status"] for r in kept} == {"ok"}
