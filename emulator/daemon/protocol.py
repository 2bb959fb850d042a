"""The daemon's wire protocol: frames and requests.

A *frame* is a 4-byte big-endian unsigned length ``N`` followed by ``N`` bytes of UTF-8 JSON
holding one object. Every request and every response carries ``"version": 1``. Requests
(``op``):

``ping``      who am I: the daemon answers ``user``, ``uid``, ``operator``
``status``    pid, socket, state dir, platform, scheduler, feed, journal length, clock
``exec``      run a Slurm command: ``argv``, ``env``, ``stdin``, ``cwd``, optional ``script``
              (``{"index": i, "text": ...}``: the batch script named by ``argv[i]``, read by
              the client) and ``as_user`` (honoured only from the operator)
``clock``     ``action`` = show | pause | resume | speed | advance | until | step | idle,
              with ``value`` (seconds; for speed ``null`` means as fast as possible)
``shutdown``  stop the daemon (operator only)
``snapshot``  the whole system as the GUI draws it (``batchlab gui --socket``): ``since`` is the
              snapshot version the client holds (or null); the answer is ``unchanged: true``, or
              ``snapshot`` (a header, see :mod:`emulator.daemon.snapshots`) with an attachment;
              both carry ``clock`` (as ``clock show`` does). With ``nodes: true``, the nodes
              alone (``nodes``: a ``NodesUpdate``), for the frames that draw nothing else
``platform``  the platform the daemon emulates, as ``platform`` with an attachment
``results``   the jobs finished so far as ``batchlab replay`` writes them: ``files``, the texts
              of ``jobs.csv`` and ``summary.json`` by name (a window's File > Save results)
``transcript`` what the daemon's session ran as it was fed (the demo's ``sbatch`` lines, a
              command file's), as ``lines``: a window's console starts with them

A response is ``{"version": 1, "ok": true, ...}`` or ``{"version": 1, "ok": false, "error":
{"code": ..., "message": ...}}``; an ``id`` in the request is echoed. An ``exec`` answer may
come in several frames: each but the last has ``"partial": true`` and the ``stdout``/``stderr``
printed so far (``sbatch -W``: the submitted line at once, then, once the jobs have ended, a
last frame with the exit status). A response with ``"attachment": N`` is followed by one more
frame, of N raw bytes (the binary payload of a snapshot or platform). A request of another
version gets the error ``unsupported_version`` with ``supported: [1]``. A frame longer than
:data:`MAX_REQUEST_BYTES` gets ``too_large`` and the connection is closed, and so does a partial
frame that takes the bytes all connections hold unanswered past :data:`MAX_BUFFERED_BYTES`
(``busy``); a frame that is not a JSON object gets ``bad_frame`` and the connection goes on (the
framing is intact). An ``exec`` whose argv is longer than ``execve`` takes gets ``too_large``.
Requests on one connection are answered in order.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

PROTOCOL_VERSION: Final = 1
SUPPORTED_VERSIONS: Final = (1,)
MAX_REQUEST_BYTES: Final = 8 << 20  # room for a 4 MB batch script (Slurm's max_script_size)
MAX_SCRIPT_BYTES: Final = 4 << 20
# All the connections' frames together: bytes received and not yet answered
MAX_BUFFERED_BYTES: Final = 4 * MAX_REQUEST_BYTES
# slurmctld's answer to a script over max_script_size (4 MB by default): job_mgr.c's
# _job_create refuses it with ESLURM_PATHNAME_TOO_LONG
SCRIPT_TOO_LARGE: Final = (
    "sbatch: error: Batch job submission failed: "
    "Pathname of a file, directory or other parameter too long\n"
)
MAX_RESPONSE_BYTES: Final = 256 << 20  # squeue of a very long queue
HEADER: Final = struct.Struct(">I")
MAX_ARGV: Final = 4096
# What Linux's execve takes: one argument of at most MAX_ARG_STRLEN (32 pages), and argv with
# the environment within ARG_MAX's usual 2 MB. A real Slurm command never sees more, so a
# request asking more is refused before a command splits its lists.
MAX_ARG_BYTES: Final = 128 << 10
MAX_ARGV_BYTES: Final = 2 << 20
# The latest simulated time a clock request may aim at: a century, far past any trace, and
# well inside what Slurm's time formats and sacct's dates can show
MAX_SIMULATED_SECONDS: Final = 100 * 365 * 86400
ClockAction = Literal["show", "pause", "resume", "speed", "advance", "until", "step", "idle"]
CLOCK_ACTIONS: Final = frozenset(
    ("show", "pause", "resume", "speed", "advance", "until", "step", "idle")
)

# --- frames -----------------------------------------------------------------------------------


class ProtocolError(Exception):
    """A request the daemon cannot take. ``code`` is the error code sent back."""

    code = "bad_request"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class BadFrame(ProtocolError):
    """A frame whose body is not one UTF-8 JSON object; the stream stays in step."""

    code = "bad_frame"


class FrameTooLarge(ProtocolError):
    """A frame longer than the limit: the stream cannot be trusted further."""

    code = "too_large"


class VersionMismatch(ProtocolError):
    """A request of a protocol version this daemon does not speak."""

    code = "unsupported_version"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_ENCODER: Final = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))
_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


def encode(message: Mapping[str, Any]) -> bytes:
    """One frame holding ``message`` (NaN and infinities are refused: send ``null``)."""
    data = _ENCODER.encode(message).encode("ascii")
    if len(data) > 0xFFFFFFFF:
        raise ValueError("message too long for one frame")
    return HEADER.pack(len(data)) + data


def decode_body(body: bytes) -> dict[str, Any]:
    """The JSON object in one frame's body, or :class:`BadFrame`."""
    try:
        value = _DECODER.decode(body.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise BadFrame(f"frame is not valid UTF-8 JSON: {error}") from None
    if not isinstance(value, dict):
        raise BadFrame(f"frame holds a JSON {type(value).__name__}, not an object")
    return value


class FrameDecoder:
    """Splits a byte stream into frames; never raises.

    :meth:`feed` returns, in order, each complete frame's object or the :class:`BadFrame` its
    body raised. A header announcing more than ``limit`` bytes ends the stream: a
    :class:`FrameTooLarge` is the last item returned, and later input is ignored.
    """

    __slots__ = ("_buffer", "broken", "limit")

    def __init__(self, limit: int = MAX_REQUEST_BYTES) -> None:
        self.limit = limit
        self.broken = False
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete frame."""
        return len(self._buffer)

    def discard(self) -> None:
        """End the stream here: what is buffered goes, later input is ignored."""
        self.broken = True
        del self._buffer[:]

    def feed(self, data: bytes) -> list[dict[str, Any] | ProtocolError]:
        if self.broken:
            return []
        buffer = self._buffer
        buffer += data
        out: list[dict[str, Any] | ProtocolError] = []
        start = 0
        size = HEADER.size
        while len(buffer) - start >= size:
            (length,) = HEADER.unpack_from(buffer, start)
            if length > self.limit:
                self.broken = True
                del buffer[:]
                out.append(
                    FrameTooLarge(f"frame of {length} bytes exceeds the limit of {self.limit}")
                )
                return out
            end = start + size + length
            if len(buffer) < end:
                break
            try:
                out.append(decode_body(bytes(buffer[start + size : end])))
            except BadFrame as problem:
                out.append(problem)
            start = end
        del buffer[:start]
        return out


# --- requests ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Script:
    """The batch script a client read for ``sbatch``: ``argv[index]`` names it."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class Exec:
    """Run one Slurm command."""

    argv: tuple[str, ...]
    env: dict[str, str]
    stdin: str | None
    cwd: str
    script: Script | None = None
    as_user: str | None = None


@dataclass(frozen=True, slots=True)
class Clock:
    """Show or steer the simulated clock. ``value`` is seconds (``inf``: as fast as possible)."""

    action: ClockAction
    value: float | None = None


@dataclass(frozen=True, slots=True)
class Simple:
    """``ping``, ``status``, ``shutdown``, ``platform``, ``results`` or ``transcript``."""

    op: Literal["ping", "status", "shutdown", "platform", "results", "transcript"]


@dataclass(frozen=True, slots=True)
class SnapshotRequest:
    """The current snapshot (or only its nodes), unless its version is still ``since``."""

    since: int | None = None
    nodes: bool = False


Request = Exec | Clock | Simple | SnapshotRequest


def check_version(message: Mapping[str, Any]) -> None:
    """Raise :class:`VersionMismatch` unless ``message`` speaks a supported version."""
    version = message.get("version")
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise VersionMismatch(
            f"unsupported protocol version {version!r}; this daemon speaks version {supported}"
        )


_STR: Final = frozenset((str,))


def _strings(values: Any) -> bool:
    """Whether every item of ``values`` is a ``str`` (JSON gives exactly str, never a subclass)."""
    return set(map(type, values)) <= _STR


def _str_list(value: Any, field: str) -> tuple[str, ...]:
    if type(value) is not list or not _strings(value):
        raise ProtocolError(f"{field} must be a list of strings")
    return tuple(value)


def _optional_str(message: Mapping[str, Any], field: str) -> str | None:
    value = message.get(field)
    if value is not None and not isinstance(value, str):
        raise ProtocolError(f"{field} must be a string or null")
    return value


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float):
        raise ProtocolError("value must be a number or null")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ProtocolError("value must be a finite number or null")
    return number


