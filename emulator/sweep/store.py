"""The results store of a sweep directory: a journal, ``results.parquet`` and ``provenance.json``.

Rows are never lost and never doubled, even under ``kill -9``: every finished cell is appended
to ``DIR/journal.jsonl`` as one line, written and fsynced together with the cells that finished
at the same time before more are taken, so a kill loses at most the lines being written.
Reading the journal ignores a torn last line (and truncates it away before appending again) and
keeps the last record of each cell, so a cell re-run by ``--resume`` (only failed cells are)
replaces its earlier record. ``results.parquet`` is derived from the journal, rewritten
atomically (temporary file, then rename) whenever a run ends, in the spec's cell order so that
its rows do not depend on which worker finished first. JSON keeps floats exact (``repr``
round-trips), so the Parquet values are the cells' own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from emulator.sweep.experiments import Metrics, Scalar
from emulator.sweep.model import RESERVED, CellSpec

JOURNAL = "journal.jsonl"
RESULTS = "results.parquet"
PROVENANCE = "provenance.json"


class Status(Enum):
    OK = "ok"
    ERROR = "error"


class StoreError(ValueError):
    """A sweep directory that cannot be used (another spec's results, an unreadable file)."""


@dataclass(frozen=True, slots=True)
class CellRecord:
    """One finished cell: what ran, what it measured or why it failed, and how long it took."""

    key: str
    params: dict[str, Scalar]
    seed: int
    status: str  # Status value
    error: str
    wall_s: float
    metrics: dict[str, Scalar]

    @staticmethod
    def of(
        cell: CellSpec, status: Status, error: str, wall_s: float, metrics: Metrics
    ) -> CellRecord:
        return CellRecord(
            cell.key, cell.param_dict(), cell.seed, status.value, error, wall_s, metrics
        )


class Journal:
    """The append-only journal of a sweep directory."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / JOURNAL

    def records(self) -> dict[str, CellRecord]:
        """Every cell's last record by key; a torn last line (a kill mid-write) is cut off."""
        if not self.path.exists():
            return {}
        records: dict[str, CellRecord] = {}
        good_bytes = 0
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    if not raw.endswith(b"\n"):
                        raise ValueError("torn line")
                    record = CellRecord(**json.loads(raw))
                except (ValueError, TypeError) as error:
                    if handle.read(1):  # not the last line: the journal was damaged otherwise
                        raise StoreError(f"{self.path}:{number}: unreadable record") from error
                    break
                records[record.key] = record
                good_bytes += len(raw)
        if good_bytes != self.path.stat().st_size:
            with self.path.open("r+b") as handle:
                handle.truncate(good_bytes)
        return records

    def append(self, records: Iterable[CellRecord]) -> None:
        """Append ``records`` and sync them to disk before returning."""
        lines = "".join(json.dumps(asdict(r), sort_keys=True) + "\n" for r in records)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())


def write_results(
    directory: Path, cells: Sequence[CellSpec], records: Mapping[str, CellRecord]
) -> int:
    """Write ``results.parquet`` from ``records`` in the order of ``cells`` (the full sweep);
    cells without a record are left out. Returns the number of rows."""
    rows = [records[cell.key] for cell in cells if cell.key in records]
    table = results_table(rows)
    temporary = directory / (RESULTS + ".tmp")
    pq.write_table(table, temporary)
    os.replace(temporary, directory / RESULTS)
    return len(rows)


def results_table(rows: Iterable[CellRecord]) -> pa.Table:
    """One row per record: ``cell`` (its key), the parameters, ``seed``, ``status``, ``error``,
    ``wall_s``, then the metrics (columns in order of first appearance; a metric a cell did not
    report is null there). A metric whose values mix strings and numbers is stored as text."""
    rows = list(rows)
    params = _ordered(name for row in rows for name in row.params)
    metrics = _ordered(name for row in rows for name in row.metrics)
    columns: dict[str, list[Any]] = {"cell": [row.key for row in rows]}
    for name in params:
        columns[name] = [row.params.get(name) for row in rows]
    columns["seed"] = [row.seed for row in rows]
    columns["status"] = [row.status for row in rows]
    columns["error"] = [row.error for row in rows]
    columns["wall_s"] = [row.wall_s for row in rows]
    for name in metrics:
        columns[name] = [row.metrics.get(name) for row in rows]
    return pa.table({name: _array(values) for name, values in columns.items()})


def clashing_metric(metrics: Mapping[str, object], params: Iterable[str]) -> str | None:
    """A metric named like a result column or a parameter (the row could not hold both)."""
    taken = RESERVED | set(params)
    return next((name for name in metrics if name in taken), None)


def _ordered(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _array(values: list[Any]) -> pa.Array:
    present = [v for v in values if v is not None]
    if any(isinstance(v, str) for v in present) and not all(isinstance(v, str) for v in present):
        values = [None if v is None else str(v) for v in values]
    elif any(isinstance(v, float) for v in present) and not any(
        isinstance(v, bool) for v in present
    ):
        values = [None if v is None else float(v) for v in values]
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else str(v) for v in values])


def read_results(directory: Path) -> pa.Table:
    path = directory / RESULTS
    if not path.exists():
        raise StoreError(f"{path}: no results (run batchlab sweep SPEC --out {directory} first)")
    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as error:
        raise StoreError(f"{path}: unreadable: {error}") from None


def write_json_atomically(path: Path, data: Mapping[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, path)
