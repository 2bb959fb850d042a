"""Data files shipped with batchlab: ready-made platforms (``platforms/*.toml``, models.md §1)
and sweep specs (``experiments/*.toml``, docs/experiments.md).

``platform_path("oas-testbed")`` gives the path of a shipped platform file, to pass to
:func:`emulator.model.platform_file.load_platform`; ``platforms/README.md`` lists them.
``experiment_spec_path("oas-slot-size")`` does the same for a sweep spec.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def platform_path(name: str) -> Path:
    """Path of the shipped platform file whose stem is ``name`` (e.g. ``"lab"``).

    Raises :class:`FileNotFoundError` naming the available platforms when there is no such file.
    """
    return _shipped("platforms", "platform", name)


def experiment_spec_path(name: str) -> Path:
    """Path of the shipped sweep spec whose stem is ``name`` (e.g. ``"oas-slot-size"``)."""
    return _shipped("experiments", "sweep spec", name)


def _shipped(folder: str, what: str, name: str) -> Path:
    available = sorted(path.stem for path in (_HERE / folder).glob("*.toml"))
    if name not in available:
        raise FileNotFoundError(
            f"no shipped {what} {name!r}; available: {', '.join(available) or '(none)'}"
        )
    return _HERE / folder / f"{name}.toml"
