"""The snapshot wire format: a :class:`~emulator.session.Snapshot` (or a
:class:`~emulator.model.platform.Platform`) as one JSON header and one binary payload, for
``batchlab gui --socket``.

No pickle: a shared daemon serves other users, and decoding must never run code. The format
follows the classes' type annotations, so a field added to a snapshot class travels without a
change here:

- ``int``, ``str``, ``bool``: JSON values; ``float``: a JSON number, or ``"inf"``, ``"-inf"``,
  ``"nan"``; ``X | None``: ``null`` or ``X``;
- numpy arrays: ``[dtype, shape, offset]`` into the payload (raw bytes, 8-byte aligned; the
  dtype must be the annotated one); decoded as read-only views of the payload, without a copy;
- ``tuple[str, ...]``: ``{"sep": S, "text": the strings joined by S, "count": N}``, where the
  separator S is a character none of the strings holds;
  ``tuple[int, ...]``, ``tuple[float, ...]``: an int64 or float64 array;
  ``tuple[tuple[int, ...], ...]``: ``{"flat": int64 array, "ends": int64 array}``;
- dataclasses: an object of their init fields; a tuple of them: a list; a tuple of named tuples
  (the event log): one column per field;
- :class:`~emulator.session.NodeLists`: nothing (the receiver makes its own from the platform).
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Sequence
from functools import cache
from itertools import accumulate, chain
from typing import Any, Final, TypeVar, Union, get_args, get_origin, get_type_hints

import numpy as np
import numpy.typing as npt

from emulator.model.platform import Platform
from emulator.occupancy import Placements
from emulator.session import (
    NodeLists,
    NodeOut,
    Session,
    SmallIntArray,
    Snapshot,
)

__all__ = ["NodesUpdate", "SnapshotFormatError", "decode", "decode_snapshot", "encode"]

T = TypeVar("T")
_SPECIAL: Final = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
# separators for joined strings, tried in order: printable ones (JSON does not escape them), then
# ASCII's unit to file separators and the private use area
_SEPARATORS: Final = "~^`|\x1f\x1e\x1d\x1c" + "".join(map(chr, range(0xE000, 0xF900)))


class SnapshotFormatError(ValueError):
    """A header or payload that does not describe a value of the expected class."""


@dataclasses.dataclass(frozen=True, slots=True)
class NodesNow:
    """What changes of a cluster's nodes: the columns of its :class:`ClusterSnapshot` that
    are not fixed by the platform, but the job each node shows (the receiver places the jobs
    itself, from :class:`~emulator.occupancy.Placements`)."""

    free: SmallIntArray
    out_of_service: tuple[NodeOut, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class NodesUpdate:
    """The nodes alone, what the Nodes view draws most frames (``snapshot`` with ``nodes``),
    without what the receiver has from the platform (names, speeds, cores): about a
    hundredth of a snapshot on a big platform, whose job table fills it. ``version`` is the
    one a snapshot taken now would carry. The job each node shows the receiver works out
    from ``placements``, those of the jobs that started or ended since the version it holds
    (``since``; all running jobs if it holds none): the windows place the jobs, which costs
    more than recording the placements, so the daemon, which every window waits for, only
    records them."""

    version: int
    now: float
    idle: bool
    clusters: tuple[NodesNow, ...]
    placements: Placements

    @classmethod
    def of(cls, session: Session, since: int | None) -> NodesUpdate:
        """The nodes of ``session`` (whose placements are exported: see
        :meth:`Session.export_placements <emulator.session.Session.export_placements>`)."""
        clusters = tuple(NodesNow(c.free, c.out_of_service) for c in session.nodes_snapshot())
        placements = session.placements_since(since)
        return cls(session.version, session.now, session.idle, clusters, placements)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _fields(cls: type) -> list[str]:
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if f.init]
    return list(cls._fields)  # type: ignore[attr-defined]


def _is_record(hint: Any) -> bool:
    """A dataclass or a named tuple: encoded field by field."""
    return isinstance(hint, type) and (
        dataclasses.is_dataclass(hint) or (issubclass(hint, tuple) and hasattr(hint, "_fields"))
    )


def _optional(hint: Any) -> Any | None:
    """``X`` for an annotation ``X | None``, else None."""
    if get_origin(hint) in (Union, types.UnionType):
        rest = [arg for arg in get_args(hint) if arg is not type(None)]
        if len(rest) == 1 and len(get_args(hint)) == 2:
            return rest[0]
    return None


def _array_dtype(hint: Any) -> np.dtype[Any] | None:
    """The dtype of an ``npt.NDArray[...]`` annotation, None for any other annotation."""
    if get_origin(hint) is not np.ndarray:
        return None
    dtype: np.dtype[Any] = np.dtype(get_args(get_args(hint)[1])[0])
    return dtype


# --- encoding ------------------------------------------------------------------------------------


class _Payload:
    """The binary part, built as arrays are added."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0

    def array(self, values: npt.NDArray[Any]) -> list[Any]:
        data = np.ascontiguousarray(values)
        pad = -self.size % 8
        if pad:
            self.chunks.append(bytes(pad))
            self.size += pad
        offset = self.size
        raw = data.tobytes()
        self.chunks.append(raw)
        self.size += len(raw)
        return [data.dtype.str, list(data.shape), offset]

    def ends(self, lengths: Sequence[int] | Any, count: int) -> list[Any]:
        return self.array(np.fromiter(accumulate(lengths), np.int64, count))


