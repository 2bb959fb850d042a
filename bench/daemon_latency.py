"""Daemon round trips and submission throughput; writes bench/results/daemon.json.

    .venv/bin/python -m bench.daemon_latency                  # toy and slurmctld handlers
    .venv/bin/python -m bench.daemon_latency --handler toy    # one handler
    .venv/bin/python -m bench.daemon_latency --quick          # fewer requests

For each handler a daemon subprocess is started (``batchlab daemon start --foreground``, clock
paused, state dir on local disk, so every submission is fsync'd before its answer). Measured:

- latency of a cheap request (``ping``; and ``squeue`` on an empty queue) on one connection;
- latency of one ``sbatch --wrap`` from a single client (journal append + fsync included);
- submissions per second from 16 concurrent client processes, each on its own connection, with
  the latency of those submissions under load;
- the wall time of a whole ``squeue`` command as the shims run it (a new Python process).

The toy handler costs next to nothing, so its figures are the daemon's own overhead. With the
real controller every command also pays the controller's own work, which today grows with the
number of unfinished jobs (``Controller.sync`` rewrites their accounting rows), so its run
submits fewer jobs and its figures depend on the queue length (``journal_seq``).

Targets (the issue): p99 of a cheap request < 10 ms; >= 1,000 submissions/s.
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


def throughput(socket: Path, clients: int, per_client: int) -> dict[str, Any]:
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
    started = time.perf_counter()
    samples: list[float] = []
    for _ in workers:
        samples += out.get()
    elapsed = time.perf_counter() - started
    for worker in workers:
        worker.join()
    return {
        "clients": clients,
        "submissions": len(samples),
        "seconds": round(elapsed, 4),
        "submissions_per_s": round(len(samples) / elapsed, 1),
        "latency_under_load": percentiles(samples),
    }


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


def bench_handler(handler: str, quick: bool) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="bl-bench-", dir="/tmp"))
    socket = work / "s.sock"
    command = [
        sys.executable, "-m", "emulator.cli", "daemon", "start", "--foreground",
        "--platform", "lab", "--handler", handler, "--paused",
        "--state-dir", str(work / "state"), "--socket", str(socket),
    ]  # fmt: skip
    daemon = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(socket, daemon)
        cheap, per_client = (1000, 100) if quick else (5000, 500)
        submissions = cheap // 5
        if handler == "slurmctld":  # each of its commands costs O(unfinished jobs): keep n small
            submissions, per_client = (50, 5) if quick else (100, 10)
        with Client(socket, 60) as client:
            timed(client, 200, {"op": "ping"})  # warm up
            ping = percentiles(timed(client, cheap, {"op": "ping"}))
            squeue = {"op": "exec", "argv": ["squeue", "-h"], "env": {}, "cwd": "/"}
            empty_squeue = percentiles(timed(client, cheap // 5, squeue))
            submit = {"op": "exec", "argv": SUBMIT, "env": {}, "cwd": "/"}
            sbatch = percentiles(timed(client, submissions, submit))
        result = {
            "ping": ping,
            "squeue_empty_queue": empty_squeue,
            "sbatch_one_client": sbatch,
            "sbatch_16_clients": throughput(socket, CLIENTS, per_client),
            "squeue_command_process": command_wall_time(socket, 5 if quick else 20),
        }
        with Client(socket, 60) as client:
            result["journal_seq"] = client.call("status")["journal_seq"]
        return result
    finally:
        daemon.terminate()
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
            print(f"{handler}: the daemon ignored SIGTERM for 30 s; killed", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handler", action="append", choices=("toy", "slurmctld"))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    handlers = args.handler or ["toy", "slurmctld"]
    results: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "system": platform.platform(),
        },
        "targets": {"cheap_request_p99_ms": 10.0, "submissions_per_s": 1000.0},
    }
    show: Callable[[str], None] = print
    for handler in handlers:
        figures = bench_handler(handler, args.quick)
        results[handler] = figures
        load = figures["sbatch_16_clients"]
        show(
            f"{handler:10} ping p50 {figures['ping']['p50_ms']:.3f} ms "
            f"p99 {figures['ping']['p99_ms']:.3f} ms | sbatch (1 client) p50 "
            f"{figures['sbatch_one_client']['p50_ms']:.3f} ms p99 "
            f"{figures['sbatch_one_client']['p99_ms']:.3f} ms | 16 clients "
            f"{load['submissions_per_s']:.0f} submissions/s (p99 "
            f"{load['latency_under_load']['p99_ms']:.2f} ms) | squeue process p50 "
            f"{figures['squeue_command_process']['p50_ms']:.0f} ms"
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "daemon.json").write_text(json.dumps(results, indent=2) + "\n")
    show(f"wrote {RESULTS / 'daemon.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
