"""Shared fixtures. Qt runs offscreen: set before any QApplication can exist."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
