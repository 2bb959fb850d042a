"""Slurm hostlist expressions: ``node[01-04,07]`` <-> ``node01 node02 ...``.

Slurm prints node sets compressed and accepts them compressed everywhere (platform files,
``-w``/``-x``, ``scontrol show hostlist``); one implementation serves all of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TOKEN = re.compile(r"([^,\[]+)(?:\[([^\]]*)\])?([^,\[]*)")
_NUMBERED = re.compile(r"^(.*?)(\d+)$")


class HostlistError(ValueError):
    """A hostlist expression that cannot be parsed."""


def expand(expression: str) -> list[str]:
    """Expand ``a[1-3,5],b`` into ``["a1", "a2", "a3", "a5", "b"]`` (order kept)."""
    names: list[str] = []
    position = 0
    text = expression.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise HostlistError(f"invalid hostlist: {expression!r}")
        prefix, ranges, suffix = match.groups()
        if ranges is None:
            names.append(prefix + suffix)
        else:
            names.extend(prefix + index + suffix for index in _expand_ranges(ranges, expression))
        position = match.end()
        if position < len(text):
            if text[position] != ",":
                raise HostlistError(f"invalid hostlist: {expression!r}")
            position += 1
    return names


def _expand_ranges(ranges: str, expression: str) -> list[str]:
    out: list[str] = []
    for part in ranges.split(","):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise HostlistError(f"invalid range {part!r} in hostlist {expression!r}")
        if not high:
            out.append(low)
            continue
        if int(high) < int(low):
            raise HostlistError(f"descending range {part!r} in hostlist {expression!r}")
        width = len(low)
        out.extend(str(number).zfill(width) for number in range(int(low), int(high) + 1))
    return out


def compress(names: Iterable[str]) -> str:
    """Compress node names the way Slurm prints them: ``node[01-02,04],login``.

    Names sharing a prefix and a digit width are merged into one bracket, in first-seen order of
    prefixes and ascending numbers, as ``hostlist_ranged_string`` does for sorted input.
    """
    groups: dict[tuple[str, int], list[int]] = {}
    order: list[tuple[str, int] | str] = []
    for name in names:
        match = _NUMBERED.match(name)
        if match is None:
            order.append(name)
            continue
        key = (match.group(1), len(match.group(2)))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(match.group(2)))
    parts: list[str] = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
            continue
        prefix, width = item
        numbers = sorted(set(groups[item]))
        if len(numbers) == 1:
            parts.append(f"{prefix}{numbers[0]:0{width}d}")
            continue
        parts.append(f"{prefix}[{_ranges(numbers, width)}]")
    return ",".join(parts)


def _ranges(numbers: list[int], width: int) -> str:
    spans: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        spans.append(
            f"{start:0{width}d}" if start == previous else f"{start:0{width}d}-{previous:0{width}d}"
        )
        if number is not None:
            start = previous = number
    return ",".join(spans)