def encode(value: Any) -> tuple[dict[str, Any], bytes]:
    """``value`` (a snapshot, a platform: an instance of an annotated dataclass) as a JSON-able
    header and the payload its arrays point into."""
    payload = _Payload()
    header = _encode_record(value, type(value), payload)
    return header, b"".join(payload.chunks)


def _encode_record(value: Any, cls: type, payload: _Payload) -> dict[str, Any]:
    hints = _hints(cls)
    return {name: _encode(getattr(value, name), hints[name], payload) for name in _fields(cls)}


def _encode(value: Any, hint: Any, payload: _Payload) -> Any:
    inner = _optional(hint)
    if inner is not None:
        return None if value is None else _encode(value, inner, payload)
    if hint is float:
        number = float(value)
        return number if math.isfinite(number) else str(number)
    if hint in (int, str, bool):
        return value
    if hint is NodeLists:
        return None
    if _array_dtype(hint) is not None:
        return payload.array(value)
    if _is_record(hint):
        return _encode_record(value, hint, payload)
    if get_origin(hint) is tuple:
        return _encode_tuple(value, get_args(hint)[0], payload)
    raise TypeError(f"the snapshot format has no encoding for {hint!r}")


def _encode_tuple(values: Sequence[Any], item: Any, payload: _Payload) -> Any:
    count = len(values)
    if item is str:
        for sep in _SEPARATORS:
            text = sep.join(values)
            if text.count(sep) == max(count - 1, 0):
                return {"sep": sep, "text": text, "count": count}
        raise ValueError("no separator is free: the strings use every one")
    if item in (int, float):
        return payload.array(np.array(values, np.int64 if item is int else np.float64))
    if get_origin(item) is tuple and get_args(item)[0] is int:
        flat = np.fromiter(chain.from_iterable(values), np.int64)
        return {"flat": payload.array(flat), "ends": payload.ends(map(len, values), count)}
    if _is_record(item) and not dataclasses.is_dataclass(item):  # named tuples: by column
        hints = _hints(item)
        columns = list(zip(*values, strict=True)) if values else [() for _ in item._fields]
        return {
            name: _encode_tuple(column, hints[name], payload)
            for name, column in zip(item._fields, columns, strict=True)
        }
    if _is_record(item):
        return [_encode_record(value, item, payload) for value in values]
    raise TypeError(f"the snapshot format has no encoding for tuple[{item!r}, ...]")


# --- decoding ------------------------------------------------------------------------------------


def decode(cls: type[T], header: Any, payload: bytes, **given: Any) -> T:
    """The ``cls`` instance ``header`` and ``payload`` describe; ``given`` supplies fields the
    format leaves out (a snapshot's ``nodelist``). Raises :class:`SnapshotFormatError`."""
    try:
        return _decode_record(cls, header, payload, given)  # type: ignore[no-any-return]
    except SnapshotFormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as problem:
        raise SnapshotFormatError(f"malformed {cls.__name__}: {problem!r}") from None


