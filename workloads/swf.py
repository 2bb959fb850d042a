"""The Standard Workload Format (Feitelson et al., Parallel Workloads Archive).

Header lines start with ``;`` (``; MaxProcs: 100``); every other line is one job of 18 numbers, -1
meaning unknown (extended records carry more fields after them: see :class:`SwfTrace`). Files
may be gzip-compressed (recognised by their magic bytes, not their name). Reading streams: a
million-job trace is never held in memory.
"""

from __future__ import annotations

import gzip
import io
import math
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

import numpy as np
import numpy.typing as npt

from emulator.model.job import Request, Submission

if TYPE_CHECKING:
    import pyarrow as pa


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


STANDARD_FIELDS = 18
_RECORDS_PER_WRITE = 1 << 16  # records formatted at once by write_swf: memory stays bounded
_NODE_SPEC_FIELD = 21  # Alea's extended SWF: the node specification, with cl_NAME properties


def _named_cluster(spec: str) -> str:
    """The cluster a node specification asks for (its first ``cl_NAME`` property), or ""."""
    for item in spec.split(":"):
        if item.startswith("cl_"):
            return item[3:]
    return ""


# what a gzip stream cut short or corrupted raises while it is read
_BROKEN = (EOFError, gzip.BadGzipFile, zlib.error)


