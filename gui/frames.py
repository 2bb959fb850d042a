"""The window's redraw schedule: which views a tick of the timer redraws. Plain Python, no Qt.

The emulator runs in a daemon (:mod:`gui.driver`), so the window's thread only draws: what is
worth drawing, and how often, is all there is to decide here. The wall clock is the pacer's,
passed in: tests drive it by hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping

FRAME = 1 / 30  # at most 30 redraws per wall second
EARLY = 0.005  # a tick may come this much before its frame and still redraw


class Frames:
    """Redraws: one per :data:`FRAME` of wall time at most (less :data:`EARLY`: a timer tick
    that comes a little early would otherwise skip a whole frame), always from the latest
    state; in it, each view at most at its own rate (``rates``, per second), only if visible
    and only if the snapshot changed since it last drew. Views faster than the frame rate are
    drawn in every redraw; of the slower ones, only the most overdue, so that their costs spread
    over the frames instead of piling up in one."""

    def __init__(self, wall: Callable[[], float], rates: Mapping[str, float]) -> None:
        self.wall = wall
        self.intervals = {name: 1.0 / rate for name, rate in rates.items()}
        self.drawn_at = dict.fromkeys(rates, -math.inf)  # wall time each view last drew
        self.drawn_version = dict.fromkeys(rates, -1)  # the snapshot version it drew
        self.last = -math.inf  # wall time of the last redraw

    def due(self, version: int, visible: Collection[str]) -> list[str]:
        """The views to redraw now from snapshot ``version`` (none if nothing changed, nor
        within a frame of the last redraw), marked as drawn: the fast ones, and the slow one
        most overdue for its rate."""
        now = self.wall()
        if now - self.last < FRAME - EARLY:
            return []
        ready = [
            name
            for name, interval in self.intervals.items()
            if name in visible
            and self.drawn_version[name] != version
            # the fast views: one redraw a frame, as above, which allows for a tick that
            # comes a little early (else the frame after such a tick would be skipped)
            and (interval <= FRAME or now - self.drawn_at[name] >= interval)
        ]
        every = [name for name in ready if self.intervals[name] <= FRAME]
        slow = [name for name in ready if self.intervals[name] > FRAME]
        if slow:
            every.append(
                max(slow, key=lambda name: (now - self.drawn_at[name]) / self.intervals[name])
            )
        if every:
            self.drawn(version, every)
        return every

    def drawn(self, version: int, views: Collection[str]) -> None:
        """``views`` were just redrawn (by the schedule, or after a command, a step...)."""
        now = self.wall()
        self.last = now
        for name in views:
            self.drawn_at[name] = now
            self.drawn_version[name] = version
