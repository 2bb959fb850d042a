"""Slurm's ``print_fields`` tables, as sacctmgr, sshare and sstat print them: each cell right
aligned to its column's width and followed by a space, a value too wide cut to the width with a
``+`` at the end; ``-p`` (``|`` after every cell) and ``-P`` (``|`` between cells) instead."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


class Parsable(Enum):
    NO = ""
    TRAILING = "-p"  # a | after every cell
    BETWEEN = "-P"  # a | between cells


@dataclass(frozen=True, slots=True)
class Column:
    """A column's heading and width (negative: left aligned, as sshare's Account)."""

    name: str
    width: int


def _cell(text: str, width: int) -> str:
    size = abs(width)
    if len(text) > size:
        text = text[: size - 1] + "+"
    return f"{text:<{size}}" if width < 0 else f"{text:>{size}}"


def print_fields(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    *,
    header: bool = True,
    parsable: Parsable = Parsable.NO,
) -> str:
    """The table: a heading and a line of dashes (unless ``header`` is false), then a line per
    row."""
    lines = []
    if parsable is Parsable.NO:
        if header:
            lines.append("".join(_cell(c.name, c.width) + " " for c in columns))
            lines.append("".join("-" * abs(c.width) + " " for c in columns))
        lines += [
            "".join(_cell(v, c.width) + " " for c, v in zip(columns, row, strict=True))
            for row in rows
        ]
    else:
        end = "|" if parsable is Parsable.TRAILING else ""
        table = [[c.name for c in columns], *rows] if header else list(rows)
        lines += ["|".join(row) + end for row in table]
    return "".join(line + "\n" for line in lines)


def chosen_columns(text: str, known: Sequence[Column]) -> list[Column] | str:
    """``format=a,b%20`` (or ``-o``): the columns named (any case, ``%N`` a width, negative to
    left-align), or the first unknown name."""
    by_name = {c.name.lower().replace(" ", ""): c for c in known}
    chosen = []
    for item in text.split(","):
        if not item:
            continue
        name, percent, width = item.partition("%")
        column = by_name.get(name.lower())
        if column is None:
            return name
        if percent and width.lstrip("-").isdecimal() and int(width):
            column = Column(column.name, int(width) if column.width > 0 else -abs(int(width)))
        chosen.append(column)
    return chosen
