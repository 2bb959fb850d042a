"""What a parsed sweep spec is: its cells, grid blocks, filters and report sections
(``emulator.sweep.spec`` reads them from TOML; docs/experiments.md describes the format)."""

from __future__ import annotations

import enum
import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from emulator.sweep.experiments import Scalar
from emulator.sweep.locate import KeyLines

#: Result columns every row has; a parameter may not take one of these names.
RESERVED = frozenset({"cell", "seed", "status", "error", "wall_s"})


class PlotKind(enum.Enum):
    LINE = "line"
    BAR = "bar"


Params = tuple[tuple[str, Scalar], ...]  # sorted by name


@dataclass(frozen=True, slots=True)
class CellSpec:
    """One cell of a sweep: a grid point and a seed. ``key`` identifies it in a results store."""

    params: Params
    seed: int

    @property
    def key(self) -> str:
        return json.dumps({"params": dict(self.params), "seed": self.seed}, sort_keys=True)

    def param_dict(self) -> dict[str, Scalar]:
        return dict(self.params)


@dataclass(frozen=True, slots=True)
class Block:
    """One ``[[grid]]`` block: fixed values, cartesian axes and zipped groups, in file order."""

    fixed: tuple[tuple[str, Scalar], ...]
    axes: tuple[tuple[str, tuple[Scalar, ...]], ...]
    zips: tuple[tuple[tuple[str, tuple[Scalar, ...]], ...], ...]

    def points(self) -> Iterator[Params]:
        dimensions: list[list[tuple[tuple[str, Scalar], ...]]] = [
            [((name, value),) for value in values] for name, values in self.axes
        ]
        for group in self.zips:
            length = len(group[0][1])
            dimensions.append(
                [tuple((name, values[i]) for name, values in group) for i in range(length)]
            )
        for combination in itertools.product(*dimensions):
            point = dict(self.fixed)
            for pairs in combination:
                point.update(pairs)
            yield tuple(sorted(point.items()))


@dataclass(frozen=True, slots=True)
class Where:
    """A filter on parameters: a cell passes when each named parameter has one of the values."""

    allowed: tuple[tuple[str, tuple[Scalar, ...]], ...] = ()

    def matches(self, params: Mapping[str, object]) -> bool:
        return all(params.get(name) in values for name, values in self.allowed)


@dataclass(frozen=True, slots=True)
class TableSpec:
    title: str
    rows: tuple[str, ...]  # parameters to group by (the other ones and seeds are aggregated)
    metrics: tuple[str, ...]
    where: Where


@dataclass(frozen=True, slots=True)
class PlotSpec:
    title: str
    file: str
    kind: PlotKind
    x: str
    y: tuple[str, ...]
    series: tuple[str, ...]
    y_label: str
    x_label: str
    log_y: bool
    right: tuple[str, ...]  # metrics on a right-hand axis (line plots)
    right_label: str
    log_right: bool
    where: Where


@dataclass(frozen=True, slots=True)
class PaperFigure:
    """A number the paper published, printed beside ours with the ratio ours / paper."""

    where: Where
    metric: str
    value: float
    label: str


@dataclass(frozen=True, slots=True)
class Paper:
    citation: str
    figures: tuple[PaperFigure, ...]
    claims: tuple[str, ...]  # statements of the paper quoted in the report as the paper's


@dataclass(frozen=True, slots=True)
class SweepSpec:
    path: Path
    text: str
    experiment: str
    title: str
    description: str
    seeds: tuple[int, ...]
    blocks: tuple[Block, ...]
    quick_seeds: tuple[int, ...]
    quick_where: Where
    tables: tuple[TableSpec, ...]
    plots: tuple[PlotSpec, ...]
    paper: Paper | None
    lines: KeyLines = field(repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def cells_sha256(self) -> str:
        """A hash of what decides the cells (the experiment and every cell's key): two specs
        with the same one may share a sweep directory, whatever their comments or reports."""
        keys = [self.experiment, *(cell.key for cell in self.cells())]
        return hashlib.sha256("\n".join(keys).encode()).hexdigest()

    def cells(self, quick: bool = False) -> list[CellSpec]:
        """Every cell in order (grid blocks, their points, then seeds), or the quick subset."""
        seeds = self.quick_seeds if quick else self.seeds
        cells: list[CellSpec] = []
        for block in self.blocks:
            for point in block.points():
                if quick and not self.quick_where.matches(dict(point)):
                    continue
                cells.extend(CellSpec(point, seed) for seed in seeds)
        return cells

    def parameters(self) -> tuple[str, ...]:
        """Every parameter name, sorted."""
        names: set[str] = set()
        for block in self.blocks:
            names.update(name for name, _ in block.fixed)
            names.update(name for name, _ in block.axes)
            names.update(name for group in block.zips for name, _ in group)
        return tuple(sorted(names))

    def where_is(self, *path: str | int) -> str:
        """``FILE:LINE`` of a key, for messages of the commands that use the spec."""
        return f"{self.path}:{self.lines.line(path)}"
