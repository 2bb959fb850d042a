"""Data files shipped with batchlab: ready-made platforms (``platforms/*.toml``, models.md §1).

``platform_path("oas-testbed")`` gives the path of a shipped platform file, to pass to
:func:`emulator.model.platform_file.load_platform`; ``platforms/README.md`` lists them.
"""

from __future__ import annotations

from pathlib import Path

_PLATFORMS = Path(__file__).resolve().parent / "platforms"


def platform_path(name: str) -> Path:
    """Path of the shipped platform file whose stem is ``name`` (e.g. ``"lab"``).

    Raises :class:`FileNotFoundError` naming the available platforms when there is no such file.
    """
    available = sorted(path.stem for path in _PLATFORMS.glob("*.toml"))
    if name not in available:
        raise FileNotFoundError(
            f"no shipped platform {name!r}; available: {', '.join(available) or '(none)'}"
        )
    return _PLATFORMS / f"{name}.toml"
