"""The batchlab window: PySide6 + pyqtgraph views of a running emulator: a daemon's (its own,
:mod:`emulator.child`, or one attached to) through :class:`emulator.remote.RemoteSession`, or an
:class:`emulator.session.Session` in this process.

Layers: :mod:`gui.palette`, :mod:`gui.driver`, :mod:`gui.lockstep`, :mod:`gui.attached` and
:mod:`gui.paired` are plain Python (numpy; no Qt), so they are tested without a display;
:mod:`gui.window`, :mod:`gui.compare` (two schedulers side by side) and :mod:`gui.views` are the
Qt widgets, :mod:`gui.presentation` restyles them for a projector; :mod:`gui.app` starts the
application. The GUI sees only the session API and the model (an import-linter contract in
pyproject.toml) and draws from snapshots on one timer at <= 30 Hz; on that same timer it sends
a daemon its clock requests (:mod:`gui.attached`, :mod:`gui.paired`), or advances a session in
this process in bounded slices (:class:`gui.driver.Driver`).

Importing this package imports no Qt: ``batchlab`` starts fast unless ``batchlab gui`` runs.
"""
