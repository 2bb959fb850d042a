"""The daemon's loop: one thread, one selector, requests between bounded simulation slices.

Each turn of :meth:`Daemon.serve` waits for sockets (no longer than the next simulated event is
due at the current pace), reads and decodes what arrived, advances the simulation by a bounded
slice, answers the requests, then *commits*: it writes the turn's journal records in one write
and fsyncs them (one fsync for every request of the turn: group commit) and the clock checkpoint,
and only then sends the responses. A mutating request is therefore durable before anyone hears
that it was accepted, and nobody sees a state that a crash could take back.

(A thread that syncs while the loop goes on was tried and measured: with clients that each wait
for their answer, as the benchmark's do, it made batches smaller and cost more CPU per
submission in thread handoffs than the overlap saved.)

Requests that steer the clock (``advance``, ``until``, ``step``, ``idle``) are answered when
their goal is reached, and ``sbatch -W`` when its jobs have ended (the submitted line goes out at
once, in a partial frame); the daemon keeps serving other clients meanwhile.
"""

from __future__ import annotations

import errno
import math
import os
import pwd
import resource
import signal
import socket
import stat
import struct
import sys
import tempfile
import traceback
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from selectors import EVENT_READ, EVENT_WRITE, DefaultSelector
from typing import Any, Final, Protocol, runtime_checkable

from emulator.daemon.commands import command_name, is_mutating, sbatch_script
from emulator.daemon.journal import Journal, write_checkpoint
from emulator.daemon.paths import MAX_SOCKET_PATH
from emulator.daemon.protocol import (
    HEADER,
    MAX_REQUEST_BYTES,
    PROTOCOL_VERSION,
    Clock,
    Closable,
    Describes,
    Exec,
    FrameDecoder,
    FrameTooLarge,
    Handler,
    ProtocolError,
    Script,
    SnapshotRequest,
    SnapshotSource,
    Waiter,
    encode,
    error,
    error_for,
    finite_or_none,
    ok,
    parse_request,
)
from emulator.pacing import Pacer

SLICE_SECONDS: Final = 0.005  # wall time one simulation slice may take before I/O is polled
MAX_INSTANTS: Final = 10_000  # simulated instants per slice, whatever the wall time
CHECKPOINT_SECONDS: Final = 1.0  # how often a running clock is checkpointed
MAX_QUEUED: Final = 64  # decoded requests per connection before reading pauses
MAX_OUTPUT: Final = 8 << 20  # unsent bytes per connection before reading pauses
RECV_BYTES: Final = 1 << 16
_PEERCRED: Final = struct.Struct("3i")


class StartError(Exception):
    """The daemon cannot start; the message says why and what to do."""


@runtime_checkable
class FileProvider(Protocol):
    """Optional handler capability: read ``path`` as ``text`` during one command."""

    def provide_file(self, path: str, cwd: str, text: str) -> AbstractContextManager[None]: ...


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def run_command(
    handler: Handler,
    spool: Path,
    seq: int,
    *,
    argv: list[str],
    user: str,
    env: dict[str, str],
    stdin: str | None,
    cwd: str,
    script: Script | None,
) -> tuple[str, str, int]:
    """Run one command, giving the handler the script text the client read.

    With a :class:`FileProvider` handler the text is provided under the script's own path. Else,
    unless the file on disk still holds that text, a copy goes to ``spool/SEQ/NAME`` and argv
    names the copy. The same function replays the journal, so live and replayed runs agree.
    """
    provide: AbstractContextManager[None] = nullcontext()
    if script is not None:
        path = argv[script.index]
        if isinstance(handler, FileProvider):
            provide = handler.provide_file(path, cwd, script.text)
        else:
            try:
                on_disk = (Path(cwd) / path).read_text(encoding="utf-8", errors="surrogateescape")
            except (OSError, ValueError):
                on_disk = None
            if on_disk != script.text:
                copy = spool / str(seq) / (PurePosixPath(path).name or "script")
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(script.text, encoding="utf-8", errors="surrogateescape")
                argv = [*argv[: script.index], str(copy), *argv[script.index + 1 :]]
    try:
        with provide:
            stdout, stderr, code = handler.execute(argv, user=user, env=env, stdin=stdin, cwd=cwd)
    except Exception as problem:  # a handler bug must not take the daemon down
        traceback.print_exc(file=sys.stderr)
        return "", f"{command_name(argv)}: error: internal error: {problem!r}\n", 1
    return str(stdout), str(stderr), int(code)


# --- the socket -------------------------------------------------------------------------------


