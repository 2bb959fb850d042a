"""Data files shipped with batchlab, found by name from anywhere (a checkout or an installed
wheel: they are package data, beside this module): ready-made platforms (``platforms/*.toml``,
models.md §1), command files (``commands/*.txt``, ``batchlab run``), workloads
(``workloads/*.swf.gz``) and sweep specs (``experiments/*.toml``, docs/experiments.md).

``platform_path("oas-testbed")`` gives the path of a shipped platform file, to pass to
:func:`emulator.model.platform_file.load_platform`; ``platforms/README.md`` lists them.
``command_path``, ``workload_path`` and ``experiment_spec_path`` do the same for the others.
A name may carry its suffix and folders (``resources/commands/multi-cluster.txt``): the file's
name is what counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

_HERE = Path(__file__).resolve().parent

Kind = Literal["platform", "command file", "workload", "sweep spec"]


def resolve(kind: Kind, text: str | Path) -> Path:
    """The file ``text`` names: the path itself if there is such a file, else the shipped
    file of that name (:class:`FileNotFoundError` naming what is shipped if neither): the one
    way every front end reads a platform, command file or workload argument."""
    path = Path(text)
    if path.is_file():
        return path
    what = kind if kind.endswith(" file") else f"{kind} file"
    if path.is_absolute():  # a path, not a name
        raise FileNotFoundError(f"no such {what}: {text}")
    try:
        return _shipped(kind, str(text))
    except FileNotFoundError as error:
        raise FileNotFoundError(f"no such {what}: {text} ({error})") from None


def shipped_names(kind: Kind) -> list[str]:
    """The names of the shipped files of ``kind``, sorted."""
    folder, suffixes = _FOLDERS[kind]
    return list(_files(folder, suffixes))


def platform_path(name: str) -> Path:
    """Path of the shipped platform file whose stem is ``name`` (e.g. ``"lab"``).

    Raises :class:`FileNotFoundError` naming the available platforms when there is no such file.
    """
    return _shipped("platform", name)


def command_path(name: str) -> Path:
    """Path of the shipped command file ``name`` (e.g. ``"teaching-scenario"``)."""
    return _shipped("command file", name)


def workload_path(name: str) -> Path:
    """Path of the shipped workload ``name`` (e.g. ``"kth-sp2-first-2000"``)."""
    return _shipped("workload", name)


def experiment_spec_path(name: str) -> Path:
    """Path of the shipped sweep spec whose stem is ``name`` (e.g. ``"oas-slot-size"``)."""
    return _shipped("sweep spec", name)


# each kind's folder and the suffixes its files end in
_FOLDERS: dict[Kind, tuple[str, tuple[str, ...]]] = {
    "platform": ("platforms", (".toml",)),
    "command file": ("commands", (".txt",)),
    "workload": ("workloads", (".swf.gz", ".swf", ".csv")),
    "sweep spec": ("experiments", (".toml",)),
}


def _files(folder: str, suffixes: tuple[str, ...]) -> dict[str, Path]:
    """The files of ``folder`` with one of ``suffixes``, by name without it, sorted."""
    files = {}
    for path in sorted((_HERE / folder).iterdir()):
        for suffix in suffixes:
            if path.name.endswith(suffix):
                files[path.name.removesuffix(suffix)] = path
                break
    return files


def _shipped(kind: Kind, name: str) -> Path:
    folder, suffixes = _FOLDERS[kind]
    wanted = Path(name).name
    files = _files(folder, suffixes)
    for stem, path in files.items():
        if wanted in (stem, path.name):
            return path
    raise FileNotFoundError(
        f"no shipped {kind} {name!r}; available: {', '.join(files) or '(none)'}"
    )
