"""Where the daemon's socket and state live by default."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

SOCKET_VARIABLE = "BATCHLAB_SOCKET"
MAX_SOCKET_PATH = 107  # sun_path is 108 bytes with the terminating NUL


def default_socket(environ: Mapping[str, str] | None = None) -> Path:
    """``$BATCHLAB_SOCKET``, else ``$XDG_RUNTIME_DIR/batchlab.sock``, else
    ``/tmp/batchlab-$UID.sock``."""
    env = os.environ if environ is None else environ
    if env.get(SOCKET_VARIABLE):
        return Path(env[SOCKET_VARIABLE])
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "batchlab.sock"
    return Path(f"/tmp/batchlab-{os.getuid()}.sock")


def default_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/batchlab``, else ``~/.local/state/batchlab``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "batchlab"
