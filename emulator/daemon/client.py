"""Talking to the daemon: a small blocking :class:`Client`, and the Slurm commands' front end.

``python -P -m emulator.daemon.client squeue -u alice`` (what the shims run) sends the command
line, the Slurm part of the environment, the working directory and, for ``sbatch``, the batch
script or stdin; then prints what the daemon answers and exits with the command's status. This
module imports only the standard library (and, for sbatch, its option table), so it starts fast.
"""

from __future__ import annotations

import os
import select
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from emulator.daemon.commands import CLIENT_COMMANDS, sbatch_script, slurm_environment
from emulator.daemon.paths import default_socket
from emulator.daemon.protocol import (
    HEADER,
    MAX_REQUEST_BYTES,
    MAX_RESPONSE_BYTES,
    MAX_SCRIPT_BYTES,
    PROTOCOL_VERSION,
    SCRIPT_TOO_LARGE,
    BadFrame,
    decode_body,
    encode,
    script_bytes,
)
from emulator.slurm.not_emulated import NOT_EMULATED
from emulator.slurm.not_emulated import refusal as not_emulated

AS_USER_VARIABLE = "BATCHLAB_AS_USER"
EXEC_TIMEOUT = 300.0  # seconds a command may wait for its answer


class DaemonUnavailable(Exception):
    """Nothing answers on the socket."""


class DaemonError(Exception):
    """The daemon refused a request: ``code`` and message from its error response."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Client:
    """One connection to the daemon; requests are answered in order."""

    def __init__(
        self, path: Path | str | None = None, timeout: float | None = EXEC_TIMEOUT
    ) -> None:
        self.path = Path(path) if path is not None else default_socket()
        self.timeout = timeout
        self._sock: socket.socket | None = None

    def connect(self) -> Client:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(str(self.path))
        except OSError as problem:
            sock.close()
            raise DaemonUnavailable(f"no daemon on {self.path}: {problem.strerror}") from None
        self._sock = sock
        return self

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Client:
        return self.connect() if self._sock is None else self

    def __exit__(self, *_: object) -> None:
        self.close()

    def answered(self, timeout: float = 0.0) -> bool:
        """Whether an answer has begun to arrive (receive() would not wait for the daemon),
        waiting for one at most ``timeout`` seconds."""
        assert self._sock is not None
        readable, _, _ = select.select([self._sock], [], [], timeout)
        return bool(readable)

    def send(self, message: Mapping[str, Any]) -> None:
        """Send one request (``version`` is added unless given)."""
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        frame = encode({"version": PROTOCOL_VERSION, **message})
        try:
            self._sock.sendall(frame)
        except OSError as problem:
            raise DaemonUnavailable(f"lost the daemon on {self.path}: {problem}") from None

    def receive(self) -> dict[str, Any]:
        """The next response (an ``attachment`` in it: the bytes of the frame that followed)."""
        try:
            response = decode_body(self._frame())
        except BadFrame as problem:
            raise DaemonError("bad_frame", problem.message) from None
        if "attachment" in response:
            response["attachment"] = self._frame()
        return response

    def _frame(self) -> bytes:
        assert self._sock is not None
        (length,) = HEADER.unpack(self._exactly(HEADER.size))
        if length > MAX_RESPONSE_BYTES:
            raise DaemonError("too_large", f"response of {length} bytes is over the limit")
        return self._exactly(length)

    def _exactly(self, count: int) -> bytes:
        assert self._sock is not None
        chunks, left = [], count
        while left:
            try:
                chunk = self._sock.recv(min(left, 1 << 20))
            except TimeoutError:
                raise
            except OSError as problem:
                raise DaemonUnavailable(f"lost the daemon on {self.path}: {problem}") from None
            if not chunk:
                raise DaemonUnavailable(f"the daemon on {self.path} closed the connection")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def request(
        self,
        message: Mapping[str, Any],
        partial: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Send a request, return its response (an error response too). Frames of a response
        marked ``partial`` (what ``sbatch -W`` prints before it waits) go to ``partial``; after
        one, the rest may take as long as the jobs run: no timeout applies any more."""
        self.send(message)
        response = self.receive()
        while response.get("partial"):
            if partial is not None:
                partial(response)
            response = self.finish()
        return response

    def finish(self) -> dict[str, Any]:
        """The next frame of a response that came partial: it may take as long as the jobs
        run, so no timeout applies."""
        assert self._sock is not None
        self._sock.settimeout(None)
        try:
            return self.receive()
        finally:
            if self._sock is not None:
                self._sock.settimeout(self.timeout)

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """A request that must succeed: returns the response, raises :class:`DaemonError`."""
        return checked(self.request({"op": op, **fields}))


def checked(response: dict[str, Any]) -> dict[str, Any]:
    """``response``, unless it is an error response: then :class:`DaemonError`."""
    if not response.get("ok"):
        problem = response.get("error") or {}
        raise DaemonError(str(problem.get("code")), str(problem.get("message")))
    return response


