"""The demo's windows in a real X display (Xvfb) at a projector's 1280 x 800 and at 1920 x 1080:
nothing the class must see is cut off or hidden. :mod:`tests.gui.screen_probe` opens the main
window, the same in presentation mode and the comparison as ``batchlab gui --demo`` does, runs
each to 04:00 and reports where things are; this checks the geometry: the window inside the
screen, the clock on screen and inside the window at its large size, the queue's reason column
inside its table and wide enough for the reasons shown, the status bar inside the window, and
three value labels at least on each metric plot, a line apart, on an axis wide enough."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("screen_probe.py")
AFTER = 4 * 3600.0


def inside(inner: list[int], outer: list[int]) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


def probe(width: int, height: int) -> list[dict[str, Any]]:
    done = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            f"-screen 0 {width}x{height}x24",
            sys.executable,
            str(PROBE),
            f"{AFTER:g}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=Path(__file__).parents[2],
        env={**os.environ, "QT_QPA_PLATFORM": "xcb"},  # (the other tests run offscreen)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs Xvfb (scripts/setup.sh)")
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_nothing_is_cut_off_or_hidden(size: tuple[int, int]) -> None:
    width, height = size
    results = probe(width, height)
    kinds = ["main", "presentation", "comparison", "comparison presented"]
    assert [r["kind"] for r in results] == kinds
    for r in results:
        kind = r["kind"]
        assert r["screen"] == [0, 0, width, height], kind
        assert inside(r["frame"], r["screen"]), kind  # the window fits the screen
        # the clock: shown, whole, inside the window, larger than the text around it
        assert r["clock_visible"], kind
        assert inside(r["clock"], r["window"]), kind
        assert "2026-11-22T04:00:00" in r["clock_text"], kind
        assert r["clock"][2] > 300, kind
        assert inside(r["status"], r["window"]), kind
        assert r["nodes_inside"], kind  # every cluster's grid whole in the Nodes view
        for ticks in r["metric_ticks"]:  # each metric plot: 0, halfway and the top, apart
            assert ticks["labels"] >= 3 and ticks["spacing"] >= ticks["line"], kind
            assert ticks["fits"], kind  # (no label dropped for want of room)
        if kind == "presentation":  # the projector's large tick labels
            assert all(t["points"] >= 13 for t in r["metric_ticks"]), kind
        if r["summary"] is not None:  # the comparison's figures: whole, in the window
            *rect, wide, high = r["summary"]  # (the lines' width and height)
            assert inside(rect, r["window"]) and rect[2] >= wide and rect[3] >= high, kind
        for reasons in r["reasons"]:  # the reason column: shown, starts in the table, fits
            x, _, column, _ = reasons["rect"]
            vx, _, vw, _ = reasons["viewport"]
            assert not reasons["hidden"], kind
            assert inside(reasons["viewport"], r["window"]), kind
            assert vx <= x and x + reasons["widest_text"] + 8 <= vx + vw, kind
            assert column >= reasons["widest_text"], kind
