"""``batchlab report DIR``: ``DIR/report.md`` and the spec's plots from a sweep directory.

The spec comes from ``DIR/provenance.json`` (the text the sweep ran, not the file as it may be
now), the numbers from ``DIR/results.parquet``. The report says what is ours and what is the
paper's: the paper's claims are quoted under its citation, its published figures sit beside our
means with the ratio ours / paper, and everything else is what the cells measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from emulator.sweep import provenance
from emulator.sweep.aggregate import Row, estimate, group, number, summary
from emulator.sweep.model import RESERVED, Paper, SweepSpec, TableSpec
from emulator.sweep.plots import draw
from emulator.sweep.spec import parse_spec
from emulator.sweep.store import Status, StoreError, read_results

REPORT = "report.md"
FAILED_SHOWN = 20


class ReportError(ValueError):
    """A spec's table, plot or paper figure that names a metric no cell produced."""


def write_report(directory: Path) -> Path:
    """Write ``DIR/report.md`` and the plots next to it; returns the report's path."""
    recorded = provenance.load(directory)
    if not recorded:
        raise StoreError(f"{directory}: no provenance.json (not a batchlab sweep directory?)")
    spec = parse_spec(recorded["spec"], Path(recorded["spec_path"]))
    rows: list[Row] = read_results(directory).to_pylist()
    ok = [row for row in rows if row["status"] == Status.OK.value]
    if ok:  # with no finished cell there is no metric to check, only failures to list
        _check_metrics(spec, [name for name in rows[0] if name not in _columns(spec)])
    lines = [f"# {spec.title}", ""]
    if spec.description:
        lines += [spec.description.strip(), ""]
    lines += _overview(spec, rows, ok, recorded)
    for table in spec.tables:
        lines += _table(table, [r for r in ok if table.where.matches(r)])
    for plot in spec.plots:
        lines += [f"## {plot.title}", ""]
        selected = [r for r in ok if plot.where.matches(r)]
        if not selected:
            lines += ["(No finished cells for this plot yet.)", ""]
            continue
        draw(plot, selected, directory / plot.file)
        lines += [f"![{plot.title}]({plot.file})", ""]
    if spec.paper:
        lines += _paper(spec.paper, ok)
    lines += _failures(spec, [r for r in rows if r["status"] != Status.OK.value])
    path = directory / REPORT
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _columns(spec: SweepSpec) -> set[str]:
    return set(RESERVED) | set(spec.parameters())


def _check_metrics(spec: SweepSpec, metrics: Sequence[str]) -> None:
    named: list[tuple[tuple[str | int, ...], str]] = []
    for i, table in enumerate(spec.tables):
        named += [(("table", i, "metrics"), m) for m in table.metrics]
    for i, plot in enumerate(spec.plots):
        named += [(("plot", i, "y"), m) for m in plot.y]
        named += [(("plot", i, "right"), m) for m in plot.right]
    for i, figure in enumerate(spec.paper.figures if spec.paper else ()):
        named.append((("paper", "figure", i, "metric"), figure.metric))
    for path, metric in named:
        if metric not in metrics:
            known = ", ".join(metrics) or "none: did every cell fail?"
            where = spec.where_is(*path)
            raise ReportError(f"{where}: no cell reported a metric {metric!r} ({known})")


def _overview(
    spec: SweepSpec, rows: Sequence[Row], ok: Sequence[Row], recorded: dict[str, object]
) -> list[str]:
    expected = len(spec.cells())
    walls = [float(r["wall_s"]) for r in rows if not math.isnan(float(r["wall_s"]))]
    runs = recorded.get("runs")
    last = runs[-1] if isinstance(runs, list) and runs else {}
    return [
        f"Experiment `{spec.experiment}`, spec `{spec.path.name}` (sha256 {spec.sha256[:12]}); "
        f"{len(rows)} of {expected} cells in the store, {len(ok)} ok, {len(rows) - len(ok)} "
        f"failed; seeds {', '.join(map(str, spec.seeds))}. Cell wall time: "
        f"{number(sum(walls))} s in all, {number(max(walls, default=0.0))} s at most. "
        f"Code: {_code(last)}.",
        "",
        "Numbers are means over the seeds and the parameters a table does not list, ± the "
        "half-width of the 95 % confidence interval (Student t) where there are several values.",
        "",
    ]


def _code(run: object) -> str:
    """The code the last run ran: batchlab's version and its git commit (``unknown`` for an
    installed copy, where the version is what identifies it)."""
    if not isinstance(run, dict):
        return "unknown"
    return f"batchlab {run.get('batchlab') or 'unknown'}, commit {run.get('git_commit', 'unknown')}"


def _table(table: TableSpec, rows: Sequence[Row]) -> list[str]:
    header = [*table.rows, *table.metrics]
    if len(header) == len(table.metrics):
        header = ["cells", *table.metrics]
    lines = [f"## {table.title}", "", _markdown_row(header), _markdown_row(["---"] * len(header))]
    for key, members in group(rows, table.rows).items():
        first = [str(v) for v in key] if table.rows else [str(len(members))]
        cells = [summary([m.get(metric) for m in members]) for metric in table.metrics]
        lines.append(_markdown_row(first + cells))
    return [*lines, ""]


def _paper(paper: Paper, ok: Sequence[Row]) -> list[str]:
    lines = ["## Beside the paper", "", f"The paper: {paper.citation}.", ""]
    if paper.claims:
        lines += ["What the paper states (its words, not our findings):", ""]
        for claim in paper.claims:
            lines += [f"> {claim}", ""]
    if paper.figures:
        header = ["figure", "metric", "paper", "ours", "ours / paper"]
        lines += [_markdown_row(header), _markdown_row(["---"] * len(header))]
        for figure in paper.figures:
            values = [r.get(figure.metric) for r in ok if figure.where.matches(r)]
            numbers = [float(v) for v in values if isinstance(v, int | float) and v is not None]
            ours = estimate(numbers)
            ratio = (
                "–"
                if math.isnan(ours.mean) or not figure.value
                else number(ours.mean / figure.value)
            )
            where = ", ".join(f"{k}={'/'.join(map(str, v))}" for k, v in figure.where.allowed)
            label = figure.label or where or "all cells"
            lines.append(
                _markdown_row(
                    [
                        label,
                        figure.metric,
                        number(figure.value),
                        str(ours) if numbers else "–",
                        ratio,
                    ]
                )
            )
        lines.append("")
    return lines


def _failures(spec: SweepSpec, failed: Sequence[Row]) -> list[str]:
    if not failed:
        return []
    lines = [f"## Failed cells ({len(failed)})", "", _markdown_row(["cell", "seed", "error"])]
    lines.append(_markdown_row(["---"] * 3))
    for row in failed[:FAILED_SHOWN]:
        params = ", ".join(f"{k}={row[k]}" for k in spec.parameters())
        lines.append(_markdown_row([params, str(row["seed"]), str(row["error"])]))
    if len(failed) > FAILED_SHOWN:
        lines.append(f"\n({len(failed) - FAILED_SHOWN} more in results.parquet)")
    return [*lines, ""]


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
