"""The daemon's journal: every accepted mutating request, fsync'd before it is answered.

``journal.jsonl`` holds one JSON object per line. The first is the header (``kind: "init"``:
format, handler, scheduler, the platform file's digest); each later line is one request
(``kind: "exec"``: ``seq``, the simulated time ``t`` it took effect, ``user``, ``argv``, the
``env`` subset, ``stdin``, ``cwd``, the batch ``script`` text, and the ``exit_code`` and
``stdout`` it produced). Lines are written whole and the daemon answers only after ``fsync``, so
a line without its newline (a crash mid-write) was never acknowledged: recovery drops it. A
damaged line anywhere else stops recovery with an error instead of guessing.

Group commit: the records of one turn of the daemon's loop go to the file in one write, and one
``fdatasync`` makes them all durable before any of that turn's answers leaves.

``clock.json`` (replaced atomically) remembers the simulated time and the pace between requests.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

JOURNAL_FORMAT = 1


class JournalError(Exception):
    """A journal that cannot be trusted; the message names the file and line."""


_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))


def _dumps(record: dict[str, Any]) -> bytes:
    return (_ENCODER.encode(record) + "\n").encode("ascii")


def fsync_dir(path: Path) -> None:
    """Make a new or renamed entry in directory ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: readers see the old file or the new one, never a mix."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    fsync_dir(path.parent)


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The journal's records in order. A torn last line is cut off the file; any other bad
    line raises :class:`JournalError`."""
    good_end = 0
    with open(path, "r+b") as file:
        for number, line in enumerate(file, 1):
            record: Any = None
            if line.endswith(b"\n"):
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
            if not isinstance(record, dict):
                if file.read(1):  # something follows: not a torn tail but damage
                    raise JournalError(f"{path}:{number}: damaged journal line")
                file.truncate(good_end)
                file.flush()
                os.fsync(file.fileno())
                return
            good_end += len(line)
            yield record


class Journal:
    """Appends records in memory; :meth:`sync` writes them in one write and makes them durable."""

    __slots__ = ("_buffer", "_file", "path", "seq")

    def __init__(self, path: Path, seq: int = 0) -> None:
        self.path = path
        new = not path.exists()
        self._file: BinaryIO = open(path, "ab")  # noqa: SIM115 - held open for the daemon's life
        if new:
            fsync_dir(path.parent)
        self.seq = seq
        self._buffer = bytearray()

    def write_header(self, header: dict[str, Any]) -> None:
        self._buffer += _dumps({"kind": "init", "format": JOURNAL_FORMAT, **header})
        self.sync()

    def append(self, record: dict[str, Any]) -> int:
        """Add one request record (not yet written: call :meth:`sync`); returns its seq."""
        self.seq += 1
        self._buffer += _dumps({"kind": "exec", "seq": self.seq, **record})
        return self.seq

    def sync(self) -> None:
        """Write what was appended since the last sync and make it durable (nothing to do if
        nothing was)."""
        if self._buffer:
            self._file.write(self._buffer)
            self._file.flush()
            self._buffer.clear()
            os.fdatasync(self._file.fileno())  # the data and the file size, which is enough

    def close(self) -> None:
        if not self._file.closed:
            self.sync()
            self._file.close()


def read_checkpoint(path: Path) -> dict[str, Any] | None:
    """The last clock checkpoint, or None (missing or unreadable: the journal alone is used)."""
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def write_checkpoint(path: Path, checkpoint: dict[str, Any]) -> None:
    write_atomic(path, _dumps(checkpoint))
