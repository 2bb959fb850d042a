"""The live platform as the ALP/AMP paper's slot list, and the multi-variant search over it
with allocations as the emulator makes them (models.md §4.7; Toporkov et al., ICCS 2011, §2).

A *lane* is one core of one node: a slot is a free interval of a lane, with the node's speed
as its performance and its price (per core-second) as the slot's price. A node's cores are
interchangeable, so a node of c cores is c lanes, each free from the time one of its cores
comes back (now, or a running job's expected end) and busy during the policy's own
reservations. A job of N cores asks for N concurrent slots.

Readings of ours, where the live emulator differs from the paper's model:

- **Rectangular windows.** The paper lets each task leave its slot at ``t / P(node)`` (a rough
  right edge). A Slurm allocation is held until the job ends, and the engine paces a job by
  its slowest node, so here every lane of a window is taken for the window's time
  ``t / P_min``: the cut is rectangular (:attr:`solvers.economic.slots.Hold.WINDOW`), and a
  window found by the paper's scan whose faster lanes would not last that long (a gap before a
  reservation) is refused: its short slots are set aside and the job scans again
  (:func:`solvers.economic.search.find_window`). The scans, the cut and the rounds are the
  paper's, in :mod:`solvers.economic.search` (the hold passed in).
- **Horizon.** The paper's slot list is finite; live, a core is free for ever once its jobs
  and reservations are over, and the rounds of the multi-variant search would never end. The
  list ends at a horizon: the time every core is free of them, plus the batch's longest task
  on the slowest node (:func:`horizon`), enough for every job to find a window there.
- **Cost** stays the paper's: Σ price × ``t / P(node)`` per task, so what the window promised
  is what the job is charged when it runs its limit (``emulator.model.cost``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from solvers.economic.slots import Slot


@dataclass(frozen=True, slots=True)
class Lane:
    """One core of a node: the platform node id, its speed and price per core-second."""

    node: int
    speed: float
    price: float


@dataclass(frozen=True, slots=True)
class Busy:
    """A reservation's hold on some lanes of one node: ``cores`` of them over [start, end)."""

    node: int
    cores: int
    start: float
    end: float


def slot_list(
    lanes: Sequence[Lane],
    releases: dict[int, list[float]],
    reservations: Sequence[Busy],
    horizon: float,
) -> list[Slot] | None:
    """The free slots of every lane, sorted by start (ties by lane), or None when the
    reservations no longer fit the lanes (a node went out of service: the caller plans again).

    ``releases``: for each node, when each of its usable cores comes back, one time per core
    (a core out of service has none; its lanes stay absent). Lanes are numbered as ``lanes``;
    a node's lanes are consecutive. A lane's last slot ends at ``horizon``. Reservations are
    placed in start order on the lanes that came free last before their start (best fit),
    which places every set of intervals that fits at all (interval partitioning).
    """
    by_node: dict[int, list[int]] = {}
    for index, lane in enumerate(lanes):
        by_node.setdefault(lane.node, []).append(index)
    free_from: dict[int, float] = {}
    for node, indexes in by_node.items():
        times = sorted(releases.get(node, ()))
        for index, time in zip(indexes, times, strict=False):
            free_from[index] = time
    slots: list[Slot] = []
    for busy in sorted(reservations, key=lambda b: (b.start, b.node, b.end)):
        lanes_of_node = by_node.get(busy.node, ())
        ready = [
            (free_from[i], i) for i in lanes_of_node if free_from.get(i, math.inf) <= busy.start
        ]
        if len(ready) < busy.cores:
            return None
        ready.sort(reverse=True)
        for since, index in ready[: busy.cores]:
            if busy.start > since:
                slots.append(_slot(lanes, index, since, busy.start))
            free_from[index] = busy.end
    for index, since in free_from.items():
        if since < horizon:
            slots.append(_slot(lanes, index, since, horizon))
    slots.sort(key=lambda slot: (slot.start, slot.node))
    return slots


def horizon(
    lanes: Sequence[Lane],
    releases: dict[int, list[float]],
    reservations: Sequence[Busy],
    now: float,
    longest: float,
) -> float:
    """Where the slot list ends: when every core is free of running jobs (of finite limit)
    and reservations, plus ``longest`` (the batch's longest task length) on the slowest lane."""
    free = max(
        [now]
        + [time for times in releases.values() for time in times if time < math.inf]
        + [busy.end for busy in reservations]
    )
    return free + longest / min(lane.speed for lane in lanes)


def _slot(lanes: Sequence[Lane], index: int, start: float, end: float) -> Slot:
    lane = lanes[index]
    return Slot(index, start, end, lane.speed, lane.price)
