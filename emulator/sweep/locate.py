"""Line numbers of TOML keys, for ``FILE:LINE: what is wrong`` messages.

tomllib reports syntax errors with a line but returns plain dicts, so a value that parses but
means nothing (an unknown key, a list where a number belongs) has no line. This scanner reads
the text once and maps every key's path (``("grid", 0, "eta_percent")``, array-of-tables
indexed) to the line where it is written. It understands headers (``[a.b]``, ``[[a]]``) and
``key = value`` lines, which is all a sweep spec uses; a path it cannot place (a key inside an
inline table, an element of a list) falls back to its nearest written ancestor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Path = tuple[str | int, ...]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(
    r"^\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*="
)


def _parts(dotted: str) -> list[str]:
    return [part.strip().strip("\"'") for part in dotted.split(".")]


class KeyLines:
    """Where each key of a TOML text is written (1-based lines)."""

    def __init__(self, text: str) -> None:
        self._lines: dict[Path, int] = {}
        arrays: dict[Path, int] = {}  # array-of-tables path -> tables seen so far
        current: Path = ()
        in_string = False
        for number, line in enumerate(text.splitlines(), start=1):
            if line.count('"""') % 2 or line.count("'''") % 2:
                in_string = not in_string
                if not in_string:
                    continue
            if in_string:
                continue
            header = _HEADER.match(line)
            if header and not _KEY.match(line):
                parts = _parts(header.group(2))
                if header.group(1) == "[[":
                    parent = (*self._resolve(parts[:-1], arrays), parts[-1])
                    arrays[parent] = arrays.get(parent, 0) + 1
                    current = (*parent, arrays[parent] - 1)
                else:
                    current = self._resolve(parts, arrays)
                self._lines.setdefault(current, number)
                continue
            key = _KEY.match(line)
            if key:
                self._lines.setdefault((*current, *_parts(key.group(1))), number)

    @staticmethod
    def _resolve(parts: Sequence[str], arrays: dict[Path, int]) -> Path:
        resolved: list[str | int] = []
        for part in parts:
            resolved.append(part)
            count = arrays.get(tuple(resolved))
            if count:
                resolved.append(count - 1)
        return tuple(resolved)

    def line(self, path: Path) -> int:
        """The line of ``path``, or of its nearest ancestor that is written; 1 if none is."""
        for end in range(len(path), 0, -1):
            found = self._lines.get(path[:end])
            if found is not None:
                return found
        return 1
