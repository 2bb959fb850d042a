"""The daemon's socket file: bound with its mode set before anyone can reach it, and never put
in place of a live daemon's."""

from __future__ import annotations

import os
import socket
import stat
import tempfile
from pathlib import Path

from emulator.daemon.paths import MAX_SOCKET_PATH
from emulator.daemon.server import StartError


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
