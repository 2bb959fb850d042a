"""The economic policies' windows on the Gantt chart (Toporkov et al., ICCS 2011, §2–3: the
``alp`` and ``amp`` grid policies).

ALP and AMP search, for each job of a batch, several alternative windows (a set of slots that
start together and meet the job's speed, price and budget), then choose one window per job. The
chosen window is reserved: the job starts at its start on its nodes. The policy's explanation
says how many alternatives it chose from: ``AMP: 8 slots on east[01-02] at 00:00:00, cost
42566.4 within budget 70000.0 (best of 6 alternatives, minimising time)``, or ``the only
alternative``. The window reads that count from the snapshot's explanations (it sees the
session API only, never a policy) and marks the job's window, reserved or in use, with a solid
outline and ``best of N``, so students tell a chosen window from any other reservation."""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from emulator.session import Snapshot

ALTERNATIVES = re.compile(r"best of (\d+) alternatives|the only alternative")
Arrays = tuple[npt.NDArray[np.float64], ...]


def alternatives(explanation: str) -> int | None:
    """How many alternative windows the job's window was chosen from; None if not a window."""
    if "alternative" not in explanation:  # (cheap: most explanations are no window)
        return None
    found = ALTERNATIVES.search(explanation)
    if found is None:
        return None
    return int(found.group(1)) if found.group(1) else 1


class Windows:
    """The jobs with a chosen window, by job id, remembered for one snapshot version."""

    def __init__(self) -> None:
        self.version = -1
        self.counts: dict[int, int] = {}

    def counted(self, snapshot: Snapshot) -> dict[int, int]:
        """Job id -> the alternatives its window was the best of."""
        if snapshot.version != self.version:
            jobs = snapshot.jobs
            self.counts = {}
            for row, text in enumerate(jobs.explanation):
                count = alternatives(text) if text else None
                if count is not None:
                    self.counts[int(jobs.id[row])] = count
            self.version = snapshot.version
        return self.counts

    def outlines(self, snapshot: Snapshot, *drawn: Arrays) -> Arrays:
        """Of the (x0, x1, y0, y1, job id) arrays ``drawn`` (rectangles, reservations), those of
        jobs with a chosen window, in one set of arrays."""
        counts = self.counted(snapshot)
        x0, x1, y0, y1, ids = (np.concatenate(column) for column in zip(*drawn, strict=True))
        if not counts:
            keep = np.zeros(ids.size, bool)
        else:
            keep = np.isin(ids, np.fromiter(counts, np.float64, len(counts)))
        return x0[keep], x1[keep], y0[keep], y1[keep], ids[keep]

    def captions(self, snapshot: Snapshot, outlines: Arrays) -> list[tuple[float, float, str]]:
        """(x, y, text) of each window's caption, under its start (``5: best of 6``: the job
        and its alternatives), in the jobs' order."""
        counts = self.counted(snapshot)
        x0, _, _, y1, ids = outlines
        corners: dict[int, tuple[float, float]] = {}
        for x, y, job in zip(x0.tolist(), y1.tolist(), ids.astype(np.int64).tolist(), strict=True):
            known = corners.get(job)
            corners[job] = (x, y) if known is None else (min(known[0], x), max(known[1], y))
        return [
            (
                x,
                y,
                f"{job}: the only alternative"
                if counts[job] == 1
                else f"{job}: best of {counts[job]}",
            )
            for job, (x, y) in sorted(corners.items())
        ]
