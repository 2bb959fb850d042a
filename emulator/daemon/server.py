"""The daemon's socket loop: one thread, one selector, requests between bounded simulation
slices. What a request does is :mod:`emulator.daemon.service`'s business; this module reads,
decodes, queues and sends.

Each turn of :meth:`Daemon.serve` waits for sockets (no longer than the next simulated event is
due at the current pace), reads and decodes what arrived, answers the requests, then *commits*:
it writes the turn's journal records in one write (with a clock record if the answers show a
later time than the journal holds) and fsyncs them (one fsync for every request of the turn:
group commit) and the clock checkpoint, and only then sends the responses. A mutating request is
therefore durable before anyone hears that it was accepted, and nobody sees a state that a crash
could take back. Then it advances the simulation by a bounded slice, and answers (committing
again) the clock goals the slice reached and the job waits it ended.

(A thread that syncs while the loop goes on was tried: with clients that each wait for their
answer, it made batches smaller and cost more CPU per submission in thread handoffs than the
overlap saved.)
"""

from __future__ import annotations

import errno
import os
import pwd
import resource
import signal
import socket
import struct
import sys
import traceback
from collections import deque
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from selectors import EVENT_READ, EVENT_WRITE, DefaultSelector
from typing import Any, Final

from emulator.daemon.protocol import (
    HEADER,
    MAX_BUFFERED_BYTES,
    MAX_REQUEST_BYTES,
    PROTOCOL_VERSION,
    FrameDecoder,
    ProtocolError,
    encode,
    error,
    error_for,
    ok,
    parse_request,
)
from emulator.daemon.service import JournalFailure, Peer, Reply, Response, Service, require_operator

MAX_QUEUED: Final = 64  # decoded requests per connection before reading pauses
MAX_OUTPUT: Final = 8 << 20  # unsent bytes per connection before reading pauses
RECV_BYTES: Final = 1 << 16
_PEERCRED: Final = struct.Struct("3i")
SERVER_OPS: Final = frozenset(("ping", "status", "shutdown"))  # the rest are the service's


class StartError(Exception):
    """The daemon cannot start; the message says why and what to do."""


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


# --- connections ------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Connection:
    """One client: who it is (its :class:`~emulator.daemon.service.Peer`), what it sent, what
    it is owed."""

    sock: socket.socket
    peer: Peer
    decoder: FrameDecoder = field(default_factory=lambda: FrameDecoder(MAX_REQUEST_BYTES))
    queue: deque[dict[str, Any] | ProtocolError] = field(default_factory=deque)
    held: int = 0  # bytes of the frames in ``queue`` (until it empties)
    staged: list[bytes] = field(default_factory=list)  # answers waiting for the commit
    outbuf: bytearray = field(default_factory=bytearray)
    closing: bool = False  # close once the output is sent
    mask: int = 0


_WAKE: Final = object()


