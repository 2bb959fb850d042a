"""The daemon's journal: every accepted mutating request, fsync'd before it is answered.

``journal.jsonl`` holds one JSON object per line. The first is the header (``kind: "init"``:
format, handler, scheduler, the platform file's digest); each later line is one request
(``kind: "exec"``: ``seq``, the simulated time ``t`` it took effect, ``user``, ``argv``, the
``env`` subset, ``stdin``, ``cwd``, the batch ``script`` text, and the ``exit_code`` and
``stdout`` it produced); a ``kind: "clock"`` line records the simulated time ``t`` that an
answer was about to show (see :meth:`Journal.clock`). Lines are written whole and the daemon
answers only after ``fsync``, so a last line without its newline (a crash mid-write) was never
acknowledged: recovery keeps it if it is a whole record and drops it otherwise, and says so in
the log (:class:`Tail`). A damaged line anywhere else stops recovery with an error instead of
guessing.

Group commit: the records of one turn of the daemon's loop go to the file in one write, and one
``fdatasync`` makes them all durable before any of that turn's answers leaves.

``clock.json`` (replaced atomically) remembers the simulated time and the pace between requests.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Tail:
    """What follows the journal's last whole line: a record that lacks only its newline
    (``complete``: kept) or a torn one (dropped). Either way it was never acknowledged: the
    daemon answers only once the whole line, newline included, is durable."""

    line: int  # its line number
    size: int  # its bytes
    offset: int  # where it starts
    complete: bool
    seq: int | None  # the request it held, when that much of it was written

    def describe(self, path: Path) -> str:
        what = "request" if self.seq is None else f"request {self.seq}"
        if self.complete:
            return (
                f"{path}:{self.line}: the last record ({what}) lacks its newline: kept "
                "(it had not been acknowledged)"
            )
        return (
            f"{path}:{self.line}: torn last record ({what}, {self.size} bytes) dropped: it had "
            "not been acknowledged"
        )


_SEQ = re.compile(rb'"seq":(\d+)')


class JournalReader:
    """The journal's records in order, read without changing the file: a daemon that fails to
    start leaves its state dir as it was. After a good start, :meth:`repair` cuts a torn tail
    (or ends a complete last record with its newline) so that appends follow whole lines.

    Any bad line but the last raises :class:`JournalError`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tail: Tail | None = None  # known once the records have been read

    def __iter__(self) -> Iterator[dict[str, Any]]:
        offset = 0
        with open(self.path, "rb") as file:
            for number, line in enumerate(file, 1):
                record: Any = None
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                whole = line.endswith(b"\n")
                if not isinstance(record, dict) or not whole:
                    if file.read(1):  # something follows: not a torn tail but damage
                        raise JournalError(f"{self.path}:{number}: damaged journal line")
                    seq = _SEQ.search(line)
                    complete = isinstance(record, dict)
                    self.tail = Tail(
                        number, len(line), offset, complete, int(seq[1]) if seq else None
                    )
                    if complete:
                        yield record
                    return
                offset += len(line)
                yield record

    def repair(self) -> None:
        """Make the file end with a whole line (nothing to do if it does)."""
        tail = self.tail
        if tail is None:
            return
        with open(self.path, "r+b") as file:
            if tail.complete:
                file.seek(0, os.SEEK_END)
                file.write(b"\n")
            else:
                file.truncate(tail.offset)
            file.flush()
            os.fsync(file.fileno())
        self.tail = None


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

    def clock(self, t: float) -> None:
        """Record that simulated time has reached ``t`` (not yet written: call :meth:`sync`).
        Written before any answer that shows a time later than the journal's last record, so a
        restart never shows an earlier time, nor a job in a state it had left by then."""
        self._buffer += _dumps({"kind": "clock", "t": t})

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
