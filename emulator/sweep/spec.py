"""Sweep specs: the TOML files under ``resources/experiments/`` (format: docs/experiments.md).

A spec names an experiment (a registered cell), the grid of parameters and the seeds to run it
on, the ``--quick`` subset, the tables and plots of its report and, where it repeats a paper,
the paper's published figures and claims. Parsing checks everything that can be checked before
a run (names, types, that every table and plot refers to a parameter that exists) and reports
it as ``FILE:LINE: what is wrong``; metric names are only known once cells have run, so the
report checks those.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.sweep.experiments import Scalar
from emulator.sweep.locate import KeyLines
from emulator.sweep.locate import Path as KeyPath
from emulator.sweep.model import (
    RESERVED,
    Block,
    CellSpec,
    Paper,
    PaperFigure,
    PlotKind,
    PlotSpec,
    SweepSpec,
    TableSpec,
    Where,
)

_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9_.-]+\.png$")


class SweepSpecError(ValueError):
    """A malformed spec; the message is ``FILE:LINE: what is wrong``."""


def load_spec(path: Path) -> SweepSpec:
    """Read and check the spec at ``path``; raises :class:`SweepSpecError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SweepSpecError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise SweepSpecError(f"{path}: not UTF-8 text ({error})") from None
    return parse_spec(text, path)


def parse_spec(text: str, path: Path) -> SweepSpec:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"\(at line (\d+), column \d+\)", message)
        line = found.group(1) if found else "1"
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", message)
        raise SweepSpecError(f"{path}:{line}: invalid TOML: {message}") from None
    return _Parser(path, text, data).spec()


class _Parser:
    def __init__(self, path: Path, text: str, data: dict[str, Any]) -> None:
        self.path = path
        self.text = text
        self.data = data
        self.lines = KeyLines(text)

    def fail(self, where: KeyPath, message: str) -> SweepSpecError:
        return SweepSpecError(f"{self.path}:{self.lines.line(where)}: {message}")

    def spec(self) -> SweepSpec:
        known = {"experiment", "title", "description", "seeds", "grid", "quick"}
        known |= {"table", "plot", "paper"}
        self.unknown_keys((), self.data, known)
        experiment = self.string(("experiment",), self.data.get("experiment"), required=True)
        title = self.string(("title",), self.data.get("title"), required=True)
        description = self.string(("description",), self.data.get("description"))
        seeds = self.seeds(("seeds",), self.data.get("seeds", [0]))
        blocks = self.blocks()
        parameters = self.parameter_values(blocks)
        quick_seeds, quick_where = self.quick(seeds, parameters)
        tables = tuple(
            self.table(("table", i), entry, parameters)
            for i, entry in enumerate(self.array_of_tables(("table",)))
        )
        plots = tuple(
            self.plot(("plot", i), entry, parameters)
            for i, entry in enumerate(self.array_of_tables(("plot",)))
        )
        files = [plot.file for plot in plots]
        for i, plot in enumerate(plots):
            if files.index(plot.file) != i:
                raise self.fail(("plot", i, "file"), f"plot file {plot.file!r} is used twice")
        spec = SweepSpec(
            self.path,
            self.text,
            experiment,
            title,
            description,
            seeds,
            blocks,
            quick_seeds,
            quick_where,
            tables,
            plots,
            self.paper(parameters),
            self.lines,
        )
        self.check_unique(spec)
        return spec

    # -- generic checks --------------------------------------------------------------------

    def unknown_keys(self, where: KeyPath, table: Mapping[str, Any], known: set[str]) -> None:
        for key in table:
            if key not in known:
                allowed = ", ".join(sorted(known))
                raise self.fail((*where, key), f"unknown key {key!r} (expected one of: {allowed})")

    def table_at(self, where: KeyPath, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"{_dotted(where)} must be a table")
        return value

    def array_of_tables(self, where: KeyPath) -> list[dict[str, Any]]:
        value = self.data.get(str(where[0]), [])
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(where, f"{_dotted(where)} must be a table or [[{_dotted(where)}]]")
        return value

    def string(self, where: KeyPath, value: Any, required: bool = False) -> str:
        if value is None:
            if required:
                raise self.fail(where[:-1], f"missing required key {_dotted(where)!r}")
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.fail(where, f"{_dotted(where)} must be a non-empty string")
        return value

    def boolean(self, where: KeyPath, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"{_dotted(where)} must be true or false")
        return value

    def names(
        self, where: KeyPath, value: Any, parameters: Mapping[str, Any] | None
    ) -> tuple[str, ...]:
        """A name or a list of names; with ``parameters``, each must be a parameter."""
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise self.fail(where, f"{_dotted(where)} must be a name or a list of names")
        for item in items:
            if parameters is not None and item not in parameters:
                known = ", ".join(sorted(parameters)) or "none"
                raise self.fail(where, f"{item!r} is not a parameter of the grid ({known})")
        return tuple(items)

    def scalar(self, where: KeyPath, value: Any) -> Scalar:
        if not isinstance(value, int | float | str | bool):
            raise self.fail(
                where, f"{_dotted(where)}: a value must be an int, float, string or bool"
            )
        return value

    def seeds(self, where: KeyPath, value: Any) -> tuple[int, ...]:
        if isinstance(value, dict):
            self.unknown_keys(where, value, {"first", "count"})
            first, count = value.get("first", 0), value.get("count")
            if not (_is_int(first) and isinstance(count, int) and _is_int(count) and count >= 1):
                raise self.fail(where, "seeds = { first = F, count = N } needs integers, N >= 1")
            return tuple(range(first, first + count))
        if not isinstance(value, list) or not value or not all(_is_int(v) for v in value):
            raise self.fail(where, "seeds must be a non-empty list of integers or {first, count}")
        if len(set(value)) != len(value):
            raise self.fail(where, "seeds lists a seed twice")
        return tuple(value)

    # -- the grid --------------------------------------------------------------------------

    def blocks(self) -> tuple[Block, ...]:
        if "grid" not in self.data:
            raise self.fail((), "missing [grid]: the parameters to sweep")
        raw = self.data["grid"]
        entries = [raw] if isinstance(raw, dict) else raw
        if not isinstance(entries, list) or not entries:
            raise self.fail(("grid",), "grid must be a table or a non-empty [[grid]] array")
        single = isinstance(raw, dict)
        return tuple(
            self.block(("grid",) if single else ("grid", i), self.table_at(("grid", i), entry))
            for i, entry in enumerate(entries)
        )

    def block(self, where: KeyPath, table: dict[str, Any]) -> Block:
        fixed: list[tuple[str, Scalar]] = []
        axes: list[tuple[str, tuple[Scalar, ...]]] = []
        zips: list[tuple[tuple[str, tuple[Scalar, ...]], ...]] = []
        seen: set[str] = set()

        def claim(name: str, at: KeyPath) -> None:
            if not _NAME.match(name):
                raise self.fail(at, f"parameter {name!r}: use lower_case letters, digits, _")
            if name in RESERVED:
                raise self.fail(at, f"parameter {name!r}: the name is reserved for a result column")
            if name in seen:
                raise self.fail(at, f"parameter {name!r} is given twice in this grid block")
            seen.add(name)

        for name, value in table.items():
            at = (*where, name)
            if name == "zip":
                groups = value if isinstance(value, list) else [value]
                for j, group in enumerate(groups):
                    zips.append(self.zip_group((*where, "zip", j), group, claim))
                continue
            claim(name, at)
            if isinstance(value, list):
                axes.append((name, self.axis(at, value)))
            else:
                fixed.append((name, self.scalar(at, value)))
        return Block(tuple(fixed), tuple(axes), tuple(zips))

    def axis(self, where: KeyPath, values: list[Any]) -> tuple[Scalar, ...]:
        if not values:
            raise self.fail(where, f"{_dotted(where)} is an empty list: no cell would run")
        axis = tuple(self.scalar(where, v) for v in values)
        if len(set(axis)) != len(axis):
            raise self.fail(where, f"{_dotted(where)} lists a value twice")
        return axis

    def zip_group(
        self, where: KeyPath, group: Any, claim: Any
    ) -> tuple[tuple[str, tuple[Scalar, ...]], ...]:
        table = self.table_at(where, group)
        if not table:
            raise self.fail(where, "an empty zip group")
        members = []
        for name, values in table.items():
            at = (*where, name)
            claim(name, at)
            if not isinstance(values, list):
                raise self.fail(at, f"{name}: a zipped parameter takes a list of values")
            members.append((name, self.axis(at, values)))
        lengths = {len(values) for _, values in members}
        if len(lengths) > 1:
            raise self.fail(where, f"zipped lists differ in length ({sorted(lengths)})")
        return tuple(members)

    def parameter_values(self, blocks: Sequence[Block]) -> dict[str, set[Scalar]]:
        """Each parameter's values over all blocks; one type per parameter (int and float mix)."""
        values: dict[str, set[Scalar]] = {}
        for index, block in enumerate(blocks):
            pairs = list(block.fixed) + [(n, v) for n, vs in block.axes for v in vs]
            pairs += [(n, v) for group in block.zips for n, vs in group for v in vs]
            for name, value in pairs:
                known = values.setdefault(name, set())
                kinds = {_kind(v) for v in known} | {_kind(value)}
                if len(kinds) > 1:
                    where: KeyPath = ("grid", index, name) if len(blocks) > 1 else ("grid", name)
                    raise self.fail(where, f"parameter {name!r} mixes types {sorted(kinds)}")
                known.add(value)
        names = [set(dict(next(block.points()))) for block in blocks]
        if any(n != names[0] for n in names):
            raise self.fail(("grid",), "every [[grid]] block must set the same parameters")
        return values

    def check_unique(self, spec: SweepSpec) -> None:
        seen: set[str] = set()
        for index, block in enumerate(spec.blocks):
            for point in block.points():
                for seed in spec.seeds:
                    key = CellSpec(point, seed).key
                    if key in seen:
                        where: KeyPath = ("grid", index) if len(spec.blocks) > 1 else ("grid",)
                        raise self.fail(where, f"the grid yields the cell {key} twice")
                    seen.add(key)

    # -- quick, tables, plots, paper -------------------------------------------------------

    def quick(
        self, seeds: tuple[int, ...], parameters: Mapping[str, set[Scalar]]
    ) -> tuple[tuple[int, ...], Where]:
        raw = self.data.get("quick")
        if raw is None:
            return seeds[:1], Where()
        table = self.table_at(("quick",), raw)
        quick_seeds = seeds[:1]
        if "seeds" in table:
            quick_seeds = self.seeds(("quick", "seeds"), table["seeds"])
            stray = [s for s in quick_seeds if s not in seeds]
            if stray:
                raise self.fail(("quick", "seeds"), f"quick seeds {stray} are not in seeds")
        where = self.where(("quick",), {k: v for k, v in table.items() if k != "seeds"}, parameters)
        return quick_seeds, where

    def where(
        self, at: KeyPath, table: Mapping[str, Any], parameters: Mapping[str, set[Scalar]]
    ) -> Where:
        allowed = []
        for name, raw in table.items():
            key = (*at, name)
            if name not in parameters:
                known = ", ".join(sorted(parameters))
                raise self.fail(key, f"{name!r} is not a parameter of the grid ({known})")
            values = tuple(self.scalar(key, v) for v in (raw if isinstance(raw, list) else [raw]))
            missing = [v for v in values if v not in parameters[name]]
            if missing:
                raise self.fail(key, f"{name}: {missing} never occur in the grid")
            allowed.append((name, values))
        return Where(tuple(allowed))

    def optional_where(
        self, at: KeyPath, entry: Mapping[str, Any], parameters: Mapping[str, set[Scalar]]
    ) -> Where:
        if "where" not in entry:
            return Where()
        return self.where((*at, "where"), self.table_at((*at, "where"), entry["where"]), parameters)

    def table(
        self, at: KeyPath, entry: dict[str, Any], parameters: Mapping[str, set[Scalar]]
    ) -> TableSpec:
        self.unknown_keys(at, entry, {"title", "rows", "metrics", "where"})
        return TableSpec(
            self.string((*at, "title"), entry.get("title"), required=True),
            self.names((*at, "rows"), entry.get("rows", []), parameters),
            self.required_names(at, entry, "metrics"),
            self.optional_where(at, entry, parameters),
        )

    def required_names(self, at: KeyPath, entry: Mapping[str, Any], key: str) -> tuple[str, ...]:
        if key not in entry:
            raise self.fail(at, f"missing required key {key!r}")
        names = self.names((*at, key), entry[key], None)
        if not names:
            raise self.fail((*at, key), f"{key} is empty")
        return names

    def plot(
        self, at: KeyPath, entry: dict[str, Any], parameters: Mapping[str, set[Scalar]]
    ) -> PlotSpec:
        keys = {"title", "file", "kind", "x", "y", "series", "x_label", "y_label", "log_y"}
        keys |= {"right", "right_label", "log_right", "where"}
        self.unknown_keys(at, entry, keys)
        kind_text = self.string((*at, "kind"), entry.get("kind", "line"))
        try:
            kind = PlotKind(kind_text)
        except ValueError:
            raise self.fail(
                (*at, "kind"), f"kind must be 'line' or 'bar', not {kind_text!r}"
            ) from None
        file = self.string((*at, "file"), entry.get("file"), required=True)
        if not _FILE_NAME.match(file):
            raise self.fail((*at, "file"), f"file {file!r} must be a plain NAME.png")
        x = self.names((*at, "x"), entry.get("x"), parameters) if "x" in entry else ()
        if len(x) != 1:
            raise self.fail(at, "a plot needs x = one parameter")
        right = self.names((*at, "right"), entry.get("right", []), None)
        if right and kind is PlotKind.BAR:
            raise self.fail((*at, "right"), "a right-hand axis is for line plots only")
        return PlotSpec(
            title=self.string((*at, "title"), entry.get("title"), required=True),
            file=file,
            kind=kind,
            x=x[0],
            y=self.required_names(at, entry, "y"),
            series=self.names((*at, "series"), entry.get("series", []), parameters),
            y_label=self.string((*at, "y_label"), entry.get("y_label")),
            x_label=self.string((*at, "x_label"), entry.get("x_label")) or x[0],
            log_y=self.boolean((*at, "log_y"), entry.get("log_y", False)),
            right=right,
            right_label=self.string((*at, "right_label"), entry.get("right_label")),
            log_right=self.boolean((*at, "log_right"), entry.get("log_right", False)),
            where=self.optional_where(at, entry, parameters),
        )

    def paper(self, parameters: Mapping[str, set[Scalar]]) -> Paper | None:
        raw = self.data.get("paper")
        if raw is None:
            return None
        table = self.table_at(("paper",), raw)
        self.unknown_keys(("paper",), table, {"citation", "figure", "claims"})
        figures = []
        entries = table.get("figure", [])
        if not isinstance(entries, list):
            raise self.fail(("paper", "figure"), "figures are [[paper.figure]] tables")
        for i, entry in enumerate(entries):
            at: KeyPath = ("paper", "figure", i)
            entry = self.table_at(at, entry)
            self.unknown_keys(at, entry, {"where", "metric", "value", "label"})
            value = entry.get("value")
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise self.fail((*at, "value"), "value must be the paper's number")
            figures.append(
                PaperFigure(
                    self.optional_where(at, entry, parameters),
                    self.string((*at, "metric"), entry.get("metric"), required=True),
                    float(value),
                    self.string((*at, "label"), entry.get("label")),
                )
            )
        claims = table.get("claims", [])
        if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
            raise self.fail(("paper", "claims"), "claims must be a list of strings")
        return Paper(
            self.string(("paper", "citation"), table.get("citation"), required=True),
            tuple(figures),
            tuple(claims),
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Scalar) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string"


def _dotted(where: KeyPath) -> str:
    return ".".join(str(part) for part in where if isinstance(part, str)) or "the spec"
