"""The Standard Workload Format (Feitelson et al., Parallel Workloads Archive).

Header lines start with ``;`` (``; MaxProcs: 100``); every other line is one job of 18 numbers, -1
meaning unknown. Files may be gzip-compressed (recognised by their magic bytes, not their name).
Reading streams: a million-job trace is never held in memory.
"""

from __future__ import annotations

import gzip
import io
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TextIO

from emulator.model.job import Request, Submission


class SwfError(ValueError):
    """A line that is not a valid SWF job record; the message names the file and line."""


class SwfRecord(NamedTuple):
    """One job line, field by field (numbering as in the SWF definition, 1 to 18).

    A named tuple rather than a dataclass: a million of them are built per replay.
    """

    job_id: int
    submit: float
    wait: float
    run_time: float
    allocated: int
    cpu_time: float
    memory: float
    requested: int
    requested_time: float
    requested_memory: float
    status: int
    user: int
    group: int
    executable: int
    queue: int
    partition: int
    preceding: int
    think_time: float

    @property
    def size(self) -> int:
        """Requested processors if known, else allocated ones."""
        return self.requested if self.requested > 0 else self.allocated

    def line(self) -> str:
        return " ".join(map(_format, self))


_FIELDS = SwfRecord._fields
_INTEGER_FIELDS = {
    "job_id",
    "allocated",
    "requested",
    "status",
    "user",
    "group",
    "executable",
    "queue",
    "partition",
    "preceding",
}
_INTEGER = tuple(name in _INTEGER_FIELDS for name in _FIELDS)


def _format(value: float) -> str:
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return repr(value)  # the shortest text that reads back as the same float


def _number(text: str) -> float:
    try:
        return int(text)
    except ValueError:
        return float(text)


@dataclass(frozen=True, slots=True)
class SwfHeader:
    """The header: its raw lines (kept for writing) and the ``key: value`` pairs they hold."""

    lines: tuple[str, ...] = ()

    def get(self, key: str) -> str | None:
        wanted = key.lower()
        for line in self.lines:
            name, colon, value = line.lstrip(";").partition(":")
            if colon and name.strip().lower() == wanted:
                return value.strip()
        return None

    def get_int(self, key: str) -> int | None:
        value = self.get(key)
        try:
            return int(value.split()[0]) if value else None
        except ValueError:
            return None

    @property
    def max_procs(self) -> int | None:
        return self.get_int("MaxProcs") or self.get_int("MaxNodes")


def open_text(path: str | Path) -> TextIO:
    """Open a text trace, gunzipping it when it starts with gzip's magic bytes."""
    file = Path(path)
    with file.open("rb") as raw:
        magic = raw.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(file, "rb"), encoding="utf-8", errors="replace")
    return file.open(encoding="utf-8", errors="replace")


class SwfTrace:
    """An SWF file: its header, read at once, and its jobs, streamed on each iteration."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        lines = []
        with open_text(self.path) as stream:
            for line in stream:
                if line.startswith(";"):
                    lines.append(line.rstrip("\n"))
                elif line.strip():
                    break
        self.header = SwfHeader(tuple(lines))

    def __iter__(self) -> Iterator[SwfRecord]:
        with open_text(self.path) as stream:
            for number, line in enumerate(stream, 1):
                if line.startswith(";"):
                    continue
                parts = line.split()
                if not parts:
                    continue
                if len(parts) != 18:
                    raise SwfError(f"{self.path}:{number}: expected 18 fields, found {len(parts)}")
                try:
                    values: list[float] = list(map(int, parts))  # the common case: all integers
                except ValueError:
                    values = self._mixed(parts, number, line)
                yield SwfRecord._make(values)

    def _mixed(self, parts: list[str], number: int, line: str) -> list[float]:
        try:
            values = [_number(text) for text in parts]
        except ValueError:
            raise SwfError(f"{self.path}:{number}: non-numeric field in {line!r}") from None
        for value, integer, field in zip(values, _INTEGER, _FIELDS, strict=True):
            if integer and not float(value).is_integer():
                raise SwfError(f"{self.path}:{number}: field {field} must be an integer")
        return [int(v) if i else v for v, i in zip(values, _INTEGER, strict=True)]


def write_swf(path: str | Path, header: SwfHeader, records: Iterable[SwfRecord]) -> int:
    """Write a trace (plain text); returns the number of job lines written."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as out:
        for line in header.lines:
            out.write(line + "\n")
        for record in records:
            out.write(record.line() + "\n")
            count += 1
    return count


@dataclass(slots=True)
class Dropped:
    """Jobs left out of a replay, by rule."""

    no_runtime: int = 0
    no_size: int = 0
    too_large: int = 0

    @property
    def total(self) -> int:
        return self.no_runtime + self.no_size + self.too_large


def submissions(
    records: Iterable[SwfRecord], max_cores: int, dropped: Dropped
) -> Iterator[Submission]:
    """Replay semantics: SWF jobs as submissions of single-core tasks.

    size = requested processors if > 0 else allocated; runtime = field 4; limit = requested time if
    > 0 else the runtime. Jobs with runtime <= 0, size <= 0 or size > ``max_cores`` are counted in
    ``dropped`` and skipped. Users become ``u<N>`` after the SWF user number.
    """
    users: dict[int, str] = {}
    for record in records:
        size = record.requested if record.requested > 0 else record.allocated
        runtime = record.run_time
        if runtime <= 0:
            dropped.no_runtime += 1
        elif size <= 0:
            dropped.no_size += 1
        elif size > max_cores:
            dropped.too_large += 1
        else:
            user = users.get(record.user)
            if user is None:
                user = users[record.user] = f"u{record.user}"
            limit = record.requested_time if record.requested_time > 0 else runtime
            request = Request(tasks=size, time_limit=limit, name=f"swf{record.job_id}", user=user)
            yield Submission(record.job_id, record.submit, request, runtime)


def replayed(
    records: Iterable[SwfRecord], times: dict[int, tuple[float, float]]
) -> Iterator[SwfRecord]:
    """The records of replayed jobs with wait (field 3) and run time (field 4) as replayed.

    ``times`` maps job ids to ``(start, end)``; jobs absent from it (dropped) are left out.
    """
    for record in records:
        found = times.get(record.job_id)
        if found is not None and not math.isnan(found[0]):
            start, end = found
            yield record._replace(wait=start - record.submit, run_time=end - start)
