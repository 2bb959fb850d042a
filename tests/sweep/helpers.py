"""Shared pieces of the sweep tests: small specs of the calibration cell and a CLI runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from emulator.sweep.model import SweepSpec
from emulator.sweep.spec import parse_spec


def calibration_spec(
    directory: Path, xs: int = 4, seeds: int = 2, seconds: float = 0.0, fail: bool = False
) -> Path:
    """A spec of ``xs × seeds`` calibration cells (and as many failing ones with ``fail``)."""
    path = directory / "calibration-test.toml"
    failing = "[false, true]" if fail else "false"
    path.write_text(
        f"""experiment = "sleep"
title = "test"
seeds = {{ first = 0, count = {seeds} }}

[grid]
x = {list(range(1, xs + 1))}
fail = {failing}
seconds = {seconds}

[quick]
x = 1

[[table]]
title = "Draws"
rows = ["x"]
metrics = ["draw", "echo"]

[[plot]]
file = "draws.png"
title = "Draws"
x = "x"
y = ["draw"]

[paper]
citation = "uniform draws"
claims = ["Their mean is 0.5."]

[[paper.figure]]
metric = "draw"
value = 0.5
""",
        encoding="utf-8",
    )
    return path


def load(path: Path) -> SweepSpec:
    return parse_spec(path.read_text(encoding="utf-8"), path)


def batchlab(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "emulator.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def rows(directory: Path) -> list[dict[str, object]]:
    table: list[dict[str, object]] = pq.read_table(directory / "results.parquet").to_pylist()
    return table
