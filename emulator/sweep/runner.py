"""Run a sweep's cells on Dask into a sweep directory.

By default on a ``dask.distributed.LocalCluster`` of worker *processes* (one thread each: the
cells are CPU-bound Python, and a cell's solver must not share an interpreter with another),
or on any running Dask scheduler given by address (on a Slurm cluster, one started with
dask-jobqueue; docs/experiments.md). A worker finds the cell by its registered name, so it
needs batchlab (and the package of a third-party experiment) installed, nothing else.

Each finished cell goes to the journal at once (``emulator.sweep.store``), so Ctrl-C (or a
kill) keeps every finished cell and ``--resume`` runs the others. A cell that raises is
recorded with its error and the sweep goes on.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emulator.sweep import provenance
from emulator.sweep.experiments import ExperimentError, Metrics, experiment
from emulator.sweep.model import CellSpec, SweepSpec
from emulator.sweep.store import (
    CellRecord,
    Journal,
    Status,
    StoreError,
    clashing_metric,
    write_results,
)

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

#: Seconds to wait for a scheduler given by address before giving up.
CONNECT_TIMEOUT = 6

Progress = Callable[[int, int, int], None]  # done, total, failed
CellOutcome = tuple[str, str, float, Metrics]  # status, error, wall seconds, metrics
TASKS_PER_WORKER = 16
MAX_CHUNK = 50


class SweepError(ValueError):
    """A sweep that cannot start: its experiment is unknown, its scheduler unreachable, ..."""


@dataclass(frozen=True, slots=True)
class SweepOutcome:
    total: int  # cells of this run (the quick subset with --quick)
    already: int  # found done in the directory and skipped
    ran: int
    failed: int  # among ran
    interrupted: bool


def run_cell(name: str, params: Mapping[str, Any], seed: int) -> CellOutcome:
    """On a worker: run the cell ``name`` and return (status, error, wall seconds, metrics).

    Any exception of the cell becomes an error record (its type and first line), because one
    bad cell must not stop a campaign; so does a result that is not a flat record of scalars.
    """
    started = time.perf_counter()
    try:
        metrics = experiment(name)(params, seed)
        _check_metrics(metrics, params)
    except Exception as error:
        return Status.ERROR.value, _one_line(error), time.perf_counter() - started, {}
    return Status.OK.value, "", time.perf_counter() - started, metrics


def _check_metrics(metrics: object, params: Mapping[str, Any]) -> None:
    if not isinstance(metrics, dict):
        raise TypeError(f"the cell returned {type(metrics).__name__}, not a dict of metrics")
    for key, value in metrics.items():
        if not isinstance(key, str) or not isinstance(value, int | float | str | bool):
            raise TypeError(f"metric {key!r} is {type(value).__name__}: use int, float, str, bool")
    clash = clashing_metric(metrics, params)
    if clash:
        raise ValueError(f"metric {clash!r} is named like a parameter or a result column")


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


def run_sweep(
    spec: SweepSpec,
    out: Path,
    *,
    quick: bool = False,
    resume: bool = False,
    workers: int | None = None,
    address: str | None = None,
    progress: Progress | None = None,
) -> SweepOutcome:
    """Run the spec's cells (or its quick subset) not yet done in ``out``; see the module doc."""
    try:
        experiment(spec.experiment)
    except ExperimentError as error:
        raise SweepError(f"{spec.where_is('experiment')}: {error}") from None
    journal = Journal(out)
    if journal.path.exists() and not resume:
        raise StoreError(f"{out} already holds a sweep: add --resume, or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    provenance.check_same_spec(out, spec)
    records = journal.records()
    cells = spec.cells(quick)
    todo = [c for c in cells if _needs_run(records.get(c.key))]
    started = provenance.now()
    ran = failed = 0
    interrupted = False
    cluster_info: dict[str, Any] = {}
    try:
        if todo:
            with connect(workers, address) as client:
                cluster_info = _describe(client, address)
                for batch in results(client, spec.experiment, todo):
                    journal.append(batch)
                    for record in batch:
                        records[record.key] = record
                        failed += record.status != Status.OK.value
                    ran += len(batch)
                    if progress:
                        progress(len(cells) - len(todo) + ran, len(cells), failed)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        # however the loop ended (say, an interrupt a Dask context swallowed while closing),
        # cells left undone mean the sweep did not finish
        interrupted = interrupted or ran < len(todo)
        # from the journal: an interrupt may have cut the loop between journal and memory
        write_results(out, spec.cells(), journal.records())
        provenance.record_run(
            out,
            spec,
            {
                "started": started,
                "finished": provenance.now(),
                "quick": quick,
                "cells": len(cells),
                "already_done": len(cells) - len(todo),
                "ran": ran,
                "failed": failed,
                "interrupted": interrupted,
                "cluster": cluster_info,
            },
        )
    return SweepOutcome(len(cells), len(cells) - len(todo), ran, failed, interrupted)


def _needs_run(record: CellRecord | None) -> bool:
    """Cells never run, and failed ones (the failure may be fixed by now); a resume never runs
    a cell that succeeded, so the store holds each cell once."""
    return record is None or record.status != Status.OK.value


def run_cells(name: str, cells: list[tuple[dict[str, Any], int]]) -> list[CellOutcome]:
    """On a worker: :func:`run_cell` for each (params, seed) of one task."""
    return [run_cell(name, params, seed) for params, seed in cells]


def results(client: Client, name: str, cells: list[CellSpec]) -> Iterator[list[CellRecord]]:
    """Submit every cell and yield their records in batches as they finish.

    Cells go to the workers in tasks of a few cells each (``chunk_size``): a Dask task costs
    about a millisecond of scheduler time, far more on a loaded machine, which would dominate a
    sweep of cheap cells. A batch is what finished since the last one, so the journal syncs
    once per batch, not once per cell.
    """
    from distributed import as_completed

    workers = len(client.scheduler_info().get("workers", {}))
    size = chunk_size(len(cells), workers)
    chunks = [cells[i : i + size] for i in range(0, len(cells), size)]
    arguments = [[(cell.param_dict(), cell.seed) for cell in chunk] for chunk in chunks]
    submitted = client.map(run_cells, [name] * len(chunks), arguments, pure=False)
    futures = dict(zip(submitted, chunks, strict=True))
    try:
        for batch in as_completed(submitted, loop=client.loop).batches():
            yield [record for future in batch for record in _records(futures.pop(future), future)]
    finally:
        if futures:
            client.cancel(list(futures))


def chunk_size(cells: int, workers: int) -> int:
    """Cells per task: about ``TASKS_PER_WORKER`` tasks per worker, so that the load stays
    balanced when cells differ in cost, and never more than ``MAX_CHUNK`` cells, so that workers
    joining a remote cluster later still find tasks and Ctrl-C loses little running work."""
    return max(1, min(MAX_CHUNK, math.ceil(cells / (max(workers, 1) * TASKS_PER_WORKER))))


def _records(chunk: list[CellSpec], future: Any) -> list[CellRecord]:
    try:
        outcomes: list[CellOutcome] = future.result()
    except Exception as failure:  # the worker could not run the task at all
        error = _one_line(failure)
        return [CellRecord.of(cell, Status.ERROR, error, math.nan, {}) for cell in chunk]
    return [
        CellRecord.of(cell, Status(status), error, wall, metrics)
        for cell, (status, error, wall, metrics) in zip(chunk, outcomes, strict=True)
    ]


@contextmanager
def connect(workers: int | None, address: str | None) -> Iterator[Client]:
    """A client of the scheduler at ``address``, or of a fresh local cluster (closed after)."""
    from distributed import Client

    if address:
        _probe(address)
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError):
            message = f"cannot reach the Dask scheduler at {address} within {CONNECT_TIMEOUT} s"
            raise SweepError(message) from None
        with client:
            yield client
        return
    with (
        _local_cluster(workers or os.cpu_count() or 1) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


def _probe(address: str) -> None:
    """Check that a Dask scheduler answers at ``address`` before making a client: Dask's client
    retries a refused connection until its timeout, and anything else listening there (a
    proxy, another service) makes it fail in odd ways, then hang while closing."""
    import asyncio

    from distributed.comm.core import connect as open_comm

    scheme, separator, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    if not separator or not host or not port.isdecimal():
        raise SweepError(f"invalid scheduler address {address!r}: expected tcp://HOST:PORT")
    if scheme != "tcp":
        return  # tls:// and the like need their security settings: leave them to the client
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        reason = error.strerror or f"no answer within {CONNECT_TIMEOUT} s"
        raise SweepError(f"cannot reach the Dask scheduler at {address}: {reason}") from None

    async def handshake() -> None:
        comm = await open_comm(address, timeout=CONNECT_TIMEOUT)
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(handshake(), CONNECT_TIMEOUT))
    except Exception:  # something answered, but not the way a Dask scheduler does
        raise SweepError(f"no Dask scheduler answers at {address}") from None


@contextmanager
def _local_cluster(workers: int) -> Iterator[LocalCluster]:
    """Worker processes that ignore SIGINT: Ctrl-C at a terminal reaches the whole process
    group, and it is the sweep's to handle (keep the finished cells, stop), not each worker's
    to die of with a traceback. An ignored signal stays ignored in the processes started
    meanwhile; the sweep itself gets its handler back at once."""
    from distributed import LocalCluster

    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main_thread else None
    try:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)
    with cluster:
        yield cluster


def _describe(client: Client, address: str | None) -> dict[str, Any]:
    workers = client.scheduler_info().get("workers", {})
    return {
        "scheduler": address or "LocalCluster",
        "workers": len(workers),
        "threads": sum(w.get("nthreads", 0) for w in workers.values()),
    }
