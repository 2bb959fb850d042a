"""The batchlab window: PySide6 + pyqtgraph views of emulators running in daemons (the window's
own, :mod:`emulator.child`, or one attached to with ``--socket``), each seen through an
:class:`emulator.remote.RemoteSession`.

Layers: :mod:`gui.palette`, :mod:`gui.driver` (play, pause, step and speed over one daemon or two
on one clock), :mod:`gui.frames` (the redraw schedule), :mod:`gui.scenario` and :mod:`gui.cli`
(``batchlab gui`` and ``demo``, registered through an entry point: the emulator never imports the
GUI) are plain Python, no Qt, so they are tested without a display; :mod:`gui.window`,
:mod:`gui.compare` (two schedulers side by side) and :mod:`gui.views` are the Qt widgets,
:mod:`gui.presentation` restyles them for a projector; :mod:`gui.app` starts the application.
The GUI sees only the session API and the model (an import-linter contract in pyproject.toml)
and draws from snapshots on one timer at <= 30 Hz.

Importing this package imports no Qt: ``batchlab`` starts fast unless ``batchlab gui`` runs.
"""
