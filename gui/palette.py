"""Job colours: a fixed palette indexed by a hash of the job id, so a job has the same colour in
every view and every run. Plain numpy (no Qt)."""

from __future__ import annotations

import colorsys

import numpy as np
import numpy.typing as npt

SIZE = 48  # palette entries; more than the jobs usually visible side by side


def _palette() -> npt.NDArray[np.uint8]:
    colours = []
    for i in range(SIZE):
        hue = (i * 0.618033988749895) % 1.0  # golden-ratio steps: neighbours differ a lot
        saturation = (0.55, 0.75, 0.45)[i % 3]
        value = (0.95, 0.80, 0.70)[(i // 3) % 3]
        r, g, b = colorsys.hsv_to_rgb(hue, saturation, value)
        colours.append((round(r * 255), round(g * 255), round(b * 255), 255))
    return np.array(colours, np.uint8)


PALETTE = _palette()  # (SIZE, 4) RGBA
IDLE = np.array((58, 62, 70, 255), np.uint8)  # a node with no job
BACKGROUND = np.array((24, 26, 31, 255), np.uint8)  # gaps between cells
SPEED = np.array((190, 196, 206, 255), np.uint8)  # the speed bar under each node
SPEED_TRACK = np.array((40, 43, 50, 255), np.uint8)
SELECTED = np.array((255, 255, 255, 255), np.uint8)  # outline of the selected job's nodes


def index(job_ids: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Palette index of each job id (Knuth's multiplicative hash; negative ids give -1)."""
    ids = np.asarray(job_ids, np.int64)
    hashed = (ids.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    result = ((hashed >> np.uint64(8)) % np.uint64(SIZE)).astype(np.int64)
    result[ids < 0] = -1
    return result


def colours(job_ids: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """RGBA of each job id; :data:`IDLE` for -1 (no job)."""
    where = index(job_ids)
    result = PALETTE[np.maximum(where, 0)].copy()
    result[where < 0] = IDLE
    return result


def colour(job_id: int) -> tuple[int, int, int]:
    """One job's RGB."""
    r, g, b, _ = (int(v) for v in colours([job_id])[0])
    return r, g, b