def parse_request(message: Mapping[str, Any]) -> Request:
    """Check a decoded request and turn it into a :data:`Request`."""
    check_version(message)
    op = message.get("op")
    if op == "exec":
        argv = _str_list(message.get("argv"), "argv")
        if not argv or len(argv) > MAX_ARGV:
            raise ProtocolError(f"argv must hold 1 to {MAX_ARGV} strings")
        env = message.get("env", {})
        if type(env) is not dict or not _strings(env.values()):
            raise ProtocolError("env must map strings to strings")
        sizes = [len(text) for text in (*argv, *env.keys(), *env.values())]
        if max(sizes) > MAX_ARG_BYTES or sum(sizes) > MAX_ARGV_BYTES:
            raise ProtocolError(
                f"argument list too long: at most {MAX_ARG_BYTES} bytes an argument, "
                f"{MAX_ARGV_BYTES} in all (with the environment)",
                code="too_large",
            )
        cwd = message.get("cwd")
        if not isinstance(cwd, str) or not cwd.startswith("/"):
            raise ProtocolError("cwd must be an absolute path")
        script = None
        raw = message.get("script")
        if raw is not None:
            if not isinstance(raw, dict):
                raise ProtocolError("script must be an object or null")
            index, text = raw.get("index"), raw.get("text")
            if type(index) is not int or not 0 < index < len(argv) or not isinstance(text, str):
                raise ProtocolError("script must be {index: argv position > 0, text: string}")
            script = Script(index, text)
        return Exec(
            argv,
            dict(env),
            _optional_str(message, "stdin"),
            cwd,
            script,
            _optional_str(message, "as_user"),
        )
    if op == "clock":
        action = message.get("action", "show")
        if not isinstance(action, str) or action not in CLOCK_ACTIONS:
            raise ProtocolError(f"unknown clock action {action!r}")
        number = _number(message.get("value"))
        if action in ("advance", "until") and (number is None or number < 0):
            raise ProtocolError(f"clock {action} needs a value >= 0")
        if action == "speed":
            if number is not None and number <= 0:
                raise ProtocolError("speed must be > 0 (null: as fast as possible)")
            number = math.inf if number is None else number
        return Clock(cast(ClockAction, action), number)
    if op in ("ping", "status", "shutdown", "platform", "results", "transcript"):
        return Simple(op)
    if op == "snapshot":
        since = message.get("since")
        if since is not None and type(since) is not int:
            raise ProtocolError("since must be an integer or null")
        nodes = message.get("nodes", False)
        if type(nodes) is not bool:
            raise ProtocolError("nodes must be true or false")
        return SnapshotRequest(since, nodes)
    raise ProtocolError(f"unknown op {op!r}", code="unknown_op")


def ok(**fields: Any) -> dict[str, Any]:
    """A success response."""
    return {"version": PROTOCOL_VERSION, "ok": True, **fields}


def error(code: str, message: str, **fields: Any) -> dict[str, Any]:
    """An error response."""
    return {
        "version": PROTOCOL_VERSION,
        "ok": False,
        "error": {"code": code, "message": message},
        **fields,
    }


def error_for(problem: ProtocolError) -> dict[str, Any]:
    """The error response for a refused request."""
    if isinstance(problem, VersionMismatch):
        return error(problem.code, problem.message, supported=list(SUPPORTED_VERSIONS))
    return error(problem.code, problem.message)


def script_bytes(text: str) -> int:
    """The size of a script as the client read it (undecodable bytes are kept escaped)."""
    return len(text.encode("utf-8", "surrogateescape"))


def finite_or_none(value: float) -> float | None:
    """JSON has no infinity: ``None`` stands for it on the wire."""
    return None if math.isinf(value) or math.isnan(value) else value
