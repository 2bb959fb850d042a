"""Aggregating a sweep's rows over seeds (and any parameter not asked for): mean and the 95 %
confidence interval of the mean, the figures every table, plot and paper comparison shows.

The interval is Student's t (two-sided 95 %) on the sample standard deviation, the usual choice
for a handful of seeds; with one value there is no interval. Only cells with status ``ok`` are
aggregated; a report lists the failed ones separately.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Row = Mapping[str, Any]

#: Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (above: the normal's).
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Estimate:
    """The mean of ``count`` values and the half-width of its 95 % confidence interval
    (``nan`` when there is a single value)."""

    mean: float
    half_width: float
    count: int

    def __str__(self) -> str:
        if math.isnan(self.half_width):
            return number(self.mean)
        return f"{number(self.mean)} ± {number(self.half_width)}"


def estimate(values: Sequence[float]) -> Estimate:
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return Estimate(math.nan, math.nan, 0)
    mean = statistics.fmean(finite)
    if len(finite) < 2:
        return Estimate(mean, math.nan, 1)
    t = _T95[len(finite) - 2] if len(finite) - 1 <= len(_T95) else 1.960
    return Estimate(mean, t * statistics.stdev(finite) / math.sqrt(len(finite)), len(finite))


def is_numeric(values: Iterable[object]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in present
    )


def summary(values: Sequence[object]) -> str:
    """A table cell: mean ± CI for numbers, the distinct values (in order) for anything else."""
    present = [v for v in values if v is not None]
    if not present:
        return "–"
    if is_numeric(present):
        return str(estimate([float(v) for v in present if isinstance(v, int | float)]))
    distinct = list(dict.fromkeys(str(v) for v in present))
    return " / ".join(distinct)


def group(rows: Iterable[Row], keys: Sequence[str]) -> dict[tuple[Any, ...], list[Row]]:
    """Rows by the values of ``keys``, groups in order of first appearance (the spec's order)."""
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k) for k in keys), []).append(row)
    return groups


def number(value: float) -> str:
    """Two decimals from 1 up, four significant digits below (solve times, ratios, gaps)."""
    if math.isnan(value):
        return "nan"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.4g}"


def sort_key(value: object) -> tuple[int, float, str]:
    """Numbers before text, numbers by value: the order of an x axis."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))
