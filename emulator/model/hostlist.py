"""Slurm hostlist expressions: ``node[01-04,07]`` <-> ``node01 node02 ...``.

Slurm prints node sets compressed and accepts them compressed everywhere (platform files,
``-w``/``-x``, ``scontrol show hostlist``); one implementation serves all of them. As in Slurm's
``hostlist.c``, entries are separated by commas or blanks, a prefix may be empty, and numbers
without leading zeros merge whatever their width (``n[9-10]``), while zero-padded ones keep theirs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ENTRY = re.compile(r"([^\[\],\s]*)(?:\[([^\]]*)\])?([^\[\],\s]*)")
_NUMBERED = re.compile(r"^(.*?)(\d+)$")
_SEPARATORS = re.compile(r"\s*,\s*|\s+")


class HostlistError(ValueError):
    """A hostlist expression that cannot be parsed."""


# The most names one expression may expand to (Slurm's hostlist.c caps a range at 64K hosts):
# ``node[1-99999999]`` is refused before a name is made, not after gigabytes of them.
MAX_HOSTS = 1 << 16


def expand(expression: str, limit: int = MAX_HOSTS) -> list[str]:
    """Expand ``a[1-3,5],b`` into ``["a1", "a2", "a3", "a5", "b"]`` (order kept). More than
    ``limit`` names raise :class:`HostlistError`, counted before they are made."""
    text = expression.strip()
    if "[" not in text and "]" not in text:  # plain names: split at once, not one match each
        names = _SEPARATORS.split(text, limit + 1)  # no more than one past the limit
        while names and not names[-1]:  # separators may trail
            names.pop()
        if len(names) > limit:
            raise HostlistError(f"hostlist names more than {limit} hosts: {expression[:60]!r}")
        if "" in names or (text and not names):
            raise HostlistError(f"invalid hostlist: {expression!r}")
        return names
    names = []
    position = 0
    while position < len(text):
        match = _ENTRY.match(text, position)
        if match is None or match.end() == position:
            raise HostlistError(f"invalid hostlist: {expression!r}")
        prefix, ranges, suffix = match.groups()
        if ranges is None:
            names.append(prefix + suffix)
        else:
            indexes = _expand_ranges(ranges, expression, limit - len(names))
            names.extend(prefix + index + suffix for index in indexes)
        if len(names) > limit:
            raise HostlistError(f"hostlist names more than {limit} hosts: {expression[:60]!r}")
        position = match.end()
        separator = position
        while position < len(text) and (text[position] == "," or text[position].isspace()):
            position += 1
        commas = text.count(",", separator, position)
        if position < len(text) and (position == separator or commas > 1):
            raise HostlistError(f"invalid hostlist: {expression!r}")
    return names


def _expand_ranges(ranges: str, expression: str, room: int) -> list[str]:
    """The numbers of one ``[...]``, as text; no more than ``room`` + 1 of them."""
    out: list[str] = []
    parts = ranges.split(",", room + 1)
    if len(parts) > room:
        raise HostlistError(f"hostlist names more than its limit of hosts: {expression[:60]!r}")
    for part in parts:
        low, _, high = part.partition("-")
        if not _number(low) or (high and not _number(high)):
            raise HostlistError(f"invalid range {part[:40]!r} in hostlist {expression[:60]!r}")
        if not high:
            out.append(low)
            continue
        if int(high) < int(low):
            raise HostlistError(f"descending range {part!r} in hostlist {expression[:60]!r}")
        if int(high) - int(low) + 1 > room - len(out):
            raise HostlistError(f"hostlist names more than its limit of hosts: {part!r}")
        width = len(low) if low.startswith("0") else 0
        out.extend(str(number).zfill(width) for number in range(int(low), int(high) + 1))
    return out


def _number(text: str) -> bool:
    """ASCII digits, few enough for int() (which refuses over 4,300)."""
    return text.isdecimal() and text.isascii() and len(text) <= 18


def compress(names: Iterable[str]) -> str:
    """Compress node names the way Slurm prints them: ``node[01-02,04],login``.

    Names sharing a prefix merge into one bracket, in first-seen order of prefixes and ascending
    numbers; repeats are dropped. Zero-padded numbers keep their width; an unpadded number joins a
    padded group only when it has that many digits anyway (``a[09-10]``), else the unpadded one.
    """
    entries: list[tuple[str, str] | str] = []
    padded_widths: dict[str, set[int]] = {}
    for name in names:
        match = _NUMBERED.match(name)
        if match is None:
            entries.append(name)
            continue
        prefix, digits = match.groups()
        entries.append((prefix, digits))
        if digits.startswith("0") and len(digits) > 1:
            padded_widths.setdefault(prefix, set()).add(len(digits))
    groups: dict[tuple[str, int], set[int]] = {}
    order: list[tuple[str, int] | str] = []
    for entry in entries:
        if isinstance(entry, str):
            if entry not in order:
                order.append(entry)
            continue
        prefix, digits = entry
        width = len(digits)
        padded = digits.startswith("0") and width > 1
        key = (prefix, width if padded or width in padded_widths.get(prefix, ()) else 0)
        if key not in groups:
            groups[key] = set()
            order.append(key)
        groups[key].add(int(digits))
    parts: list[str] = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
            continue
        prefix, width = item
        numbers = sorted(groups[item])
        if len(numbers) == 1 and prefix:
            parts.append(f"{prefix}{numbers[0]:0{width}d}")
        else:
            parts.append(f"{prefix}[{_ranges(numbers, width)}]")
    return ",".join(parts)


def _ranges(numbers: list[int], width: int) -> str:
    spans: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        low, high = f"{start:0{width}d}", f"{previous:0{width}d}"
        spans.append(low if start == previous else f"{low}-{high}")
        if number is not None:
            start = previous = number
    return ",".join(spans)