class SwfTrace:
    """An SWF file: its header, read at once, and its jobs, streamed on each iteration.

    A line of more than 18 fields is an extended record, as Alea's MetaCentrum traces write
    (21 fields; Alea's ``WorkloadReaderSWF`` reads field 20 as the queue name and field 21 as the
    node specification, a ``:``-separated list such as ``1:ppn=4:cl_zewura`` where ``cl_NAME``
    asks for cluster NAME). Iterating yields the 18 standard fields; :attr:`fields` is the first
    job line's field count, so that a front end can say once that the rest is ignored,
    :meth:`placed` also yields the cluster each record names, and :meth:`tails` the text after
    field 18, which :func:`write_swf` carries back into the replayed trace.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        lines = []
        self.fields = STANDARD_FIELDS
        try:
            with open_text(self.path) as stream:
                for line in stream:
                    if line.startswith(";"):
                        lines.append(line.rstrip("\n"))
                    elif line.strip():
                        self.fields = len(line.split())
                        break
        except _BROKEN as error:
            raise self._broken(error) from None
        self.header = SwfHeader(tuple(lines))

    def _broken(self, error: Exception) -> SwfError:
        return SwfError(f"{self.path}: cannot read: truncated or corrupt gzip data ({error})")

    def __iter__(self) -> Iterator[SwfRecord]:
        for record, _ in self._read(with_cluster=False):
            yield record

    def placed(self) -> Iterator[tuple[SwfRecord, str]]:
        """Each record with the cluster its extended field 21 names (``cl_NAME``; "" if none)."""
        return self._read(with_cluster=True)

    def tails(self) -> Iterator[str]:
        """The text after field 18 of each job line, as written ("" when there is none), in
        step with iterating: the fields batchlab reads past (Alea's queue and node spec)."""
        try:
            with open_text(self.path) as stream:
                for line in stream:
                    if not line.startswith(";") and not line.isspace():
                        parts = line.split(maxsplit=STANDARD_FIELDS)
                        tail = parts[STANDARD_FIELDS] if len(parts) > STANDARD_FIELDS else ""
                        yield tail.rstrip()
        except _BROKEN as error:
            raise self._broken(error) from None

    def _read(self, with_cluster: bool) -> Iterator[tuple[SwfRecord, str]]:
        try:
            yield from self._records(with_cluster)
        except _BROKEN as error:
            raise self._broken(error) from None

    def _records(self, with_cluster: bool) -> Iterator[tuple[SwfRecord, str]]:
        with open_text(self.path) as stream:
            for number, line in enumerate(stream, 1):
                if line.startswith(";"):
                    continue
                parts = line.split()
                if not parts:
                    continue
                cluster = ""
                if len(parts) != STANDARD_FIELDS:
                    if len(parts) < STANDARD_FIELDS:
                        raise SwfError(
                            f"{self.path}:{number}: expected 18 fields, found {len(parts)}"
                        )
                    if with_cluster and len(parts) >= _NODE_SPEC_FIELD:
                        cluster = _named_cluster(parts[_NODE_SPEC_FIELD - 1])
                    del parts[STANDARD_FIELDS:]
                try:
                    values: list[float] = list(map(int, parts))  # the common case: all integers
                except ValueError:
                    values = self._mixed(parts, number, line)
                yield SwfRecord._make(values), cluster

    def _mixed(self, parts: list[str], number: int, line: str) -> list[float]:
        try:
            values = [_number(text) for text in parts]
        except ValueError:
            raise SwfError(f"{self.path}:{number}: non-numeric field in {line!r}") from None
        for value, integer, field in zip(values, _INTEGER, _FIELDS, strict=True):
            if not math.isfinite(value):  # nan, inf, 1e400: no time or count
                raise SwfError(f"{self.path}:{number}: field {field} is not a finite number")
            if integer and not float(value).is_integer():
                raise SwfError(f"{self.path}:{number}: field {field} must be an integer")
        return [int(v) if i else v for v, i in zip(values, _INTEGER, strict=True)]


@dataclass(frozen=True, slots=True)
class Replayed:
    """When each replayed job started and ended: three columns, by job id (ascending)."""

    ids: npt.NDArray[np.int64]
    start: npt.NDArray[np.float64]
    end: npt.NDArray[np.float64]

    @classmethod
    def of(cls, times: Mapping[int, tuple[float, float]]) -> Replayed:
        """From ``{job id: (start, end)}``."""
        ids = sorted(times)
        return cls(
            np.array(ids, dtype=np.int64),
            np.array([times[i][0] for i in ids], dtype=np.float64),
            np.array([times[i][1] for i in ids], dtype=np.float64),
        )


def write_swf(
    path: str | Path,
    header: SwfHeader,
    records: Iterable[SwfRecord],
    replayed: Replayed | None = None,
    tails: Iterable[str] | None = None,
) -> int:
    """Write a trace (plain text); returns the number of job lines written.

    With ``replayed``, the trace as replayed (``schedule.swf``): only the jobs that started
    (the dropped left out), with wait (field 3) and run time (field 4) as replayed, every other
    field the trace's. ``tails`` (:meth:`SwfTrace.tails`, in step with ``records``) ends each
    line with the extended fields its record was read from, so that an extended trace replays
    to an extended trace. Each field reads as :meth:`SwfRecord.line` writes it; the lines are
    made a block of records at a time (:mod:`emulator.text_columns`), several times faster
    than one at a time.
    """
    from emulator.text_columns import number_texts, write_rows  # (Arrow)

    count = 0
    source = iter(records)
    extended = iter(tails) if tails is not None else None
    with Path(path).open("w", encoding="utf-8") as out:
        for line in header.lines:
            out.write(line + "\n")
        while block := list(islice(source, _RECORDS_PER_WRITE)):
            # a block as one float matrix: a C loop over the values (SWF's integers are far
            # below 2**53, so exact), one field per row of its transpose
            values = np.fromiter(chain.from_iterable(block), np.float64, len(block) * 18)
            fields = list(np.ascontiguousarray(values.reshape(-1, 18).T))
            if extended is not None:
                fields.append(np.array(list(islice(extended, len(block))), dtype=object))
            if replayed is not None:
                fields = _as_replayed(fields, replayed)
            texts = [number_texts(field, "repr") for field in fields[:STANDARD_FIELDS]]
            if extended is None:
                write_rows(out, texts, " ")
            else:  # (Arrow's writer refuses a field holding its delimiter, as a tail does)
                out.writelines(line + "\n" for line in _with_tails(texts, fields[-1]))
            count += len(fields[0])
    return count


def _with_tails(texts: list[pa.Array], tails: npt.NDArray[Any]) -> list[str]:
    """The lines: the 18 fields' texts, then the record's extended fields if it had any."""
    import pyarrow as pa
    import pyarrow.compute as pc

    standard = pc.binary_join_element_wise(*texts, " ")
    tail_texts = pa.array(tails, pa.string())
    extended = pc.binary_join_element_wise(standard, tail_texts, " ")
    lines: list[str] = pc.if_else(pc.equal(tail_texts, ""), standard, extended).to_pylist()
    return lines


def _as_replayed(fields: list[npt.NDArray[Any]], replayed: Replayed) -> list[npt.NDArray[Any]]:
    """A block's columns (the 18 fields, then any others), kept to the jobs that started,
    with their replayed wait and run."""
    ids = fields[0]
    if not len(replayed.ids):  # every job dropped: nothing to look up, nothing to write
        return [field[:0] for field in fields]
    at = np.searchsorted(replayed.ids, ids).clip(max=len(replayed.ids) - 1)
    found = replayed.ids[at] == ids
    start, end = replayed.start[at], replayed.end[at]
    keep = found & ~np.isnan(start)
    kept = [field[keep] for field in fields]
    kept[2] = start[keep] - kept[1]  # wait
    kept[3] = end[keep] - start[keep]  # run time
    return kept


@dataclass(slots=True)
class Dropped:
    """Jobs left out of a replay, by rule."""

    no_runtime: int = 0
    no_size: int = 0
    too_large: int = 0
    no_cluster: int = 0  # placed by the trace, which names no cluster of the platform

    @property
    def total(self) -> int:
        return self.no_runtime + self.no_size + self.too_large + self.no_cluster

    def as_dict(self) -> dict[str, int]:
        """The counts as ``summary.json`` names them (``dropped_<rule>``)."""
        return {
            "dropped_no_runtime": self.no_runtime,
            "dropped_no_size": self.no_size,
            "dropped_too_large": self.too_large,
            "dropped_no_cluster": self.no_cluster,
        }


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
            yield _submission(record, size, users, ())


def placed_submissions(
    records: Iterable[tuple[SwfRecord, str]], clusters: Sequence[tuple[str, int]], dropped: Dropped
) -> Iterator[Submission]:
    """:func:`submissions` with each job bound to the cluster its trace names (``--place trace``).

    ``records`` pairs each record with the cluster its extended field names (""; see
    :meth:`SwfTrace.placed`); ``clusters`` are the platform's (name, cores) in order. The
    cluster is the one named, else the partition field's (partition N is the platform's N-th
    cluster, counting from 1, as SWF numbers partitions from 1). A job naming no cluster of the
    platform is counted in ``dropped.no_cluster``, one larger than its cluster in ``too_large``.
    """
    cores = dict(clusters)
    users: dict[int, str] = {}
    for record, named in records:
        size = record.requested if record.requested > 0 else record.allocated
        if not named and 1 <= record.partition <= len(clusters):
            named = clusters[record.partition - 1][0]
        if record.run_time <= 0:
            dropped.no_runtime += 1
        elif size <= 0:
            dropped.no_size += 1
        elif named not in cores:
            dropped.no_cluster += 1
        elif size > cores[named]:
            dropped.too_large += 1
        else:
            yield _submission(record, size, users, (named,))


def _submission(
    record: SwfRecord, size: int, users: dict[int, str], clusters: tuple[str, ...]
) -> Submission:
    user = users.get(record.user)
    if user is None:
        user = users[record.user] = f"u{record.user}"
    runtime = record.run_time
    limit = record.requested_time if record.requested_time > 0 else runtime
    request = Request(
        tasks=size, time_limit=limit, name=f"swf{record.job_id}", user=user, clusters=clusters
    )
    return Submission(record.job_id, record.submit, request, runtime)
