"""Numbers as text a column at a time, and tables of such columns written as delimited lines.

Replay output (``jobs.csv``, ``schedule.swf``) holds a row per job; formatting each number in
Python costs about as much as the replay itself. Here a column is formatted at once: whole
numbers by Arrow's integer-to-string cast, the other values (few in most traces) by Python, so
that the text is exactly what Python's own formatting gives, and the lines are joined by Arrow's
CSV writer. In ``g10`` style a NaN is an empty field (a job that never started).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, Literal, TextIO

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

# ``g10``: ``f"{v:.10g}"`` (jobs.csv); ``repr``: ``str(int(v))`` for whole values, else
# ``repr(v)``, the shortest text that reads back as the same float (SWF)
Style = Literal["g10", "repr"]
# .10g writes whole numbers from 1e10 up with an exponent; below, as integers
_G10_WHOLE_LIMIT = 1e10
_REPR_WHOLE_LIMIT = 2.0**63  # whole floats up to int64 print as integers in both styles


def number_texts(values: npt.ArrayLike, style: Style) -> pa.Array:
    """``values`` (numbers) as strings in ``style`` (``g10``: NaN as null, an empty field)."""
    array = np.asarray(values)
    if array.dtype.kind in "iub":
        return pa.array(array.astype(np.int64, copy=False)).cast(pa.string())
    floats = array.astype(np.float64, copy=False)
    limit = _G10_WHOLE_LIMIT if style == "g10" else _REPR_WHOLE_LIMIT
    with np.errstate(invalid="ignore"):
        whole = (np.abs(floats) < limit) & (floats == np.trunc(floats))
    if style == "g10":
        whole &= ~((floats == 0) & np.signbit(floats))  # .10g writes -0.0 as "-0"
    nan = np.isnan(floats) if style == "g10" else np.zeros(len(floats), dtype=bool)
    texts = pa.array(np.where(whole, floats, 0).astype(np.int64)).cast(pa.string())
    other = ~whole & ~nan
    if other.any():
        pick = floats[other].tolist()
        formatted = [f"{v:.10g}" for v in pick] if style == "g10" else list(map(repr, pick))
        texts = pc.replace_with_mask(texts, pa.array(other), pa.array(formatted, pa.string()))
    if nan.any():
        texts = pc.if_else(pa.array(nan), pa.scalar(None, pa.string()), texts)
    return texts


def lookup_texts(codes: npt.ArrayLike, names: Sequence[str]) -> pa.Array:
    """``names[code]`` for each code (a cluster index, a state code)."""
    return pa.DictionaryArray.from_arrays(
        pa.array(np.asarray(codes).astype(np.int32, copy=False)), pa.array(names, pa.string())
    ).cast(pa.string())


def write_rows(out: TextIO, columns: Sequence[pa.Array | list[Any]], delimiter: str) -> None:
    """One line per row of ``columns`` (equal lengths), fields joined by ``delimiter``,
    unquoted (no field holds the delimiter, a quote or a line break)."""
    if not columns or not len(columns[0]):
        return
    table = pa.table({str(k): column for k, column in enumerate(columns)})
    sink = io.BytesIO()
    options = pa_csv.WriteOptions(include_header=False, delimiter=delimiter, quoting_style="none")
    pa_csv.write_csv(table, sink, options)
    out.write(sink.getvalue().decode("utf-8"))