class Daemon:
    """Serves a :class:`~emulator.daemon.service.Service` on a listening socket.
    Single-threaded; :meth:`request_stop` may be called from a signal handler or another
    thread."""

    def __init__(
        self,
        service: Service,
        listener: socket.socket,
        *,
        socket_path: Path,
        socket_inode: int | None = None,
        shared: bool = False,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.service = service
        self.listener = listener
        self.socket_path = socket_path
        self.socket_inode = socket_inode
        self.shared = shared
        self.info = dict(info or {})
        self.operator_uids = frozenset((os.getuid(), 0))  # the owner, and root
        self.connections: dict[int, Connection] = {}
        self._of_peer: dict[Peer, Connection] = {}  # where a later reply goes
        # connections with requests queued or answers staged, in order: a turn's work is
        # proportional to them, not to every open connection
        self._active: dict[Connection, None] = {}
        self._buffered = 0  # every connection's bytes received and not yet answered
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.max_connections = max(16, min(4096, soft - 64))  # leave descriptors for files
        self._accepting = True
        self._stopping = False
        self._signals = False
        self._selector = DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(listener, EVENT_READ, None)
        self._selector.register(self._wake_r, EVENT_READ, _WAKE)
        self.on_close: list[Callable[[], None]] = []  # run last, in order, when the loop ends

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
            self.service.log(f"journal failure, stopping without answering: {problem}")
        finally:
            self._close(flush=not failed)

    def turn(self) -> None:
        """One turn of the loop (public for tests and benchmarks that drive it by hand)."""
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
        # the requests just read are answered before the next slice, not after it: a slice
        # runs at least one whole instant, which on a big platform takes long, and a window
        # whose nodes request waited for it (and for the instant in progress when it came)
        # saw one state in several
        self._process()
        self._deliver(self.service.settle())
        self._commit()
        later = self.service.simulate() + self.service.settle()  # goals reached, waits ended
        if later:
            self._deliver(later)
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
        self.service.close(flush=flush)
        if self._signals:
            signal.set_wakeup_fd(-1)
        self._selector.close()
        self.listener.close()
        self._wake_r.close()
        self._wake_w.close()
        try:
            if self.socket_inode is None or os.stat(self.socket_path).st_ino == self.socket_inode:
                os.unlink(self.socket_path)
        except OSError:
            pass
        self.service.log("stopped")
        for action in self.on_close:
            action()

    def log(self, message: str) -> None:
        self.service.log(message)

    @staticmethod
    def _ready(conn: Connection) -> bool:
        """Whether the next queued request of ``conn`` may be answered now."""
        return (
            bool(conn.queue)
            and not conn.peer.waiting
            and not conn.closing
            and len(conn.outbuf) < MAX_OUTPUT
        )

    def _timeout(self) -> float | None:
        if any(self._ready(conn) for conn in self._active):
            return 0.0
        return self.service.timeout()

    # --- connections ---------------------------------------------------------------------------

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as problem:  # out of descriptors: stop accepting until some close
                if problem.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self.service.log(f"cannot accept more connections: {problem.strerror}")
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
            conn = Connection(sock, Peer(uid, user_name(uid), operator))
            self.connections[sock.fileno()] = conn
            self._of_peer[conn.peer] = conn
            self._interest(conn)

    def _drop(self, conn: Connection) -> None:
        fd = conn.sock.fileno()
        if fd >= 0 and self.connections.get(fd) is conn:
            del self.connections[fd]
            if conn.mask:
                self._selector.unregister(conn.sock)
                conn.mask = 0
        conn.sock.close()
        self._buffered -= conn.decoder.pending + conn.held
        conn.held = 0
        conn.decoder.discard()
        self._active.pop(conn, None)
        self._of_peer.pop(conn.peer, None)
        self.service.forget(conn.peer)
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
            and conn.held < MAX_REQUEST_BYTES
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
        decoder = conn.decoder
        before = decoder.pending
        items = decoder.feed(data)
        if decoder.broken:  # a frame too large: the stream ends, its bytes are gone
            self._buffered -= before
        else:
            conn.held += before + len(data) - decoder.pending  # the frames just completed
            self._buffered += len(data)
        if decoder.pending and self._buffered > MAX_BUFFERED_BYTES:
            # a partial frame over everyone's budget: refused, whoever holds the rest
            self._buffered -= decoder.pending
            decoder.discard()
            items.append(ProtocolError("the daemon's input buffers are full", code="busy"))
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

    def _deliver(self, replies: list[Reply]) -> None:
        """Stage the answers that were not ready when their requests came."""
        for reply in replies:
            conn = self._of_peer.get(reply.peer)
            if conn is not None:
                self._stage(conn, reply.response, reply.request)

    def _commit(self) -> None:
        """Make this turn's records durable (and the clock checkpoint, when due), then send the
        turn's answers."""
        self.service.commit(exposing=any(conn.staged for conn in self._active))
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
                    conn.closing = conn.decoder.broken
                    continue
                attachment = None
                try:
                    response = self._answer(conn.peer, item)
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
            if not conn.queue:
                self._buffered -= conn.held
                conn.held = 0

    def _answer(self, peer: Peer, message: dict[str, Any]) -> Response | None:
        """The server's own requests (who am I, status, stop); the rest go to the service."""
        op = message.get("op")
        if op not in SERVER_OPS:
            return self.service.answer(peer, message)
        parse_request(message)  # the version check
        if op == "ping":
            return ok(user=peer.user, uid=peer.uid, operator=peer.operator)
        if op == "status":
            return ok(**self.status())
        require_operator(peer, "stop the daemon")
        self._stopping = True
        return ok(stopping=True)

    def status(self) -> dict[str, Any]:
        return {
            **self.info,
            **self.service.status(),
            "pid": os.getpid(),
            "socket": str(self.socket_path),
            "state_dir": str(self.service.state_dir),
            "shared": self.shared,
            "connections": len(self.connections),
            "protocol": PROTOCOL_VERSION,
        }
