"""A spec's ``[[plot]]`` drawn with matplotlib (Agg: no display, the same on every machine).

Each (series, metric) pair is one line or one member of a bar group; a point is the mean over
every ok cell with that x value (seeds and the parameters the plot does not name), with its
95 % confidence interval as an error bar when there are several.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from emulator.sweep.aggregate import Estimate, Row, estimate, group, sort_key
from emulator.sweep.model import PlotKind, PlotSpec

COLORS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
)  # fmt: skip


def draw(plot: PlotSpec, rows: Sequence[Row], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    xs = sorted({row[plot.x] for row in rows}, key=sort_key)
    series = group(rows, plot.series)
    figure, axis = pyplot.subplots(figsize=(9, 5.2), dpi=100)
    lines = [(name, metric, axis) for name in series for metric in plot.y]
    right = axis.twinx() if plot.right else None
    if right is not None:
        lines += [(name, metric, right) for name in series for metric in plot.right]
    width = 0.8 / max(len(lines), 1)
    for number, (name, metric, target) in enumerate(lines):
        points = _points(series[name], plot.x, metric, xs)
        label = _label(plot.series, name, metric, len(plot.y) + len(plot.right) > 1)
        color = COLORS[number % len(COLORS)]
        means = [p.mean for p in points]
        spread = [0.0 if p.count < 2 else p.half_width for p in points]
        errors = spread if any(spread) else None  # one seed: no error bars, not flat ones
        if plot.kind is PlotKind.BAR:
            positions = [i - 0.4 + width * (number + 0.5) for i in range(len(xs))]
            target.bar(positions, means, width, yerr=errors, label=label, color=color, capsize=2)
        else:
            positions = list(range(len(xs)))
            target.errorbar(
                positions,
                means,
                yerr=errors,
                label=label,
                color=color,
                marker="o",
                capsize=3,
                linestyle="--" if target is right else "-",
            )
    axis.set_xticks(range(len(xs)), [str(x) for x in xs])
    axis.set_xlabel(plot.x_label)
    axis.set_ylabel(plot.y_label or ", ".join(plot.y))
    if plot.log_y:
        axis.set_yscale("log")
    if right is not None:
        right.set_ylabel(plot.right_label or ", ".join(plot.right))
        if plot.log_right:
            right.set_yscale("log")
    axis.grid(True, axis="y", color="#dddddd")
    axis.set_title(plot.title)
    handles, labels = axis.get_legend_handles_labels()
    if right is not None:
        more = right.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    if labels:
        axis.legend(handles, labels, fontsize=8, loc="best")
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})
    pyplot.close(figure)


def _points(rows: Sequence[Row], x: str, metric: str, xs: Sequence[Any]) -> list[Estimate]:
    by_x = group(rows, (x,))
    return [
        estimate([float(r[metric]) for r in by_x.get((value,), []) if r.get(metric) is not None])
        for value in xs
    ]


def _label(keys: Sequence[str], values: tuple[Any, ...], metric: str, many: bool) -> str:
    parts = [f"{k}={v}" for k, v in zip(keys, values, strict=True)]
    if many or not parts:
        parts.append(metric)
    return ", ".join(parts)
