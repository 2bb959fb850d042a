"""Column-at-a-time number formatting against formatting each value in Python (the oracle)."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.text_columns import lookup_texts, number_texts, write_rows


def g10(value: float) -> str:
    """jobs.csv's formatting of a time (an empty field for a job that never started)."""
    return "" if math.isnan(value) else f"{value:.10g}"


def swf(value: float) -> str:
    """SWF's formatting: whole values as integers, others the shortest text reading back."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def texts(values: list[float], style: str) -> list[str]:
    out = io.StringIO()
    write_rows(out, [number_texts(np.array(values, dtype=np.float64), style)], ",")  # type: ignore[arg-type]
    return out.getvalue().splitlines()


EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-05,
    123456.789,
    9999999999.0,
    1e10,
    1e15 + 0.5,
    2.0**53,
    1 / 3,
    -2.5,
    3e7,
    math.inf,
    -math.inf,
]
FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**40), 2**40).map(float),
    st.integers(0, 10**9).map(lambda n: n / 4),
)


def test_edges_read_as_python_writes_them() -> None:
    assert texts([*EDGES, math.nan], "g10") == [g10(v) for v in [*EDGES, math.nan]]
    assert texts(EDGES, "repr") == [swf(v) for v in EDGES]


@given(st.lists(FLOATS, min_size=1, max_size=50))
def test_g10_matches_python(values: list[float]) -> None:
    assert texts(values, "g10") == [g10(v) for v in values]


@given(st.lists(FLOATS.filter(lambda v: not math.isnan(v) and abs(v) < 2.0**63), min_size=1))
def test_repr_matches_python(values: list[float]) -> None:
    assert texts(values, "repr") == [swf(v) for v in values]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integers(dtype: type) -> None:
    values = np.array([0, -1, 7, 100], dtype=dtype)
    assert [t.as_py() for t in number_texts(values, "g10")] == ["0", "-1", "7", "100"]


def test_rows_and_lookups() -> None:
    out = io.StringIO()
    names = lookup_texts(np.array([1, 0, 2]), ["north", "east", ""])
    write_rows(out, [number_texts(np.array([3, 1, 2]), "g10"), names, ["a b", "c", "d"]], ",")
    assert out.getvalue() == "3,east,a b\n1,north,c\n2,,d\n"
    write_rows(out, [number_texts(np.array([], dtype=np.int64), "g10")], ",")  # no rows
    assert out.getvalue().count("\n") == 3
