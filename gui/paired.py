"""Two daemons on one simulated clock, for a comparison window whose emulators run in daemons of
their own (``batchlab gui --compare``). Plain Python, no Qt: what :class:`gui.driver.Driver`
offers the window.

The window's thread never waits for them: a *goal* (a clock ``until`` to one simulated time) goes
to both at once, each runs to it on its own core, and the next goal goes once both have reached
it, so the two stand at the same time whenever neither is running. The driver's
:class:`~emulator.session.Pacer` maps wall time to the next goal (at a finite speed); running
flat out, a goal is as far as the daemons went in about :data:`GOAL_SECONDS`, measured from
the last one. A step waits: both run to the earlier of their next events, one instant.
"""

from __future__ import annotations

import math
import threading

from emulator.remote import RemoteError, RemoteSession
from emulator.session import Pacer
from gui.driver import Paced

# wall seconds a goal should take the daemons, running flat out: they wait for the window's next
# tick (34 ms) after each, so goals of a frame left them idle half the time (3.2x slower than one
# daemon alone on the window benchmark's platform); of 0.1 s, 1.65x
GOAL_SECONDS = 0.1
FIRST_SPAN = 60.0  # simulated seconds of the first goal, running flat out
STEP_TIMEOUT = 60.0  # wall seconds a step may wait for the daemons


class PairedDriver(Paced):
    """Play, pause, step and speed for ``sessions`` (daemons' sessions, at the same simulated
    time, paused). ``pacer`` is injectable (tests drive its clock)."""

    def __init__(self, sessions: tuple[RemoteSession, ...], pacer: Pacer | None = None) -> None:
        if len({session.now for session in sessions}) > 1:
            raise ValueError("sessions in lockstep must start at the same simulated time")
        self.sessions = sessions
        for session in sessions:
            session.fetch_in_background = True  # the window's thread never waits for one
        self.now = sessions[0].now  # where all stand, whenever no goal is out
        self.pacer = pacer if pacer is not None else Pacer(paused=True)
        self.pacer.pause(self.now)
        self.budget = 0.0  # the window sets it; the daemons need none of the GUI's time
        self.stop_at = math.inf
        self.behind = False  # the daemons are still on their way to the last goal
        self._goals: list[threading.Event] = []
        self._goal = self.now
        self._sent = 0.0  # wall time the goal was sent
        self._span = FIRST_SPAN

    @property
    def idle(self) -> bool:
        """Nothing is left to happen in either."""
        return all(session.idle for session in self.sessions)

    def play(self) -> None:
        self.pacer.resume(self.now)

    def pause(self) -> None:
        self.pacer.pause(self.now)

    def set_speed(self, speed: float) -> None:
        self.pacer.set_speed(speed, self.now)

    def tick(self) -> int:
        """Take the daemons' nodes (never waited for); once both reached the last goal, send
        the next. No event runs here, so none is counted."""
        for session in self.sessions:
            session.nodes_snapshot()
        if not self._arrived():
            return 0
        if not self.playing:
            return 0
        if self.now >= self.stop_at or self.idle:
            self.pause()
            return 0
        target = self.pacer.target()  # at a finite speed, behind daemons catch up at once
        if math.isinf(target):
            target = self.now + self._span
        target = min(target, self.stop_at)
        if target > self.now:
            self._send(target)
        return 0

    def _arrived(self) -> bool:
        """Whether no goal is out (the last one reached: ``now`` moves to it)."""
        if not self._goals:
            return True
        self.behind = not all(goal.is_set() for goal in self._goals)
        if self.behind:
            return False
        self._goals = []
        if math.isinf(self.speed):  # the next goal: about GOAL_SECONDS of the daemons' work
            took = self.pacer.wall() - self._sent
            # reached well within it: the daemons had time to spare
            self._span *= 2.0 if took < 1.5 * GOAL_SECONDS else max(0.5, GOAL_SECONDS / took)
        self.now = self._goal
        return True

    def _send(self, goal: float, *, last: bool = False) -> None:
        """Both daemons to ``goal``; ``last`` (a step's, ``stop_at``): the window then asks
        for their state at once, not in the background as it does while they run."""
        self._goal, self._sent = goal, self.pacer.wall()
        request = {"action": "until", "value": goal}
        fresh = last or goal >= self.stop_at
        self._goals = [
            session.reach(request, f"@ {goal:g}", fresh=fresh) for session in self.sessions
        ]

    def settle(self) -> None:
        """Wait for the daemons to reach the goal that is out, if any: both then stand at
        :attr:`now`."""
        for goal in self._goals:
            goal.wait(STEP_TIMEOUT)
        self._arrived()

    def step(self) -> bool:
        """Both daemons to the earlier of their next events (every event of that instant, and
        its pass), paused, waiting for them; False when nothing is left to happen in either."""
        self.pause()
        self.settle()
        upcoming = []
        for session in self.sessions:
            try:
                clock = session.steer("show")["clock"]
            except RemoteError:  # the daemon is gone: no step
                return False
            if clock.get("next_event") is not None:
                upcoming.append(float(clock["next_event"]))
        if not upcoming:
            return False
        self._send(max(min(upcoming), self.now), last=True)
        self.settle()
        self.pacer.pause(self.now)
        return True
