"""Slurm time formats: timestamps, TIME columns, ``-t`` and ``--begin``."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.slurm.timefmt import (
    TimeFormatError,
    format_ctime,
    format_duration_long,
    format_elapsed,
    format_minutes_limit,
    format_timestamp,
    parse_begin,
    parse_time_limit,
)

# The sample capture: 2026-11-22T01:36:55 UTC (a Sunday).
NOW = datetime(2026, 11, 22, 1, 36, 55, tzinfo=UTC).timestamp()


def iso(epoch: float) -> str:
    return format_timestamp(epoch)


def test_timestamp_and_unset() -> None:
    assert format_timestamp(NOW) == "2026-11-22T01:36:55"
    assert format_timestamp(55.0, origin=NOW - 55) == "2026-11-22T01:36:55"
    assert format_timestamp(math.nan) == "Unknown"
    assert format_timestamp(None) == "Unknown"
    assert format_timestamp(0.0) == "Unknown"
    assert format_timestamp(math.nan, unset="N/A") == "N/A"
    assert format_timestamp(math.inf, unset="N/A") == "N/A"


def test_ctime_line() -> None:
    assert format_ctime(NOW) == "Sun Nov 22 01:36:55 2026"
    assert format_ctime(0, origin=datetime(2026, 11, 2, tzinfo=UTC).timestamp()) == (
        "Mon Nov  2 00:00:00 2026"
    )


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0:00"),
        (52, "0:52"),
        (3547, "59:07"),
        (3600, "1:00:00"),
        (86399, "23:59:59"),
        (86400, "1-00:00:00"),
        (200 * 3600, "8-08:00:00"),
        (math.inf, "UNLIMITED"),
    ],
)
def test_elapsed(seconds: float, text: str) -> None:
    assert format_elapsed(seconds) == text


def test_sinfo_limit_and_long_duration() -> None:
    assert format_minutes_limit(math.inf) == "infinite"
    assert format_minutes_limit(None) == "infinite"
    assert format_minutes_limit(172800) == "2-00:00:00"
    assert format_minutes_limit(3600) == "1:00:00"
    assert format_minutes_limit(1800) == "30:00"
    assert format_duration_long(55) == "00:00:55"
    assert format_duration_long(172800) == "2-00:00:00"
    assert format_duration_long(math.inf) == "UNLIMITED"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("15", 900),
        ("3:00", 180),
        ("3:01", 240),  # seconds round up to the minute
        ("0:1", 60),
        ("1:00:00", 3600),
        ("200:00:00", 720000),
        ("2-0", 172800),
        ("1-2:3", 93780),
        ("1-2:3:4", 93840),
        ("3-00:00:00", 259200),
        ("0", math.inf),
        ("-1", math.inf),
        ("INFINITE", math.inf),
        ("unlimited", math.inf),
    ],
)
def test_time_limit(text: str, seconds: float) -> None:
    assert parse_time_limit(text) == seconds


@pytest.mark.parametrize("text", ["abc", "1:2:3:4", "1-2-3", "1:2-3", "", "1-", "1.5", "-5"])
def test_time_limit_errors(text: str) -> None:
    with pytest.raises(TimeFormatError) as info:
        parse_time_limit(text)
    assert info.value.message == "Invalid --time specification"


@given(st.integers(min_value=1, max_value=10**6))
def test_time_limit_round_trip(minutes: int) -> None:
    assert parse_time_limit(format_duration_long(minutes * 60)) == minutes * 60
    assert parse_time_limit(format_elapsed(minutes * 60)) in (minutes * 60, math.inf)


@given(st.text(max_size=20))
def test_time_limit_only_documented_error(text: str) -> None:
    try:
        value = parse_time_limit(text)
    except TimeFormatError as error:
        assert error.message == "Invalid --time specification"
    else:
        assert value == math.inf or (value > 0 and value % 60 == 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", "2026-11-22T01:36:55"),
        ("now+1hour", "2026-11-22T02:36:55"),
        ("now+60", "2026-11-22T01:37:55"),
        ("now+30seconds", "2026-11-22T01:37:25"),
        ("now+2minutes", "2026-11-22T01:38:55"),
        ("now+2days", "2026-11-24T01:36:55"),
        ("NOW+1weeks", "2026-11-29T01:36:55"),
        ("today", "2026-11-22T00:00:00"),
        ("tomorrow", "2026-11-23T00:00:00"),
        ("midnight", "2026-11-23T00:00:00"),
        ("noon", "2026-11-22T12:00:00"),
        ("elevenses", "2026-11-22T11:00:00"),
        ("fika", "2026-11-22T15:00:00"),
        ("teatime", "2026-11-22T16:00:00"),
        ("16:00", "2026-11-22T16:00:00"),
        ("01:00", "2026-11-23T01:00:00"),  # already past today: tomorrow
        ("01:40:30", "2026-11-22T01:40:30"),
        ("4:30PM", "2026-11-22T16:30:00"),
        ("12:00am", "2026-11-23T00:00:00"),
        ("12/25", "2026-12-25T00:00:00"),
        ("01/02", "2027-01-02T00:00:00"),  # past this year: next year
        ("12/25/27", "2027-12-25T00:00:00"),
        ("1225", "2026-12-25T00:00:00"),
        ("122527", "2027-12-25T00:00:00"),
        ("2027-03-04", "2027-03-04T00:00:00"),
        ("2027-03-04T05:06", "2027-03-04T05:06:00"),
        ("2027-03-04T05:06:07", "2027-03-04T05:06:07"),
    ],
)
def test_begin(text: str, expected: str) -> None:
    assert iso(parse_begin(text, NOW)) == expected


def test_begin_with_origin() -> None:
    origin = NOW - 100
    assert parse_begin("now+1hour", 100.0, origin) == 3700.0
    assert format_timestamp(parse_begin("noon", 100.0, origin), origin) == "2026-11-22T12:00:00"


@pytest.mark.parametrize(
    "text", ["garbage", "now+1fortnight", "25:00", "2027-13-01", "13/45", "now-1", ""]
)
def test_begin_errors(text: str) -> None:
    with pytest.raises(TimeFormatError) as info:
        parse_begin(text, NOW)
    assert info.value.message == "Invalid --begin specification"
    assert info.value.detail == f"Invalid time specification (pos=0): {text}"


def test_deadline_error_names_option() -> None:
    with pytest.raises(TimeFormatError, match="Invalid --deadline specification"):
        parse_begin("garbage", NOW, option="--deadline")


@given(st.text(max_size=30), st.integers(min_value=0, max_value=4 * 10**9))
def test_begin_only_documented_error(text: str, now: int) -> None:
    try:
        parse_begin(text, float(now))
    except TimeFormatError as error:
        assert error.message == "Invalid --begin specification"


@given(st.integers(min_value=0, max_value=10**8), st.integers(min_value=0, max_value=10**6))
def test_begin_relative_round_trip(now: int, delta: int) -> None:
    assert parse_begin(f"now+{delta}", float(now), NOW) == now + delta
    assert parse_begin(f"now+{delta}minutes", float(now), NOW) == now + delta * 60


@given(st.integers(min_value=int(NOW), max_value=int(NOW) + 10**9))
def test_timestamp_round_trip(epoch: int) -> None:
    assert parse_begin(format_timestamp(epoch), 0.0) == epoch
