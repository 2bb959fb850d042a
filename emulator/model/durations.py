"""Slurm's duration formats, parsed to and printed from seconds.

Accepted (as ``sbatch -t`` and slurm.conf accept them): ``M``, ``M:S``, ``H:M:S``, ``D-H``,
``D-H:M``, ``D-H:M:S``, and ``UNLIMITED``/``INFINITE``. No limit is ``math.inf``.
"""

from __future__ import annotations

import math
import re

UNLIMITED = math.inf

_FORM = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


class DurationError(ValueError):
    """A duration string that Slurm would reject."""


def parse_duration(text: str) -> float:
    """Seconds for a Slurm duration string (``math.inf`` for ``UNLIMITED``)."""
    value = text.strip()
    if value.upper() in ("UNLIMITED", "INFINITE", "-1"):
        return UNLIMITED
    match = _FORM.match(value)
    if match is None:
        raise DurationError(f"Invalid time limit specification: {text!r}")
    days, first, second, third = match.groups()
    a, b, c = int(first), int(second or 0), int(third or 0)
    if days is not None:  # D-H[:M[:S]]
        seconds = ((int(days) * 24 + a) * 60 + b) * 60 + c
    elif third is not None:  # H:M:S
        seconds = (a * 60 + b) * 60 + c
    elif second is not None:  # M:S
        seconds = a * 60 + b
    else:  # M
        seconds = a * 60
    return float(seconds)


def format_duration(seconds: float) -> str:
    """``D-HH:MM:SS`` or ``HH:MM:SS`` under one day; ``UNLIMITED`` for no limit."""
    if math.isinf(seconds):
        return "UNLIMITED"
    total = int(seconds)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}-{clock}" if days else clock