def call(
    path: Path | str | None, op: str, timeout: float | None = EXEC_TIMEOUT, **fields: Any
) -> dict[str, Any]:
    """One request on a fresh connection."""
    with Client(path, timeout) as client:
        return client.call(op, **fields)


# --- the Slurm commands -----------------------------------------------------------------------


_CONNECT_FAILURE = "Unable to contact slurm controller (connect failure)"


_SUBMIT_FAILED = {
    "sbatch": "sbatch: error: Batch job submission failed: ",
    "srun": "srun: error: Unable to allocate resources: ",
    "salloc": "salloc: error: Job submit/allocate failed: ",
}


def _unreachable(command: str) -> str:
    return _SUBMIT_FAILED.get(command, f"{command}: error: ") + _CONNECT_FAILURE


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return os.environ.get("PWD", "/") if os.environ.get("PWD", "").startswith("/") else "/"


def _read_text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _write(stream: Any, text: str) -> None:
    if not text:
        return
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(text.encode("utf-8", errors="surrogateescape"))
        buffer.flush()
    else:
        stream.write(text)
        stream.flush()


def build_exec(
    argv: Sequence[str], environ: Mapping[str, str], cwd: str, stdin: BinaryIO | None
) -> dict[str, Any]:
    """The ``exec`` request for a command line typed in ``cwd``."""
    message: dict[str, Any] = {
        "op": "exec",
        "argv": list(argv),
        "env": slurm_environment(environ),
        "cwd": cwd,
        "stdin": None,
    }
    if os.path.basename(argv[0]) == "sbatch":
        index, wants_stdin = sbatch_script(argv)
        if index is not None:
            try:
                with open(os.path.join(cwd, argv[index]), "rb") as file:
                    data = file.read(MAX_SCRIPT_BYTES + 1)  # one byte over: the daemon refuses
                message["script"] = {"index": index, "text": _read_text(data)}
            except OSError:
                pass  # the controller reports it as sbatch does
        elif wants_stdin and stdin is not None:
            message["stdin"] = _read_text(stdin.read(MAX_SCRIPT_BYTES + 1))
    as_user = environ.get(AS_USER_VARIABLE)
    if as_user:
        message["as_user"] = as_user
    return message


def run_client(
    command: str,
    args: Sequence[str],
    *,
    socket_path: Path | str | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run ``command args...`` on the daemon: print its output, return its exit status."""
    if command in NOT_EMULATED:
        _write(sys.stderr, not_emulated(command))
        return 1
    env = os.environ if environ is None else environ
    path = Path(socket_path) if socket_path is not None else default_socket(env)
    stdin = getattr(sys.stdin, "buffer", None)
    message = build_exec([command, *args], env, _cwd(), stdin)
    size = len(encode({"version": PROTOCOL_VERSION, **message}))
    script = message.get("script") or {"text": message["stdin"] or ""}
    if size > MAX_REQUEST_BYTES and script_bytes(script["text"]) > MAX_SCRIPT_BYTES:
        _write(sys.stderr, SCRIPT_TOO_LARGE)  # what the daemon would answer, had it fitted
        return 1
    if size > MAX_REQUEST_BYTES:
        _write(
            sys.stderr,
            f"{command}: error: request of {size} bytes is over the daemon's "
            f"limit of {MAX_REQUEST_BYTES} bytes\n",
        )
        return 1

    def show(progress: dict[str, Any]) -> None:
        _write(sys.stdout, str(progress.get("stdout", "")))
        _write(sys.stderr, str(progress.get("stderr", "")))

    try:
        response = Client(path).request(message, show)
    except DaemonUnavailable:
        _write(sys.stderr, _unreachable(command) + "\n")
        if sys.stderr.isatty():
            _write(
                sys.stderr,
                f"batchlab: no daemon answers on {path}; start one with "
                "`batchlab daemon start --platform FILE` or set BATCHLAB_SOCKET\n",
            )
        return 1
    except TimeoutError:
        _write(sys.stderr, f"{command}: error: Socket timed out on send/recv operation\n")
        return 1
    except DaemonError as problem:
        _write(sys.stderr, f"{command}: error: {problem.message}\n")
        return 1
    if not response.get("ok"):
        refusal = response.get("error") or {}
        _write(sys.stderr, f"{command}: error: {refusal.get('message', 'daemon error')}\n")
        return 1
    _write(sys.stdout, str(response.get("stdout", "")))
    _write(sys.stderr, str(response.get("stderr", "")))
    code = response.get("exit_code", 1)
    return code if isinstance(code, int) and 0 <= code <= 255 else 1


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m emulator.daemon.client COMMAND ARGS...``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in CLIENT_COMMANDS:
        print(f"usage: {sys.argv[0]} {{{','.join(CLIENT_COMMANDS)}}} ARGS...", file=sys.stderr)
        return 2
    return run_client(args[0], args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
