"""A daemon on the lab platform with the shims first on PATH, as a Slurm user would have it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.shims import write_shims
from tests.daemon.helpers import make_daemon, short_dir

__all__ = ["make_daemon", "shimmed", "short_dir"]


@pytest.fixture
def shimmed(make_daemon: Any, short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A paused daemon whose shims come first on ``PATH`` (so a library's ``sbatch`` is
    batchlab's); the test moves the clock."""
    running = make_daemon()
    shims = short_dir / "bin"
    write_shims(shims, running.socket)
    # first on the user's PATH: a real Slurm client further along must never answer
    monkeypatch.setenv("PATH", f"{shims}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    monkeypatch.setenv("BATCHLAB_SOCKET", str(running.socket))
    yield running
