"""The pacing adapter: the only place in batchlab that reads a monotonic clock.

A :class:`Pacer` maps wall time to the simulated time the simulation should have reached:
``sim = sim0 + (wall - wall0) * speed`` while running, ``sim0`` while paused, and no bound at
all at speed ``inf`` (as fast as possible). Every change of mode re-anchors ``(wall0, sim0)``
at the current simulated time, so a pause, a speed change or a jump (``clock advance``) never
makes the clock leap. The clock is injected, so tests drive it by hand.

It sits beside the kernel, not in the daemon: the daemon paces its controller with it, the
in-process session and the window's drivers pace theirs, and the kernel itself never reads a
clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class Pacer:
    """Simulated seconds per wall second (``speed``), paused or not."""

    __slots__ = ("_clock", "_sim0", "_wall0", "paused", "speed")

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        speed: float = 1.0,
        paused: bool = False,
        start: float = 0.0,
    ) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be > 0, got {speed}")
        self._clock = clock
        self.speed = speed
        self.paused = paused
        self._wall0 = clock()
        self._sim0 = start

    def wall(self) -> float:
        """Monotonic wall seconds (for the daemon's budgets; never for simulated time)."""
        return self._clock()

    def anchor(self, sim_now: float) -> None:
        """Let simulated time ``sim_now`` correspond to this wall instant."""
        self._wall0 = self._clock()
        self._sim0 = sim_now

    def target(self) -> float:
        """The simulated time the simulation should have reached by now."""
        if self.paused:
            return self._sim0
        if math.isinf(self.speed):
            return math.inf
        return self._sim0 + (self._clock() - self._wall0) * self.speed

    def delay(self, sim_time: float) -> float | None:
        """Wall seconds until ``sim_time`` is due: 0 when it already is, ``None`` when it never
        will be (paused, or no such time)."""
        if self.paused or math.isinf(sim_time):
            return None
        if math.isinf(self.speed):
            return 0.0
        due = self._wall0 + (sim_time - self._sim0) / self.speed
        return max(0.0, due - self._clock())

    def pause(self, sim_now: float) -> None:
        self.paused = True
        self.anchor(sim_now)

    def resume(self, sim_now: float) -> None:
        self.paused = False
        self.anchor(sim_now)

    def set_speed(self, speed: float, sim_now: float) -> None:
        """``speed`` simulated seconds per wall second; ``math.inf``: as fast as possible."""
        if not speed > 0:
            raise ValueError(f"speed must be > 0, got {speed}")
        self.speed = speed
        self.anchor(sim_now)

    @property
    def mode(self) -> str:
        """``paused``, ``as fast as possible`` or ``running at Xx``."""
        if self.paused:
            return "paused"
        if math.isinf(self.speed):
            return "as fast as possible"
        return f"running at {self.speed:g}x"
