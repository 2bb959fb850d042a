"""Play, pause, step and speed for a window attached to a daemon (``batchlab gui``'s own, or
``batchlab gui --socket``).

The daemon's clock is authoritative: the controls send it clock requests (only its operator
may), and the window shows its clock whoever steers it, the window following a pause or a
speed set with ``batchlab clock`` as well. Plain Python, no Qt: what :class:`gui.driver.Driver`
offers the window, for a :class:`~emulator.remote.RemoteSession`.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from emulator.remote import RemoteError, RemoteSession
from emulator.session import Pacer, Session
from gui.driver import Driver, Paced


class AttachedDriver(Paced):
    """The daemon's clock behind the window's controls. Its :attr:`pacer` mirrors the daemon's
    mode (for the clock label) and gives the window its wall clock; nothing runs here."""

    def __init__(self, session: RemoteSession, pacer: Pacer | None = None) -> None:
        self.session = session
        session.fetch_in_background = True  # the window's thread never waits for a snapshot
        self.pacer = pacer if pacer is not None else Pacer(paused=True)
        self.budget = 0.0  # the window sets it; the daemon needs none of the GUI's time
        self.stop_at = math.inf  # finite: Play runs the daemon there as fast as it can
        self._goal: threading.Event | None = None  # set once the daemon reached stop_at
        self.behind = False
        self.refused: str | None = None  # the daemon's last refusal of a clock request
        self._mirror()

    def _mirror(self) -> None:
        clock = self.session.clock
        self.pacer.paused = bool(clock.get("paused", True))
        speed = clock.get("speed", 1.0)
        self.pacer.speed = math.inf if speed is None else float(speed)

    def _steer(self, action: str, value: float | None = None) -> dict[str, Any] | None:
        """The daemon's answer, or None if it refused (:attr:`refused` says why)."""
        try:
            answer = self.session.steer(action, value)
        except RemoteError as problem:
            self.refused = str(problem)
            return None
        finally:
            self._mirror()
        self.refused = None
        return answer

    @property
    def trouble(self) -> str | None:
        """What the window's status bar should say is wrong: the daemon does not answer
        (:attr:`RemoteSession.problem <emulator.remote.RemoteSession.problem>`), or it refused
        the last clock request."""
        return self.session.problem or self.refused

    @property
    def playing(self) -> bool:
        goal = self._goal
        return not self.pacer.paused or (goal is not None and not goal.is_set())

    def play(self) -> None:
        """Resume the daemon's clock; with a finite :attr:`stop_at` (a screenshot's), ask it
        instead to run there as fast as it can, and stop (a clock ``until``: the daemon's
        pause, speed and other clients' requests do not hold it back)."""
        if math.isfinite(self.stop_at):
            if self._goal is None:
                self._goal = self.session.reach(
                    {"action": "until", "value": self.stop_at}, f"@ {self.stop_at:g}"
                )
        elif not self.playing:
            self._steer("resume")

    def pause(self) -> None:
        if self.playing:
            self._steer("pause")

    def set_speed(self, speed: float) -> None:
        if speed != self.speed:
            self._steer("speed", None if math.isinf(speed) else speed)

    def step(self) -> bool:
        """The daemon's clock to its next event (all of that instant's events and its pass),
        paused first; False when nothing is left to happen or the daemon refused."""
        self.pause()
        answer = self._steer("step")
        return answer is not None and "note" not in answer

    def tick(self) -> int:
        """Look at the daemon (its nodes, the cheap request, at most as often as the session
        asks for them) and follow its clock; no event runs here, so none is counted."""
        self.session.nodes_snapshot()
        self._mirror()
        return 0


def driver_for(
    session: Session | RemoteSession, pacer: Pacer | None, speed: float
) -> Driver | AttachedDriver:
    """The window's driver: a :class:`Driver` at ``speed`` for an in-process session, an
    :class:`AttachedDriver` (the daemon's own speed) for a daemon's."""
    if isinstance(session, RemoteSession):
        return AttachedDriver(session, pacer)
    driver = Driver(session, pacer)
    driver.set_speed(speed)
    return driver
