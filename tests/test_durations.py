"""Slurm durations (emulator/model/durations.py): every accepted form, errors, printing."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.model.durations import UNLIMITED, DurationError, format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        # M
        ("0", 0.0),
        ("5", 300.0),
        ("90", 5400.0),
        ("1440", 86400.0),
        # M:S
        ("5:30", 330.0),
        ("0:45", 45.0),
        ("10:00", 600.0),
        # H:M:S
        ("1:02:03", 3723.0),
        ("01:00:00", 3600.0),
        ("00:00:01", 1.0),
        ("48:00:00", 172800.0),
        # D-H
        ("2-3", 183600.0),
        ("0-1", 3600.0),
        ("1-0", 86400.0),
        # D-H:M
        ("2-3:04", 183840.0),
        ("1-00:30", 88200.0),
        # D-H:M:S
        ("2-03:04:05", 183845.0),
        ("2-00:00:00", 172800.0),  # the lab's MaxTime
        ("7-23:59:59", 691199.0),
        # surrounding blanks are ignored
        ("  15 ", 900.0),
    ],
)
def test_parse_every_form(text: str, seconds: float) -> None:
    value = parse_duration(text)
    assert value == seconds
    assert isinstance(value, float)


@pytest.mark.parametrize(
    "text", ["UNLIMITED", "unlimited", "Unlimited", "INFINITE", "infinite", "-1", " UNLIMITED "]
)
def test_parse_no_limit(text: str) -> None:
    assert parse_duration(text) == math.inf
    assert parse_duration(text) == UNLIMITED


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "abc",
        "1:2:3:4",  # at most two ':'
        "1-2:3:4:5",
        "1-",
        "-5",
        "-2-3",
        "1-2-3",  # at most one '-'
        "1:2-3",  # '-' may not follow ':'
        "1:",
        ":30",
        "1.5",
        "1h",
        "2 days",
        "1 - 2",
        "1-2:3:",
        "NONE",
        "+5",
    ],
)
def test_parse_errors(text: str) -> None:
    with pytest.raises(DurationError) as info:
        parse_duration(text)
    assert str(info.value) == f"Invalid time limit specification: {text!r}"


def test_duration_error_is_a_value_error() -> None:
    assert issubclass(DurationError, ValueError)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "00:00:00"),
        (1, "00:00:01"),
        (59, "00:00:59"),
        (60, "00:01:00"),
        (3599, "00:59:59"),
        (3600, "01:00:00"),
        (3723, "01:02:03"),
        (86399, "23:59:59"),
        (86400, "1-00:00:00"),
        (172800, "2-00:00:00"),
        (183845, "2-03:04:05"),
        (100 * 86400 + 1, "100-00:00:01"),
        (59.9, "00:00:59"),  # fractions of a second are dropped
        (3600.0, "01:00:00"),
        (math.inf, "UNLIMITED"),
    ],
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@given(st.integers(min_value=0, max_value=10**9))
def test_round_trip_from_seconds(seconds: int) -> None:
    text = format_duration(seconds)
    assert parse_duration(text) == seconds
    assert format_duration(parse_duration(text)) == text


@given(
    st.integers(0, 400),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
)
def test_every_form_agrees_with_its_arithmetic(
    days: int, hours: int, minutes: int, secs: int
) -> None:
    assert parse_duration(f"{days}-{hours}") == (days * 24 + hours) * 3600
    assert parse_duration(f"{days}-{hours}:{minutes}") == (days * 24 + hours) * 3600 + minutes * 60
    total = ((days * 24 + hours) * 60 + minutes) * 60 + secs
    assert parse_duration(f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}") == total
    assert parse_duration(f"{hours}:{minutes}:{secs}") == hours * 3600 + minutes * 60 + secs
    assert parse_duration(f"{minutes}:{secs}") == minutes * 60 + secs
    assert parse_duration(f"{minutes}") == minutes * 60
    assert parse_duration(format_duration(total)) == total