def probe(path: Path) -> bool:
    """Whether a daemon answers connections on ``path``."""
    probe_socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe_socket.connect(str(path))
    except OSError:
        return False
    finally:
        probe_socket.close()
    return True


def bind_socket(path: Path, shared: bool) -> tuple[socket.socket, int]:
    """Listen on ``path`` (mode 0600, or 0666 when shared); returns the socket and its inode.

    A socket file nobody answers on is stale and is replaced; a live one is an error. The
    socket is bound under a private temporary name, given its mode, then linked into place, so
    it is never reachable with the wrong permissions and never replaces a live one.
    """
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise StartError(f"socket path too long (max {MAX_SOCKET_PATH} bytes): {path}")
    if not path.parent.is_dir():
        raise StartError(f"no such directory for the socket: {path.parent}")
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise StartError(f"{path} exists and is not a socket; not touching it")
        if probe(path):
            raise StartError(f"a daemon is already listening on {path}")
        os.unlink(path)  # stale: its daemon died
    private = tempfile.mkdtemp(prefix=".batchlab-", dir=path.parent)
    temporary = os.path.join(private, "s")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(temporary)
        os.chmod(temporary, 0o666 if shared else 0o600)
        listener.listen(socket.SOMAXCONN)
        inode = os.stat(temporary).st_ino
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise StartError(f"another daemon took {path} meanwhile") from None
    except BaseException:
        listener.close()
        raise
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        os.rmdir(private)
    listener.setblocking(False)
    return listener, inode


# --- connections ------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Connection:
    """One client: who it is, what it sent, what it is owed."""

    sock: socket.socket
    uid: int
    user: str
    operator: bool
    decoder: FrameDecoder = field(default_factory=lambda: FrameDecoder(MAX_REQUEST_BYTES))
    queue: deque[dict[str, Any] | ProtocolError] = field(default_factory=deque)
    staged: list[bytes] = field(default_factory=list)  # answers waiting for the commit
    outbuf: bytearray = field(default_factory=bytearray)
    waiting: bool = False  # a clock goal or job wait of this connection is not reached yet
    closing: bool = False  # close once the output is sent
    mask: int = 0


@dataclass(eq=False, slots=True)
class Goal:
    """A clock request answered once simulated time reaches ``until`` (``inf``: idle)."""

    conn: Connection
    until: float
    request: dict[str, Any]  # for the id the answer echoes


@dataclass(eq=False, slots=True)
class JobWait:
    """An ``sbatch -W`` answered (its exit status) once its ``jobs`` have ended."""

    conn: Connection
    jobs: tuple[int, ...]
    request: dict[str, Any]


_WAKE: Final = object()


class JournalFailure(Exception):
    """The journal could not be written: stop before acknowledging anything more."""


