"""The wire protocol: frames, the decoder (property-based), request checking."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.daemon.protocol import (
    HEADER,
    BadFrame,
    Clock,
    Exec,
    FrameDecoder,
    FrameTooLarge,
    ProtocolError,
    Script,
    Simple,
    VersionMismatch,
    encode,
    error_for,
    parse_request,
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
messages = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
request_fields = st.fixed_dictionaries(
    {"op": st.sampled_from(["exec", "clock", "ping", "status", "shutdown", "x"])},
    optional={
        "argv": st.lists(st.text(max_size=5), max_size=3) | json_values,
        "env": st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2) | json_values,
        "cwd": st.sampled_from(["/", "/tmp", "x"]) | json_values,
        "stdin": json_values,
        "script": st.fixed_dictionaries({"index": st.integers(-1, 4), "text": st.text(max_size=5)})
        | json_values,
        "as_user": json_values,
        "action": st.sampled_from(["show", "pause", "speed", "advance", "until", "step", "idle"])
        | json_values,
        "value": st.none() | st.integers() | st.floats() | json_values,
    },
)


@given(st.binary(max_size=2048), st.integers(1, 64))
def test_arbitrary_bytes_never_crash_the_decoder(data: bytes, chunk: int) -> None:
    decoder = FrameDecoder(limit=512)
    items: list[Any] = []
    for start in range(0, len(data), chunk):
        items += decoder.feed(data[start : start + chunk])
    for item in items:
        assert isinstance(item, dict | BadFrame | FrameTooLarge)
    assert all(not isinstance(item, FrameTooLarge) for item in items[:-1])


@settings(max_examples=60)
@given(st.lists(messages, max_size=5), st.lists(st.integers(0, 10_000), max_size=6))
def test_encode_decode_round_trip_at_any_split(
    batch: list[dict[str, Any]], cuts: list[int]
) -> None:
    stream = b"".join(encode(message) for message in batch)
    points = sorted({min(cut, len(stream)) for cut in cuts} | {0, len(stream)})
    decoder = FrameDecoder()
    out: list[Any] = []
    for start, end in itertools.pairwise(points):
        out += decoder.feed(stream[start:end])
    assert out == batch
    assert decoder.pending == 0


@given(st.binary(max_size=200))
def test_any_body_decodes_or_is_a_bad_frame(body: bytes) -> None:
    (item,) = FrameDecoder().feed(HEADER.pack(len(body)) + body)
    assert isinstance(item, dict | BadFrame)


@given(request_fields, st.sampled_from([1, 2, None, "1"]))
def test_parse_request_only_raises_protocol_errors(message: dict[str, Any], version: Any) -> None:
    with contextlib.suppress(ProtocolError):
        parse_request({**message, "version": version})


def test_bad_frames_keep_the_stream_in_step() -> None:
    bodies = [b"{not json", b"[1, 2]", b"\xff\xfe", b'{"a": NaN}', b"[" * 100_000]
    stream = b"".join(HEADER.pack(len(body)) + body for body in bodies) + encode({"ok": 1})
    items = FrameDecoder(limit=1 << 20).feed(stream)
    assert [type(item) for item in items] == [BadFrame] * 5 + [dict]
    assert items[-1] == {"ok": 1}


def test_an_oversized_header_ends_the_stream_after_earlier_frames() -> None:
    decoder = FrameDecoder(limit=100)
    items = decoder.feed(encode({"a": 1}) + HEADER.pack(101) + b"x" * 10)
    assert items[0] == {"a": 1}
    assert isinstance(items[1], FrameTooLarge)
    assert "101 bytes" in items[1].message
    assert decoder.feed(encode({"b": 2})) == []  # broken for good


def test_encode_refuses_infinity() -> None:
    with pytest.raises(ValueError):
        encode({"t": math.inf})


def test_wrong_versions_name_the_supported_one() -> None:
    for version in (None, 0, 2, "1", True, 1.0):
        with pytest.raises(VersionMismatch) as caught:
            parse_request({"version": version, "op": "ping"})
        response = error_for(caught.value)
        assert response["error"]["code"] == "unsupported_version"
        assert response["supported"] == [1]
        assert "version 1" in response["error"]["message"]
        json.dumps(response)


def test_parse_requests() -> None:
    assert parse_request({"version": 1, "op": "status"}) == Simple("status")
    assert parse_request({"version": 1, "op": "transcript"}) == Simple("transcript")
    request = parse_request(
        {
            "version": 1,
            "op": "exec",
            "argv": ["sbatch", "job.sh"],
            "env": {"SBATCH_PARTITION": "short"},
            "cwd": "/home/a",
            "stdin": None,
            "script": {"index": 1, "text": "#!/bin/sh\n"},
            "as_user": "alice",
        }
    )
    assert request == Exec(
        ("sbatch", "job.sh"),
        {"SBATCH_PARTITION": "short"},
        None,
        "/home/a",
        Script(1, "#!/bin/sh\n"),
        "alice",
    )
    assert parse_request({"version": 1, "op": "clock", "action": "speed", "value": None}) == Clock(
        "speed", math.inf
    )
    assert parse_request({"version": 1, "op": "clock", "action": "advance", "value": 5}) == Clock(
        "advance", 5.0
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"op": "exec", "argv": [], "cwd": "/"},
        {"op": "exec", "argv": ["squeue", 3], "cwd": "/"},
        {"op": "exec", "argv": ["squeue"], "cwd": "relative"},
        {"op": "exec", "argv": ["squeue"], "cwd": "/", "env": {"A": 1}},
        {"op": "exec", "argv": ["sbatch", "x"], "cwd": "/", "script": {"index": 0, "text": ""}},
        {"op": "exec", "argv": ["sbatch", "x"], "cwd": "/", "script": {"index": 2, "text": ""}},
        {"op": "exec", "argv": ["squeue"], "cwd": "/", "stdin": 5},
        {"op": "clock", "action": "warp"},
        {"op": "clock", "action": "advance"},
        {"op": "clock", "action": "advance", "value": -1},
        {"op": "clock", "action": "until", "value": 1e400},
        {"op": "clock", "action": "until", "value": 10**400},
        {"op": "clock", "action": "speed", "value": 0},
        {"op": "clock", "action": "speed", "value": True},
        {"op": "launch"},
        {},
    ],
)
def test_malformed_requests_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError):
        parse_request({"version": 1, **fields})