def decode_snapshot(header: Any, payload: bytes, platform: Platform) -> Snapshot:
    """A snapshot of ``platform`` (its ``nodelist`` made here)."""
    return decode(Snapshot, header, payload, nodelist=NodeLists(platform))


def _decode_record(cls: type, header: Any, payload: bytes, given: dict[str, Any]) -> Any:
    if not isinstance(header, dict):
        raise SnapshotFormatError(f"{cls.__name__}: expected an object")
    hints = _hints(cls)
    values = {
        name: given[name] if name in given else _decode(header[name], hints[name], payload)
        for name in _fields(cls)
    }
    return cls(**values)


def _decode(value: Any, hint: Any, payload: bytes) -> Any:
    inner = _optional(hint)
    if inner is not None:
        return None if value is None else _decode(value, inner, payload)
    if hint is float:
        if isinstance(value, str):
            return _SPECIAL[value]
        return float(_check(value, (int, float)))
    if hint in (int, str, bool):
        return _check(value, (hint,))
    dtype = _array_dtype(hint)
    if dtype is not None:
        return _array(value, payload, dtype)
    if _is_record(hint):
        return _decode_record(hint, value, payload, {})
    if get_origin(hint) is tuple:
        return _decode_tuple(value, get_args(hint)[0], payload)
    raise TypeError(f"the snapshot format has no decoding for {hint!r}")


def _check(value: Any, kinds: tuple[type, ...]) -> Any:
    if type(value) not in kinds:
        raise SnapshotFormatError(f"expected {' or '.join(k.__name__ for k in kinds)}: {value!r}")
    return value


def _array(spec: Any, payload: bytes, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    kind, shape, offset = spec
    if np.dtype(_check(kind, (str,))) != dtype:
        raise SnapshotFormatError(f"array of {kind}, expected {dtype.str}")
    shape = tuple(_check(size, (int,)) for size in shape)
    count = math.prod(shape)
    if min(shape, default=0) < 0 or not 0 <= offset <= len(payload) - count * dtype.itemsize:
        raise SnapshotFormatError(f"array {shape} at {offset} is outside the payload")
    return np.frombuffer(payload, dtype, count, offset).reshape(shape)


def _slices(ends: npt.NDArray[np.int64]) -> map[slice]:
    stops = ends.tolist()
    return map(slice, [0, *stops[:-1]], stops)


def _decode_tuple(value: Any, item: Any, payload: bytes) -> tuple[Any, ...]:
    if item is str:
        text, sep, count = value["text"], value["sep"], value["count"]
        strings = tuple(_check(text, (str,)).split(sep)) if count else ()
        if len(_check(sep, (str,))) != 1 or len(strings) != count:
            raise SnapshotFormatError(f"{count} strings expected, {len(strings)} found")
        return strings
    if item in (int, float):
        return tuple(_array(value, payload, _INT if item is int else _FLOAT).tolist())
    if get_origin(item) is tuple and get_args(item)[0] is int:
        flat = _array(value["flat"], payload, _INT).tolist()
        ends = _array(value["ends"], payload, _INT)
        return tuple(map(tuple, map(flat.__getitem__, _slices(ends))))
    if _is_record(item) and not dataclasses.is_dataclass(item):
        hints = _hints(item)
        columns = [_decode_tuple(value[name], hints[name], payload) for name in item._fields]
        if len({len(column) for column in columns}) > 1:
            raise SnapshotFormatError(f"{item.__name__}: columns of different lengths")
        return tuple(map(item._make, zip(*columns, strict=True)))
    if _is_record(item):
        return tuple(_decode_record(item, entry, payload, {}) for entry in _check(value, (list,)))
    raise TypeError(f"the snapshot format has no decoding for tuple[{item!r}, ...]")


_INT: Final = np.dtype(np.int64)
_FLOAT: Final = np.dtype(np.float64)