class Daemon:
    """Serves one handler on a listening socket. Single-threaded; :meth:`request_stop` may be
    called from a signal handler or another thread."""

    def __init__(
        self,
        handler: Handler,
        journal: Journal,
        listener: socket.socket,
        *,
        state_dir: Path,
        socket_path: Path,
        socket_inode: int | None = None,
        shared: bool = False,
        pacer: Pacer | None = None,
        info: dict[str, Any] | None = None,
        advanced: bool = False,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.handler = handler
        # optional capabilities, checked once (isinstance on a protocol is slow)
        self._waiter = handler if isinstance(handler, Waiter) else None
        self._snapshot_source = handler if isinstance(handler, SnapshotSource) else None
        self.journal = journal
        self.listener = listener
        self.state_dir = state_dir
        self.socket_path = socket_path
        self.socket_inode = socket_inode
        self.shared = shared
        self.pacer = pacer if pacer is not None else Pacer(paused=True)
        self.info = dict(info or {})
        self.operator_uids = frozenset((os.getuid(), 0))  # the owner, and root
        self.connections: dict[int, Connection] = {}
        # connections with requests queued or answers staged, in order: a turn's work is
        # proportional to them, not to every open connection
        self._active: dict[Connection, None] = {}
        self.goals: list[Goal] = []
        self.job_waits: list[JobWait] = []
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.max_connections = max(16, min(4096, soft - 64))  # leave descriptors for files
        self._accepting = True
        self._advanced = advanced  # the clock moved since the last journaled request
        self._clock_dirty = False
        self._checkpoint_at = (math.nan, -math.inf)  # (simulated, wall) of the last checkpoint
        self._stopping = False
        self._signals = False
        self.failure: str | None = None  # why the simulation stopped, if it failed
        self._log_line = log or self._default_log
        self._selector = DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(listener, EVENT_READ, None)
        self._selector.register(self._wake_r, EVENT_READ, _WAKE)
        self.spool = state_dir / "spool"
        self.on_close: list[Callable[[], None]] = []  # run last, in order, when the loop ends
        self.pacer.anchor(handler.now())

    # --- lifecycle -----------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Ask the loop to finish (safe from a signal handler)."""
        self._stopping = True
        with suppress(OSError):
            self._wake_w.send(b"x")

    def install_signal_handlers(self) -> None:
        """Stop cleanly on SIGTERM and SIGINT. Main thread only: call it from the daemon's own
        process, never from a library user's (the wake-up fd makes the loop see a signal even
        while it waits in select)."""
        signal.set_wakeup_fd(self._wake_w.fileno(), warn_on_full_buffer=False)
        self._signals = True
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: self.request_stop())

    def serve(self, ready: Callable[[], None] | None = None) -> None:
        """Run until stopped (``shutdown`` request, :meth:`request_stop`); then clean up."""
        if ready is not None:
            ready()
        failed = False
        try:
            while not self._stopping:
                self.turn()
        except JournalFailure as problem:
            failed = True
            self.log(f"journal failure, stopping without answering: {problem}")
        finally:
            self._close(flush=not failed)

    def turn(self) -> None:
        """One turn of the loop (public for tests that drive the daemon by hand)."""
        for key, mask in self._selector.select(self._timeout()):
            if key.data is None:
                self._accept()
            elif key.data is _WAKE:
                with suppress(BlockingIOError):
                    self._wake_r.recv(4096)  # anything left makes the next select return
            else:
                conn: Connection = key.data
                if mask & EVENT_READ:
                    self._read(conn)
                if mask & EVENT_WRITE and conn.sock.fileno() >= 0:
                    self._send(conn)
        self._simulate()
        self._process()
        self._check_goals()
        self._check_job_waits()
        self._commit()

    def _close(self, *, flush: bool) -> None:
        for conn in list(self.connections.values()):
            if flush and conn.outbuf:
                try:
                    conn.sock.settimeout(1.0)
                    conn.sock.sendall(conn.outbuf)
                except OSError:
                    pass
            self._drop(conn)
        if flush:
            try:
                self._checkpoint()
            except OSError as problem:
                self.log(f"cannot write the clock checkpoint: {problem}")
            if isinstance(self.handler, Closable):
                try:
                    self.handler.close()
                except Exception as problem:  # the journal has it all: say so and stop
                    self.log(f"cannot close the handler: {problem!r}")
        if self._signals:
            signal.set_wakeup_fd(-1)
        try:
            self.journal.close()
        except OSError as problem:
            self.log(f"cannot close the journal: {problem}")
        self._selector.close()
        self.listener.close()
        self._wake_r.close()
        self._wake_w.close()
        try:
            if self.socket_inode is None or os.stat(self.socket_path).st_ino == self.socket_inode:
                os.unlink(self.socket_path)
        except OSError:
            pass
        self.log("stopped")
        for action in self.on_close:
            action()

    def log(self, message: str) -> None:
        self._log_line(f"[t={self.handler.now():.3f}] {message}")

    @staticmethod
    def _default_log(message: str) -> None:
        print(f"batchlab daemon: {message}", file=sys.stderr, flush=True)

    # --- the clock -----------------------------------------------------------------------------

    def _limit(self) -> float | None:
        """How far the simulation may go now: None while paused with no goal."""
        if self.goals:
            return min(goal.until for goal in self.goals)
        if self.pacer.paused:
            return None
        return self.pacer.target()

    def _simulate(self) -> bool:
        """Advance by a bounded slice; True when more is due at once. A handler that fails
        while advancing pauses the clock (and fails the clock requests) instead of the daemon."""
        try:
            return self._slice()
        except Exception as problem:
            traceback.print_exc(file=sys.stderr)
            self.failure = f"the simulation failed at t={self.handler.now():g}: {problem!r}"
            self.log(self.failure)
            self.pacer.pause(self.handler.now())
            self._clock_dirty = True
            for goal in self.goals:
                goal.conn.waiting = False
                self._stage(goal.conn, error("simulation_failed", self.failure), goal.request)
            self.goals.clear()
            return False

    def _slice(self) -> bool:
        handler, pacer = self.handler, self.pacer
        deadline = pacer.wall() + SLICE_SECONDS
        for _ in range(MAX_INSTANTS):
            limit = self._limit()
            if limit is None:
                return False
            upcoming = handler.next_event()
            if upcoming <= limit and not math.isinf(upcoming):
                handler.advance(upcoming)
                self._advanced = True
                if pacer.wall() > deadline:
                    return True
                continue
            if not math.isinf(limit) and limit > handler.now():
                handler.advance(limit)
                self._advanced = True
            return False
        return True

    @staticmethod
    def _ready(conn: Connection) -> bool:
        """Whether the next queued request of ``conn`` may be answered now."""
        return (
            bool(conn.queue)
            and not conn.waiting
            and not conn.closing
            and len(conn.outbuf) < MAX_OUTPUT
        )

    def _timeout(self) -> float | None:
        if any(self._ready(conn) for conn in self._active):
            return 0.0
        if self.goals:
            return 0.0
        if self.pacer.paused:
            return None
        delay = self.pacer.delay(self.handler.next_event())
        return CHECKPOINT_SECONDS if delay is None else min(delay, CHECKPOINT_SECONDS)

    def clock_info(self) -> dict[str, Any]:
        pacer = self.pacer
        return {
            "now": self.handler.now(),
            "paused": pacer.paused,
            "speed": finite_or_none(pacer.speed),
            "mode": pacer.mode,
            "next_event": finite_or_none(self.handler.next_event()),
            "goals": len(self.goals),
        }

    def _reached(self, goal: Goal) -> bool:
        upcoming = self.handler.next_event()
        if math.isinf(goal.until):
            return math.isinf(upcoming)
        return self.handler.now() >= goal.until and upcoming > goal.until

    def _check_goals(self) -> None:
        if not self.goals:
            return
        done = [goal for goal in self.goals if self._reached(goal)]
        for goal in done:
            self.goals.remove(goal)
            goal.conn.waiting = False
            self._stage(goal.conn, ok(clock=self.clock_info()), goal.request)
        if done:
            self.pacer.anchor(self.handler.now())
            self._clock_dirty = True

    def _check_job_waits(self) -> None:
        waiter = self._waiter
        if waiter is None or not self.job_waits:
            return
        pending = []
        for wait in self.job_waits:
            try:
                code = waiter.wait_status(wait.jobs)
            except Exception as problem:  # a handler bug must cost one answer, not the daemon
                traceback.print_exc(file=sys.stderr)
                answer = error("internal", f"internal error: {problem!r}")
            else:
                if code is None:
                    pending.append(wait)
                    continue
                answer = ok(stdout="", stderr="", exit_code=code)
            wait.conn.waiting = False
            self._stage(wait.conn, answer, wait.request)
        self.job_waits = pending

    def checkpoint_data(self) -> dict[str, Any]:
        return {
            "t": self.handler.now(),
            "advanced": self._advanced,
            "seq": self.journal.seq,
            "paused": self.pacer.paused,
            "speed": finite_or_none(self.pacer.speed),
        }

    def _checkpoint(self) -> None:
        write_checkpoint(self.state_dir / "clock.json", self.checkpoint_data())
        self._checkpoint_at = (self.handler.now(), self.pacer.wall())
        self._clock_dirty = False

    # --- connections ---------------------------------------------------------------------------

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as problem:  # out of descriptors: stop accepting until some close
                if problem.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self.log(f"cannot accept more connections: {problem.strerror}")
                    self._selector.unregister(self.listener)
                    self._accepting = False
                    return
                raise
            _pid, uid, _gid = _PEERCRED.unpack(
                sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
            )
            operator = uid in self.operator_uids
            refusal = None
            if not self.shared and not operator:
                refusal = error("permission_denied", "this daemon is private to its owner")
            elif len(self.connections) >= self.max_connections:
                refusal = error("busy", "too many connections")
            if refusal is not None:
                with suppress(OSError):
                    sock.send(encode(refusal))
                sock.close()
                continue
            sock.setblocking(False)
            conn = Connection(sock, uid, user_name(uid), operator)
            self.connections[sock.fileno()] = conn
            self._interest(conn)

    def _drop(self, conn: Connection) -> None:
        fd = conn.sock.fileno()
        if fd >= 0 and self.connections.get(fd) is conn:
            del self.connections[fd]
            if conn.mask:
                self._selector.unregister(conn.sock)
                conn.mask = 0
        conn.sock.close()
        self._active.pop(conn, None)
        self.goals = [goal for goal in self.goals if goal.conn is not conn]
        if conn.waiting:
            self.job_waits = [wait for wait in self.job_waits if wait.conn is not conn]
        if not self._accepting:
            self._selector.register(self.listener, EVENT_READ, None)
            self._accepting = True

    def _interest(self, conn: Connection) -> None:
        if conn.sock.fileno() < 0:
            return
        mask = 0
        if (
            not conn.closing
            and not conn.decoder.broken
            and len(conn.queue) < MAX_QUEUED
            and len(conn.outbuf) < MAX_OUTPUT
        ):
            mask |= EVENT_READ
        if conn.outbuf:
            mask |= EVENT_WRITE
        if mask == conn.mask:
            return
        if conn.mask == 0:
            self._selector.register(conn.sock, mask, conn)
        elif mask == 0:
            self._selector.unregister(conn.sock)
        else:
            self._selector.modify(conn.sock, mask, conn)
        conn.mask = mask

    def _read(self, conn: Connection) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(conn)
            return
        if not data:  # the client went away, maybe in the middle of a frame
            self._drop(conn)
            return
        items = conn.decoder.feed(data)
        if items:
            conn.queue.extend(items)
            self._active[conn] = None
        self._interest(conn)

    def _send(self, conn: Connection) -> None:
        if conn.outbuf:
            try:
                sent = conn.sock.send(conn.outbuf)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self._drop(conn)
                return
            del conn.outbuf[:sent]
        if not conn.outbuf and conn.closing and not conn.staged:
            self._drop(conn)
            return
        self._interest(conn)

    def _stage(
        self,
        conn: Connection,
        response: dict[str, Any],
        request: dict[str, Any] | None = None,
        attachment: bytes | None = None,
    ) -> None:
        if request is not None and isinstance(request.get("id"), int | str):
            response["id"] = request["id"]
        if attachment is None:
            frames = encode(response)
        else:
            response["attachment"] = len(attachment)
            frames = b"".join((encode(response), HEADER.pack(len(attachment)), attachment))
        conn.staged.append(frames)
        self._active[conn] = None

    def _commit(self) -> None:
        """Make this turn's records durable, checkpoint the clock when due, then send the
        turn's answers."""
        try:
            self.journal.sync()
        except OSError as problem:
            raise JournalFailure(str(problem)) from problem
        now, wall = self.handler.now(), self.pacer.wall()
        if self._clock_dirty or (
            now != self._checkpoint_at[0] and wall - self._checkpoint_at[1] >= CHECKPOINT_SECONDS
        ):
            try:
                self._checkpoint()
            except OSError as problem:
                self.log(f"cannot write the clock checkpoint: {problem}")
        for conn in list(self._active):
            if conn.staged:
                conn.outbuf += b"".join(conn.staged)
                conn.staged.clear()
                self._send(conn)
            else:
                self._interest(conn)
            if not conn.queue:
                self._active.pop(conn, None)

    # --- requests ------------------------------------------------------------------------------

    def _process(self) -> None:
        for conn in list(self._active):
            while self._ready(conn):
                item = conn.queue.popleft()
                if isinstance(item, ProtocolError):
                    self._stage(conn, error_for(item))
                    conn.closing = isinstance(item, FrameTooLarge)
                    continue
                attachment = None
                try:
                    response = self._answer(conn, item)
                    if isinstance(response, tuple):
                        response, attachment = response
                except ProtocolError as problem:
                    response = error_for(problem)
                except JournalFailure:
                    raise
                except Exception as problem:  # a bug must cost one answer, not the daemon
                    traceback.print_exc(file=sys.stderr)
                    response = error("internal", f"internal error: {problem!r}")
                if response is not None:
                    self._stage(conn, response, item, attachment)

    def _answer(
        self, conn: Connection, message: dict[str, Any]
    ) -> dict[str, Any] | tuple[dict[str, Any], bytes] | None:
        """The response (with a binary attachment, for a snapshot), or None: answered later."""
        request = parse_request(message)
        if isinstance(request, Exec):
            return self._exec(conn, request, message)
        if isinstance(request, Clock):
            return self._clock(conn, request, message)
        if isinstance(request, SnapshotRequest):
            encoded = self._snapshots().encoded_snapshot(request.since, request.nodes)
            if encoded is None:
                return ok(unchanged=True, clock=self.clock_info())
            part = "nodes" if request.nodes else "snapshot"
            return ok(**{part: encoded[0]}, clock=self.clock_info()), encoded[1]
        if request.op == "platform":
            header, payload = self._snapshots().encoded_platform()
            return ok(platform=header), payload
        if request.op == "results":
            return ok(files=self._snapshots().result_files())
        if request.op == "ping":
            return ok(user=conn.user, uid=conn.uid, operator=conn.operator)
        if request.op == "status":
            return ok(**self.status())
        self._require_operator(conn, "stop the daemon")
        self._stopping = True
        return ok(stopping=True)

    def _snapshots(self) -> SnapshotSource:
        if self._snapshot_source is None:
            raise ProtocolError("this daemon's handler keeps no snapshots", code="unsupported")
        return self._snapshot_source

    def status(self) -> dict[str, Any]:
        return {
            **self.info,
            **(self.handler.describe() if isinstance(self.handler, Describes) else {}),
            "pid": os.getpid(),
            "socket": str(self.socket_path),
            "state_dir": str(self.state_dir),
            "shared": self.shared,
            "journal_seq": self.journal.seq,
            "connections": len(self.connections),
            "protocol": PROTOCOL_VERSION,
            "failure": self.failure,
            "clock": self.clock_info(),
        }

    @staticmethod
    def _require_operator(conn: Connection, what: str) -> None:
        if not conn.operator:
            raise ProtocolError(
                f"permission denied: only the daemon's operator may {what}",
                code="permission_denied",
            )

    def _exec(
        self, conn: Connection, request: Exec, message: dict[str, Any]
    ) -> dict[str, Any] | None:
        user = conn.user
        if request.as_user is not None and request.as_user != user:
            self._require_operator(conn, "act on behalf of another user")
            user = request.as_user
        argv = list(request.argv)
        name = command_name(argv)
        if name == "sbatch" and not conn.operator:
            # The daemon must not read a file for a user who could not read it themselves.
            index, _ = sbatch_script(argv)
            if index is not None and (request.script is None or request.script.index != index):
                return ok(
                    stdout="",
                    stderr=f"sbatch: error: Unable to open file {argv[index]}\n",
                    exit_code=1,
                )
        mutating = is_mutating(argv)
        seq = self.journal.seq + 1 if mutating else 0
        now = self.handler.now()
        stdout, stderr, code = run_command(
            self.handler,
            self.spool,
            seq,
            argv=argv,
            user=user,
            env=request.env,
            stdin=request.stdin,
            cwd=request.cwd,
            script=request.script,
        )
        if mutating:
            script = None
            if request.script is not None:
                script = {"index": request.script.index, "text": request.script.text}
            self._journal(
                {
                    "t": now,
                    "advanced": self._advanced,
                    "user": user,
                    "argv": argv,
                    "env": request.env,
                    "stdin": request.stdin,
                    "cwd": request.cwd,
                    "script": script,
                    "exit_code": code,
                    "stdout": stdout,
                }
            )
            self._advanced = False
        if self._waiter is not None and (jobs := self._waiter.deferred_wait()):
            conn.waiting = True
            self.job_waits.append(JobWait(conn, jobs, message))
            self._stage(conn, ok(partial=True, stdout=stdout, stderr=stderr), message)
            return None
        return ok(stdout=stdout, stderr=stderr, exit_code=code)

    def _journal(self, record: dict[str, Any]) -> None:
        try:
            self.journal.append(record)
        except (OSError, ValueError) as problem:  # applied but not recorded: stop, answer none
            raise JournalFailure(str(problem)) from problem

    def _clock(
        self, conn: Connection, request: Clock, message: dict[str, Any]
    ) -> dict[str, Any] | None:
        action, now, pacer = request.action, self.handler.now(), self.pacer
        if action == "show":
            return ok(clock=self.clock_info())
        self._require_operator(conn, "steer the clock")
        if action in ("pause", "resume", "speed"):
            if action == "pause":
                pacer.pause(now)
            elif action == "resume":
                pacer.resume(now)
            else:
                assert request.value is not None
                pacer.set_speed(request.value, now)
            self._clock_dirty = True
            return ok(clock=self.clock_info())
        value = request.value
        if action == "advance":
            assert value is not None
            until = now + value
        elif action == "until":
            assert value is not None
            if value < now:
                raise ProtocolError(f"simulated time {value:g} is in the past (now {now:g})")
            until = value
        elif action == "step":
            until = self.handler.next_event()
            if math.isinf(until):
                return ok(clock=self.clock_info(), note="no pending event")
        else:
            until = math.inf
        goal = Goal(conn, until, message)
        if self._reached(goal):
            self._clock_dirty = True
            return ok(clock=self.clock_info())
        conn.waiting = True
        self.goals.append(goal)
        return None
