"""Fixtures of the daemon tests (see helpers.py)."""

from tests.daemon.helpers import make_daemon, short_dir

__all__ = ["make_daemon", "short_dir"]
