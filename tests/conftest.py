"""Shared test settings. Qt runs offscreen: set before any QApplication can exist."""

from __future__ import annotations

import os

from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# No per-example deadline: CI machines are shared, and a slow example is not a wrong one.
settings.register_profile("batchlab", deadline=None)
settings.load_profile("batchlab")
