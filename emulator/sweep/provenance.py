"""``DIR/provenance.json``: what produced a sweep directory's results, so a figure can be traced
to the code, the spec, the packages and the machine that made it.

One entry per invocation (``runs``): a ``--resume`` adds one, so a store filled in three
sittings says so. Dates appear here and nowhere else in a sweep directory.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from emulator.sweep.model import SweepSpec
from emulator.sweep.store import PROVENANCE, StoreError, write_json_atomically

PACKAGES = ("numpy", "dask", "distributed", "pyarrow", "matplotlib", "pyomo", "highspy")


def check_same_spec(directory: Path, spec: SweepSpec) -> None:
    """Refuse to mix two grids' cells in one directory (a resume after the grid, the seeds or
    the experiment changed); a spec whose comments, tables or plots changed is welcome."""
    existing = load(directory)
    if existing and existing.get("cells_sha256") != spec.cells_sha256:
        raise StoreError(
            f"{directory}: holds the cells of another spec ({existing.get('spec_path')}): "
            "its experiment, grid or seeds differ; choose another --out"
        )


def load(directory: Path) -> dict[str, Any]:
    path = directory / PROVENANCE
    if not path.exists():
        return {}
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise StoreError(f"{path}: unreadable: {error}") from None
    return data


def record_run(directory: Path, spec: SweepSpec, run: dict[str, Any]) -> None:
    """Add ``run`` (how this invocation ran and how far it got) to the directory's provenance."""
    data = load(directory) or {"runs": []}
    data.update(  # the latest spec: the report draws its tables and plots
        {
            "spec_path": str(spec.path),
            "spec_sha256": spec.sha256,
            "cells_sha256": spec.cells_sha256,
            "spec": spec.text,
            "experiment": spec.experiment,
        }
    )
    data["runs"].append(
        {
            **run,
            "spec_sha256": spec.sha256,  # which version of the spec this run read
            "batchlab": _version("batchlab"),
            "git_commit": git_commit(),
            "python": sys.version.split()[0],
            "packages": {name: _version(name) for name in PACKAGES},
            "machine": {
                "node": platform.node(),
                "platform": platform.platform(),
                "processor": platform.machine(),
                "cpus": os.cpu_count(),
            },
            "argv": sys.argv,
        }
    )
    write_json_atomically(directory / PROVENANCE, data)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def git_commit() -> str:
    """The commit of the batchlab checkout the code runs from (``+dirty`` with local changes),
    or ``unknown`` for an installed copy outside git."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None
