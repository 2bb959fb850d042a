"""Daemon round trips and submission throughput; writes bench/results/daemon.json.

    .venv/bin/python -m bench.daemon_latency                  # every setup below
    .venv/bin/python -m bench.daemon_latency --setup slurmctld  # one setup (repeatable)
    .venv/bin/python -m bench.daemon_latency --quick          # fewer requests

For each setup a daemon subprocess is started (``batchlab daemon start --foreground``, state
dir on local disk, so every submission is fsync'd before its answer):

- ``slurmctld``: clock paused: submissions queue up, none is scheduled (the daemon's own
  overhead and the controller's submission path);
- ``slurmctld-running``: clock running at 1x (``daemon start``'s default):
  every submission is also scheduled, started and ended (``--wrap hostname`` takes no time), as
  on a live system. This is the issue's setup.

Measured in each:

- latency of a cheap request (``ping``; and ``squeue`` on an empty queue) on one connection;
- latency of one ``sbatch --wrap`` from a single client (journal write + fsync included);
- submissions per second from 16 concurrent client processes, each on its own connection, with
  the latency of those submissions under load, and the daemon's CPU time per submission (all
  its threads; less noisy than wall time on a shared machine);
- the wall time of a whole ``squeue`` command as the shims run it (a new Python process);
- the daemon's CPU time per submission without the machine's noise: the daemon in this process,
  its loop turned by hand, 16 client connections sending one ``sbatch`` each per turn (every
  turn a batch of 16 and one fsync); process time spent in the turns only, best of 5.

Targets (the issue): sbatch round trip p99 < 10 ms; >= 1,000 submissions/s from 16 clients.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

from emulator.daemon.client import Client

RESULTS = Path(__file__).resolve().parent / "results"
CLIENTS = 16
SUBMIT = ["sbatch", "--wrap", "hostname", "-t", "10"]


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return {
        "n": len(ordered),
        "p50_ms": round(at(0.50), 4),
        "p99_ms": round(at(0.99), 4),
        "max_ms": round(ordered[-1] * 1000, 4),
    }


def timed(client: Client, count: int, request: dict[str, Any]) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        answer = client.request(request)
        samples.append(time.perf_counter() - started)
        assert answer.get("ok"), answer
    return samples


def _submitter(socket: str, count: int, barrier: Barrier, out: Any) -> None:
    with Client(socket, 60) as client:
        request = {"op": "exec", "argv": SUBMIT, "env": {}, "cwd": "/"}
        barrier.wait()
        samples = timed(client, count, request)
    out.put(samples)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far, all threads (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def throughput(socket: Path, clients: int, per_client: int, pid: int) -> dict[str, Any]:
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(clients + 1)
    out = context.Queue()
    workers = [
        context.Process(target=_submitter, args=(str(socket), per_client, barrier, out))
        for _ in range(clients)
    ]
    for worker in workers:
        worker.start()
    barrier.wait()
    started, cpu = time.perf_counter(), cpu_seconds(pid)
    samples: list[float] = []
    for _ in workers:
        samples += out.get()
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu
    for worker in workers:
        worker.join()
    return {
        "clients": clients,
        "submissions": len(samples),
        "seconds": round(elapsed, 4),
        "submissions_per_s": round(len(samples) / elapsed, 1),
        "latency_under_load": percentiles(samples),
        "daemon_cpu_us_per_submission": round(cpu / len(samples) * 1e6, 1),
    }


def turned_by_hand(setup: str, rounds: int) -> float:
    """Microseconds of CPU per submission with the daemon's loop turned in this process."""
    from emulator.daemon.state import Settings, open_daemon
    from resources import platform_path

    clock = SETUPS[setup]
    work = Path(tempfile.mkdtemp(prefix="bl-bench-", dir="/tmp"))
    paused = clock == ["--paused"]
    settings = Settings(
        state_dir=work / "state",
        socket_path=work / "s.sock",
        platform=platform_path("lab"),
        paused=paused,
        speed=None if paused else float(clock[1]),
    )
    daemon = open_daemon(settings, log=lambda _: None)
    clients = [Client(settings.socket_path, 10).connect() for _ in range(CLIENTS)]
    request = {"op": "exec", "argv": SUBMIT, "env": {}, "cwd": "/"}

    def batches(count: int) -> float:
        """The process time the daemon's turns took."""
        spent = 0.0
        for _ in range(count):
            for client in clients:
                client.send(request)
            started = time.process_time()
            daemon.turn()
            spent += time.process_time() - started
            for client in clients:
                assert client.receive()["exit_code"] == 0
        return spent

    try:
        daemon.turn()  # accept the connections
        batches(rounds // 5)  # warm up
        best = min(batches(rounds) for _ in range(5)) / (rounds * CLIENTS)
        return round(best * 1e6, 1)
    finally:
        for client in clients:
            client.close()
        daemon.request_stop()
        daemon.serve()  # stops at once: closes the journal, the socket, the state dir lock
        shutil.rmtree(work, ignore_errors=True)


def command_wall_time(socket: Path, runs: int) -> dict[str, float]:
    env = {**os.environ, "BATCHLAB_SOCKET": str(socket)}
    argv = [sys.executable, "-P", "-m", "emulator.daemon.client", "squeue"]
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


def wait_for(socket: Path, process: subprocess.Popen[bytes]) -> None:
    for _ in range(3000):
        try:
            Client(socket, 5).connect().close()
            return
        except OSError:
            if process.poll() is not None:
                error = process.stderr.read() if process.stderr else b""
                raise SystemExit(f"daemon failed: {error!r}") from None
            time.sleep(0.01)
        except Exception:
            time.sleep(0.01)
    raise SystemExit("daemon did not come up")


SETUPS = {  # name: clock options
    "slurmctld": ["--paused"],
    "slurmctld-running": ["--speed", "1"],
}


def bench_setup(setup: str, quick: bool) -> dict[str, Any]:
    clock = SETUPS[setup]
    work = Path(tempfile.mkdtemp(prefix="bl-bench-", dir="/tmp"))
    socket = work / "s.sock"
    command = [
        sys.executable, "-m", "emulator.cli", "daemon", "start", "--foreground",
        "--platform", "lab", *clock,
        "--state-dir", str(work / "state"), "--socket", str(socket),
    ]  # fmt: skip
    log = (work / "daemon.log").open("wb")  # not a pipe: a full pipe would block the daemon
    daemon = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_for(socket, daemon)
        cheap, per_client = (1000, 100) if quick else (5000, 300)
        submissions = cheap // 5
        with Client(socket, 60) as client:
            timed(client, 200, {"op": "ping"})  # warm up
            ping = percentiles(timed(client, cheap, {"op": "ping"}))
            squeue = {"op": "exec", "argv": ["squeue", "-h"], "env": {}, "cwd": "/"}
            empty_squeue = percentiles(timed(client, cheap // 5, squeue))
            submit = {"op": "exec", "argv": SUBMIT, "env": {}, "cwd": "/"}
            sbatch = percentiles(timed(client, submissions, submit))
        result: dict[str, Any] = {
            "ping": ping,
            "squeue_empty_queue": empty_squeue,
            "sbatch_one_client": sbatch,
            "sbatch_16_clients": throughput(socket, CLIENTS, per_client, daemon.pid),
            "squeue_command_process": command_wall_time(socket, 5 if quick else 20),
        }
        with Client(socket, 60) as client:
            result["journal_seq"] = client.call("status")["journal_seq"]
        result["daemon_cpu_us_per_submission_turned_by_hand"] = turned_by_hand(
            setup, 20 if quick else 60
        )
        return result
    finally:
        daemon.terminate()
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
            print(f"{setup}: the daemon ignored SIGTERM for 30 s; killed", file=sys.stderr)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="append", choices=tuple(SETUPS))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    setups = args.setup or list(SETUPS)
    results: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "system": platform.platform(),
        },
        "targets": {"sbatch_p99_ms": 10.0, "submissions_per_s": 1000.0},
    }
    show: Callable[[str], None] = print
    for setup in setups:
        figures = bench_setup(setup, args.quick)
        results.setdefault(setup, []).append(figures)
        load = figures["sbatch_16_clients"]
        show(
            f"{setup:17} ping p50 {figures['ping']['p50_ms']:.3f} ms "
            f"p99 {figures['ping']['p99_ms']:.3f} ms | sbatch (1 client) p50 "
            f"{figures['sbatch_one_client']['p50_ms']:.3f} ms p99 "
            f"{figures['sbatch_one_client']['p99_ms']:.3f} ms | 16 clients "
            f"{load['submissions_per_s']:.0f} submissions/s (p99 "
            f"{load['latency_under_load']['p99_ms']:.2f} ms, daemon "
            f"{load['daemon_cpu_us_per_submission']:.0f} us CPU each) | squeue process p50 "
            f"{figures['squeue_command_process']['p50_ms']:.0f} ms | turned by hand "
            f"{figures['daemon_cpu_us_per_submission_turned_by_hand']:.0f} us CPU each"
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "daemon.json").write_text(json.dumps(results, indent=2) + "\n")
    show(f"wrote {RESULTS / 'daemon.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
