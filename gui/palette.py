"""Job colours: a fixed palette indexed by a hash of the job id, so a job has the same colour in
every view and every run. Two sets of colours: the default one, and a high-contrast one for
presentation mode (:func:`use` switches; the views read the module's colours when they draw).
Plain numpy (no Qt)."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SIZE = 48  # palette entries; more than the jobs usually visible side by side
Rgba = npt.NDArray[np.uint8]


def _palette(saturations: tuple[float, ...], values: tuple[float, ...]) -> Rgba:
    """SIZE colours in golden-ratio hue steps (neighbours differ a lot); entry i has the same hue
    in every palette, so a job keeps its hue when the palette changes."""
    colours = []
    for i in range(SIZE):
        hue = (i * 0.618033988749895) % 1.0
        saturation = saturations[i % 3]
        value = values[(i // 3) % 3]
        r, g, b = colorsys.hsv_to_rgb(hue, saturation, value)
        colours.append((round(r * 255), round(g * 255), round(b * 255), 255))
    return np.array(colours, np.uint8)


def _rgba(r: int, g: int, b: int) -> Rgba:
    return np.array((r, g, b, 255), np.uint8)


@dataclass(frozen=True, eq=False)
class Colours:
    """Everything the views colour: jobs, and the parts of a node cell."""

    name: str
    jobs: Rgba  # (SIZE, 4) RGBA
    idle: Rgba  # a node with no job
    background: Rgba  # gaps between cells, the Gantt chart's background
    speed: Rgba  # the speed bar under each node
    speed_track: Rgba
    selected: Rgba  # outline of the selected job's nodes
    drained: Rgba  # stripes over the free part of a drained node
    down: Rgba  # stripes over a node that is down


DEFAULT = Colours(
    "default",
    _palette((0.55, 0.75, 0.45), (0.95, 0.80, 0.70)),
    idle=_rgba(58, 62, 70),
    background=_rgba(24, 26, 31),
    speed=_rgba(190, 196, 206),
    speed_track=_rgba(40, 43, 50),
    selected=_rgba(255, 255, 255),
    drained=_rgba(214, 158, 46),
    down=_rgba(200, 48, 48),
)
# for a projector: saturated jobs on black, idle a light grey no job colour is close to
HIGH_CONTRAST = Colours(
    "high contrast",
    _palette((1.0, 0.85, 0.70), (1.0, 0.88, 0.76)),
    idle=_rgba(150, 150, 150),
    background=_rgba(0, 0, 0),
    speed=_rgba(255, 255, 255),
    speed_track=_rgba(70, 70, 70),
    selected=_rgba(255, 255, 255),
    drained=_rgba(255, 200, 0),
    down=_rgba(255, 0, 0),
)

# the colours in use (rebound by use())
CURRENT = DEFAULT
PALETTE = DEFAULT.jobs
IDLE = DEFAULT.idle
BACKGROUND = DEFAULT.background
SPEED = DEFAULT.speed
SPEED_TRACK = DEFAULT.speed_track
SELECTED = DEFAULT.selected
OUT_OF_SERVICE = np.stack([DEFAULT.drained, DEFAULT.down])  # by service code - 1 (see nodes)


def use(colours: Colours) -> None:
    """Draw with ``colours`` from now on (views with cached images recolour themselves)."""
    global CURRENT, PALETTE, IDLE, BACKGROUND, SPEED, SPEED_TRACK, SELECTED, OUT_OF_SERVICE
    CURRENT = colours
    PALETTE, IDLE, BACKGROUND = colours.jobs, colours.idle, colours.background
    SPEED, SPEED_TRACK, SELECTED = colours.speed, colours.speed_track, colours.selected
    OUT_OF_SERVICE = np.stack([colours.drained, colours.down])


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
