"""Drives a session against wall time in bounded slices, and schedules the redraws: what the
window's timer calls.

Plain Python, no Qt. Each :meth:`Driver.tick` runs the engine towards the pacer's target for
about ``budget`` wall seconds, in chunks of events sized from the measured cost per event (an
eighth of the budget each; no chunk is started that would end past the budget), so the GUI
thread is never blocked for long, however fast the emulation is asked to go and however costly
its events are. :class:`Frames` decides, tick by tick, that budget and which views to redraw.
The wall clock is read only through the :class:`~emulator.session.Pacer`.

The emulator and the GUI share one thread, in turns. A worker thread was measured and rejected:
the engine is pure Python, so under the GIL a thread only interleaves with the GUI (no second
core for it), every session access would need a lock, and the lock handoffs made the emulator
slower (58 % of its headless rate against about 85 % here) and frames irregular (one over 2 s).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from typing import Protocol

from emulator.session import Pacer

MAX_CHUNK = 20000  # events per run_until call, at most
FRAME = 1 / 30  # at most 30 redraws per wall second
EARLY = 0.005  # a slice may end this much before its budget (a chunk is an eighth of it)
BLOCK = 0.040  # wall seconds a tick holds the thread (slice + redraw) running flat out
MIN_SLICE = 0.004  # wall seconds of emulation per tick, at least


class Clocked(Protocol):
    """What a driver moves: a :class:`~emulator.session.Session`, or several sessions in
    lockstep (:class:`gui.lockstep.Lockstep`)."""

    @property
    def now(self) -> float: ...

    @property
    def idle(self) -> bool: ...

    def run_until(self, until: float, max_events: int | None = None) -> int: ...

    def step(self) -> bool: ...


class Paced:
    """A driver whose :class:`~emulator.session.Pacer` says whether it plays, and how fast."""

    pacer: Pacer

    @property
    def playing(self) -> bool:
        return not self.pacer.paused

    @property
    def speed(self) -> float:
        return self.pacer.speed


class Driver(Paced):
    """Play, pause, step and speed for one session, or for several in lockstep."""

    def __init__(
        self,
        session: Clocked,
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
            if processed == chunk:  # a full chunk: size the next to about an eighth of the budget
                per_event = max(now - before, 1e-7) / processed
                self.chunk = max(1, min(MAX_CHUNK, int(self.budget / 8 / per_event)))
            if processed < chunk:  # reached the target, or nothing is left to do
                break
            if now + (now - before) >= deadline:  # another chunk like this one would overrun
                self.behind = True
                break
        if self.behind and not math.isinf(pacer.speed):
            pacer.anchor(session.now)  # do not build up a debt to catch up later in a burst
        # at a finite speed an idle platform's clock keeps running (jobs may still be typed in)
        if session.now >= self.stop_at or (math.isinf(target) and session.idle):
            self.pause()
        return done


class Frames:
    """The window's schedule: which views a tick redraws, and how long the emulator runs first.

    * Redraws: one per :data:`FRAME` of wall time at most (less :data:`EARLY`, as a slice may
      end that much before its budget: else that redraw would wait a whole slice more),
      always from the latest state; in it, each view at most at its own rate (``rates``, per
      second), only if visible and only if the snapshot changed since it last drew. Views
      faster than the frame rate are drawn in every redraw; of the slower ones, only the most
      overdue, so that their costs spread over the frames instead of piling up in one.
    * Emulation: while the timer runs back to back (the emulator at full speed, or behind a
      finite one), a tick (slice, redraw, Qt's painting) holds the thread for :data:`BLOCK`:
      the slice gets what its redraw will not take, as predicted from the earlier redraws of
      the same kind (with the same slow view, or of the fast views alone), each measured from
      the end of a slice to the start of the next. A redraw with the queue table costs several
      times one of the nodes alone: it shortens its slice rather than lengthening its tick,
      and may then follow the previous redraw within a frame (the rate stays one per tick). A
      slice is never shorter than the average redraw (a GUI too dear for :data:`BLOCK` makes
      the ticks longer: the emulator keeps half of the thread), nor, before a redraw of the
      fast views alone, ends before that redraw is allowed (it would wait a whole slice more).

    ``wall`` is the clock (the pacer's): tests drive it by hand.
    """

    def __init__(self, wall: Callable[[], float], rates: Mapping[str, float]) -> None:
        self.wall = wall
        self.intervals = {name: 1.0 / rate for name, rate in rates.items()}
        self.drawn_at = dict.fromkeys(rates, -math.inf)  # wall time each view last drew
        self.drawn_version = dict.fromkeys(rates, -1)  # the snapshot version it drew
        self.last = -math.inf  # wall time of the last redraw
        # wall seconds of GUI work per redraw, smoothed, by kind: the slow view in it (None:
        # the fast views alone)
        self.cost: dict[str | None, float] = {}
        self.average = 0.0  # wall seconds of GUI work per redraw, smoothed over every kind
        self.planned: str | None = None  # the slow view the current tick's redraw is to draw
        self.kind: str | None = None  # the kind of the last redraw
        self.sliced = math.nan  # wall time the last slice ended (nan: not back to back)
        self.drew = False  # the last tick redrew

    @property
    def gui(self) -> float:
        """The predicted cost of the coming redraw (wall seconds); a slow view not measured
        yet is taken to cost half a tick (its first redraw makes a snapshot's every row)."""
        if self.planned is None:
            return self.cost.get(None, 0.0)
        return self.cost.get(self.planned, BLOCK / 2)

    def budget(self, back_to_back: bool, visible: Collection[str]) -> float:
        """The emulator's wall budget for the tick starting now, whose redraw will draw the
        views of ``visible`` then due. ``back_to_back``: the timer fires as soon as the GUI is
        done (no idle time since the last slice), so the time since then measures the last
        redraw's cost."""
        now = self.wall()
        if back_to_back and self.drew and not math.isnan(self.sliced):
            measured = min(now - self.sliced, 2 * BLOCK)
            old = self.cost.get(self.kind)
            self.cost[self.kind] = measured if old is None else 0.7 * old + 0.3 * measured
            self.average = 0.9 * self.average + 0.1 * measured
        # a slice cut short for a dear redraw only when the ticks follow each other (at a
        # finite speed the timer spaces them by a frame)
        planned = self._slowest(visible, now + BLOCK - self.cost.get(None, 0.0))
        self.planned = planned if back_to_back else None
        until_frame = 0.0
        if self.planned is None:  # a redraw of the fast views: not before it is allowed
            until_frame = self.last + FRAME + 0.001 - now
        return max(MIN_SLICE, BLOCK - self.gui, self.average, until_frame)

    def sliced_now(self) -> None:
        """The tick's emulation slice is over (what follows is GUI work)."""
        self.sliced = self.wall()
        self.drew = False

    def _slowest(self, visible: Collection[str], at: float) -> str | None:
        """The view slower than the frame rate to draw at wall time ``at``: the most overdue
        relative to its interval (None: none is due)."""
        ready = [
            name
            for name, interval in self.intervals.items()
            if interval > FRAME and name in visible and at - self.drawn_at[name] >= interval
        ]
        if not ready:
            return None
        return max(ready, key=lambda name: (at - self.drawn_at[name]) / self.intervals[name])

    def due(self, version: int, visible: Collection[str]) -> list[str]:
        """The views to redraw now from snapshot ``version`` (none if nothing changed, nor
        within a frame of the last redraw unless the slow view planned for this tick is due:
        its slice was cut short to make room for it), marked as drawn: the fast ones, and the
        slow one planned if it is due, else the most overdue."""
        now = self.wall()
        ready = [
            name
            for name, interval in self.intervals.items()
            if name in visible
            and self.drawn_version[name] != version
            # the fast views: one redraw a frame, as below, which allows for a tick that
            # comes a little early (else the frame after such a tick would be skipped)
            and (interval <= FRAME or now - self.drawn_at[name] >= interval)
        ]
        every = [name for name in ready if self.intervals[name] <= FRAME]
        slow = [name for name in ready if self.intervals[name] > FRAME]
        if now - self.last < FRAME - EARLY and self.planned not in slow:
            return []
        self.kind = None
        if slow:
            self.kind = (
                self.planned
                if self.planned in slow
                else max(slow, key=lambda name: (now - self.drawn_at[name]) / self.intervals[name])
            )
            every.append(self.kind)
        if every:
            self.last = now
            self.drew = True
            for name in every:
                self.drawn_at[name] = now
                self.drawn_version[name] = version
        return every

    def drawn(self, version: int, views: Collection[str]) -> None:
        """``views`` were just redrawn outside the schedule (after a command, a step...)."""
        now = self.wall()
        self.last = now
        for name in views:
            self.drawn_at[name] = now
            self.drawn_version[name] = version
