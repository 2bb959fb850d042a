"""Slurm's time formats: timestamps, elapsed times, ``-t`` limits and ``--begin`` times.

Pure functions. The emulator's clock counts simulated seconds; ``origin`` is the epoch second
(UTC) that simulated second 0 maps to, so ``origin + t`` is what Slurm would print. Nothing here
reads the wall clock.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

from emulator.model.durations import DurationError, parse_duration

__all__ = [
    "TimeFormatError",
    "format_ctime",
    "format_duration_long",
    "format_elapsed",
    "format_minutes_limit",
    "format_timestamp",
    "parse_begin",
    "parse_time_limit",
]


class TimeFormatError(ValueError):
    """A time string Slurm rejects. ``detail`` is any line Slurm prints before its error line
    (``Invalid time specification (pos=0): garbage``), or ``""``."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


def _unset(seconds: float | None) -> bool:
    return seconds is None or math.isnan(seconds) or math.isinf(seconds)


def format_timestamp(seconds: float | None, origin: float = 0.0, unset: str = "Unknown") -> str:
    """``YYYY-MM-DDTHH:MM:SS`` (UTC) for simulated ``seconds``; ``unset`` for None/NaN/inf or a
    zero epoch time (Slurm prints ``Unknown``; squeue passes ``unset="N/A"``)."""
    if seconds is None or _unset(seconds):
        return unset
    epoch = origin + seconds
    if epoch == 0:
        return unset
    moment = datetime.fromtimestamp(math.floor(epoch), UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def format_ctime(seconds: float, origin: float = 0.0) -> str:
    """The ``-l`` header line of squeue/sinfo: ``Sun Nov 22 01:36:55 2026`` (ctime, UTC)."""
    moment = datetime.fromtimestamp(math.floor(origin + seconds), UTC)
    return f"{moment:%a %b} {moment.day:2d} {moment:%H:%M:%S %Y}"


def format_elapsed(seconds: float, unlimited: str = "UNLIMITED") -> str:
    """squeue's TIME/TIME_LIMIT/TIME_LEFT column: ``M:SS``, ``H:MM:SS`` or ``D-HH:MM:SS``."""
    if math.isinf(seconds):
        return unlimited
    if math.isnan(seconds):
        return "N/A"
    total = max(0, int(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_minutes_limit(seconds: float | None) -> str:
    """sinfo's TIMELIMIT: ``infinite`` for no limit, else the squeue TIME form."""
    if seconds is None or math.isinf(seconds):
        return "infinite"
    return format_elapsed(seconds)


def format_duration_long(seconds: float) -> str:
    """scontrol/sacct durations: ``HH:MM:SS`` or ``D-HH:MM:SS``; ``UNLIMITED`` for none."""
    if math.isinf(seconds):
        return "UNLIMITED"
    total = max(0, int(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}-{clock}" if days else clock


_TIME_CHARS = re.compile(r"^[0-9:-]+$")


def parse_time_limit(text: str) -> float:
    """Seconds for a ``--time`` value, rounded up to whole minutes; ``math.inf`` for no limit
    (``-1``, ``INFINITE``, ``UNLIMITED``, ``0``).

    Raises :class:`TimeFormatError` (``Invalid --time specification``) for anything else.
    """
    value = text.strip()
    if value.upper() in ("-1", "INFINITE", "UNLIMITED"):
        return math.inf
    dash = value.find("-")
    if (
        not _TIME_CHARS.match(value)
        or value.count("-") > 1
        or value.count(":") > 2
        or 0 <= value.find(":") < dash
    ):
        raise TimeFormatError("Invalid --time specification")
    try:
        seconds = parse_duration(value)
    except DurationError:
        raise TimeFormatError("Invalid --time specification") from None
    if seconds == 0:
        return math.inf
    return float(math.ceil(seconds / 60) * 60)


_UNITS = {
    "second": 1,
    "seconds": 1,
    "sec": 1,
    "minute": 60,
    "minutes": 60,
    "min": 60,
    "hour": 3600,
    "hours": 3600,
    "day": 86400,
    "days": 86400,
    "week": 604800,
    "weeks": 604800,
}
_WORDS = {"midnight": (0, 0), "noon": (12, 0), "elevenses": (11, 0), "fika": (15, 0)}
_WORDS["teatime"] = (16, 0)
_NOW = re.compile(r"^now(?:\+(\d+)([a-z]*))?$", re.IGNORECASE)
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?$")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:T(\d{1,2}):(\d{2})(?::(\d{2}))?)?$")
_SLASH = re.compile(r"^(\d{1,2})([/.])(\d{1,2})(?:\2(\d{2}|\d{4}))?$")
_COMPACT = re.compile(r"^(\d{2})(\d{2})(\d{2})?$")


def parse_begin(text: str, now: float, origin: float = 0.0, option: str = "--begin") -> float:
    """Simulated seconds for a ``--begin``/``--deadline`` value, relative to ``now``.

    ``now`` is the current simulated time and ``origin`` the epoch second of simulated 0 (UTC).
    Forms: ``HH:MM[:SS][AM|PM]`` (tomorrow if already past today), ``MMDD[YY]``,
    ``MM/DD[/YY]``, ``YYYY-MM-DD[THH:MM[:SS]]``, ``now[+N[unit]]``, ``today``, ``tomorrow``,
    ``midnight``, ``noon``, ``elevenses``, ``fika``, ``teatime``.

    Raises :class:`TimeFormatError` with message ``Invalid <option> specification`` and
    ``detail`` ``Invalid time specification (pos=0): <text>``.
    """
    epoch = _parse_epoch(text.strip(), origin + now)
    if epoch is None:
        raise TimeFormatError(
            f"Invalid {option} specification",
            f"Invalid time specification (pos=0): {text}",
        )
    return epoch - origin


def _parse_epoch(value: str, now_epoch: float) -> float | None:
    current = datetime.fromtimestamp(math.floor(now_epoch), UTC)
    today = current.replace(hour=0, minute=0, second=0)
    lower = value.lower()
    match = _NOW.match(value)
    if match:
        count, unit = match.groups()
        if count is None:
            return float(math.floor(now_epoch))
        factor = _UNITS.get(unit.lower(), 0) if unit else 1
        if not factor:
            return None
        return float(math.floor(now_epoch) + int(count) * factor)
    if lower == "today":
        return today.timestamp()
    if lower == "tomorrow":
        return (today + timedelta(days=1)).timestamp()
    if lower in _WORDS:
        hour, minute = _WORDS[lower]
        return _next_clock(current, today, hour, minute, 0)
    match = _CLOCK.match(value)
    if match:
        hour, minute = int(match[1]), int(match[2])
        second = int(match[3] or 0)
        meridian = (match[4] or "").lower()
        if meridian:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if meridian == "pm" else 0)
        if hour > 23 or minute > 59 or second > 59:
            return None
        return _next_clock(current, today, hour, minute, second)
    match = _ISO.match(value)
    if match:
        year, month, day = int(match[1]), int(match[2]), int(match[3])
        hour, minute, second = int(match[4] or 0), int(match[5] or 0), int(match[6] or 0)
        return _date(year, month, day, hour, minute, second)
    match = _SLASH.match(value) or _COMPACT.match(value)
    if match:
        groups = match.groups()
        if len(groups) == 4:
            month, day, year_text = int(groups[0]), int(groups[2]), groups[3]
        else:
            month, day, year_text = int(groups[0]), int(groups[1]), groups[2]
        if year_text is None:
            year = current.year
            if (month, day) < (current.month, current.day):
                year += 1
        else:
            year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        return _date(year, month, day, 0, 0, 0)
    return None


def _next_clock(current: datetime, today: datetime, hour: int, minute: int, second: int) -> float:
    moment = today.replace(hour=hour, minute=minute, second=second)
    if moment < current:
        moment += timedelta(days=1)
    return moment.timestamp()


def _date(year: int, month: int, day: int, hour: int, minute: int, second: int) -> float | None:
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC).timestamp()
    except ValueError:
        return None
