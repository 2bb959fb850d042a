"""The batchlab window: PySide6 + pyqtgraph views of one running :class:`emulator.session.Session`.

Layers: :mod:`gui.palette`, :mod:`gui.driver` and :mod:`gui.lockstep` are plain Python (numpy;
no Qt), so they are tested without a display; :mod:`gui.window`, :mod:`gui.compare` (two
schedulers side by side) and :mod:`gui.views` are the Qt widgets, :mod:`gui.presentation` restyles
them for a projector; :mod:`gui.app` starts the application. The GUI sees only the session API
and the model (an import-linter contract in pyproject.toml), draws from
:meth:`Session.snapshot` on one timer at <= 30 Hz, and advances the emulator in bounded slices on
that same timer (:class:`gui.driver.Driver`).

Importing this package imports no Qt: ``batchlab`` starts fast unless ``batchlab gui`` runs.
"""
