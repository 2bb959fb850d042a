"""Drives a session against wall time in bounded slices: what the window's timer calls.

Plain Python, no Qt. Each :meth:`Driver.tick` runs the engine towards the pacer's target for
about ``budget`` wall seconds, in chunks of events sized from the measured cost per event (a
quarter of the budget each), so the GUI thread is never blocked for long, however fast the
emulation is asked to go and however costly its events are. The wall clock is read only through
the :class:`~emulator.session.Pacer`.
"""

from __future__ import annotations

import math

from emulator.session import Pacer, Session

MAX_CHUNK = 20000  # events per run_until call, at most


class Driver:
    """Play, pause, step and speed for one session."""

    def __init__(
        self,
        session: Session,
        pacer: Pacer | None = None,
        *,
        budget: float = 0.012,
        chunk: int = 50,
    ) -> None:
        self.session = session
        self.pacer = pacer if pacer is not None else Pacer(paused=True, start=session.now)
        self.pacer.pause(session.now)
        self.budget = budget
        self.chunk = chunk
        self.stop_at = math.inf  # simulated time at which play stops by itself
        self.behind = False  # the last tick ran out of budget before reaching the target

    @property
    def playing(self) -> bool:
        return not self.pacer.paused

    @property
    def speed(self) -> float:
        return self.pacer.speed

    def play(self) -> None:
        self.pacer.resume(self.session.now)

    def pause(self) -> None:
        self.pacer.pause(self.session.now)

    def set_speed(self, speed: float) -> None:
        """Simulated seconds per wall second (``math.inf``: as fast as possible)."""
        self.pacer.set_speed(speed, self.session.now)

    def step(self) -> bool:
        """Pause, then one kernel step (see :meth:`Session.step`)."""
        self.pause()
        return self.session.step()

    def tick(self) -> int:
        """Advance towards the pacer's target within the budget; returns the events processed."""
        if not self.playing:
            return 0
        session, pacer = self.session, self.pacer
        target = min(pacer.target(), self.stop_at)
        now = pacer.wall()
        deadline = now + self.budget
        done = 0
        self.behind = False
        while True:
            chunk = self.chunk
            processed = session.run_until(target, max_events=chunk)
            done += processed
            before, now = now, pacer.wall()
            if processed == chunk:  # a full chunk: size the next to about a quarter budget
                per_event = max(now - before, 1e-7) / processed
                self.chunk = max(1, min(MAX_CHUNK, int(self.budget / 4 / per_event)))
            if processed < chunk:  # reached the target, or nothing is left to do
                break
            if now >= deadline:
                self.behind = True
                break
        if self.behind and not math.isinf(pacer.speed):
            pacer.anchor(session.now)  # do not build up a debt to catch up later in a burst
        # at a finite speed an idle platform's clock keeps running (jobs may still be typed in)
        if session.now >= self.stop_at or (math.isinf(target) and session.idle):
            self.pause()
        return done
