"""Play, pause, step and speed for a window's daemons: one (``batchlab gui``'s own, or
``--socket``), or two on one simulated clock (``--compare``). Plain Python, no Qt.

The window never runs the emulator: its daemons do, each on a core of its own, and the window's
thread never waits for them (but to step). How the controls reach them depends only on how many
there are:

* **One daemon: its clock rules.** Play, pause and speed are clock requests (only the daemon's
  operator may send them), and the window shows the daemon's clock whoever steers it, following
  a pause or a speed set with ``batchlab clock`` as well. The :class:`~emulator.session.Pacer`
  mirrors the daemon's mode (for the clock label) and gives the window its wall clock.
* **Two daemons: the window's clock rules.** Both stay paused; a *goal* (a clock ``until`` to
  one simulated time) goes to both at once, each runs to it on its own core, and the next goal
  goes once both reached it, so the two stand at the same time whenever neither is running. The
  pacer maps wall time to the next goal (at a finite speed); running flat out, a goal is as far
  as the daemons went in about :data:`GOAL_SECONDS`, measured from the last one.

Either way a finite :attr:`Driver.stop_at` (a screenshot's) sends every daemon one goal there,
to run as fast as it can, and a step is one instant: all of the events of the earliest next
event's time, and the scheduling pass after them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

from emulator.remote import RemoteError, RemoteSession
from emulator.session import Pacer

# wall seconds a goal should take two daemons running flat out: they wait for the window's next
# tick after each, so goals of a frame left them idle half the time
GOAL_SECONDS = 0.1
FIRST_SPAN = 60.0  # simulated seconds of the first goal, running flat out
STEP_TIMEOUT = 60.0  # wall seconds a step may wait for the daemons


class Driver:
    """The controls of a window on ``sessions`` (one or two daemons' sessions; two must stand
    at the same simulated time, paused). ``pacer`` is injectable (tests drive its clock)."""

    def __init__(self, sessions: Sequence[RemoteSession], pacer: Pacer | None = None) -> None:
        if not 1 <= len(sessions) <= 2:
            raise ValueError(f"a window drives one or two daemons, not {len(sessions)}")
        if len({session.now for session in sessions}) > 1:
            raise ValueError("sessions in lockstep must start at the same simulated time")
        self.sessions = tuple(sessions)
        for session in sessions:
            session.fetch_in_background = True  # the window's thread never waits for one
        self.follows = len(sessions) == 1  # the lone daemon's clock rules (see the module)
        self.pacer = pacer if pacer is not None else Pacer(paused=True)
        self.stop_at = math.inf  # finite: Play runs every daemon there as fast as it can
        self.behind = False  # the daemons are still on their way to the last goal
        self.refused: str | None = None  # the daemon's last refusal of a clock request
        self._at = sessions[0].now  # where all stand, whenever no goal is out
        self._goals: list[threading.Event] = []
        self._goal = self._at
        self._sent = 0.0  # wall time the goal was sent
        self._span = FIRST_SPAN
        self._heading = False  # a goal to stop_at is out: playing, whatever the daemon's mode
        # pause once nothing is left to happen: a window's own daemon (set by the window), not
        # one attached to, whose clock other clients may want running
        self.stop_when_idle = False
        if self.follows:
            self._mirror()
        else:
            self.pacer.pause(self._at)

    # --- state ---------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return not self.pacer.paused

    @property
    def speed(self) -> float:
        return self.pacer.speed

    @property
    def now(self) -> float:
        """The simulated time shown: the lone daemon's, or where the pair stands."""
        return self.sessions[0].now if self.follows else self._at

    @property
    def idle(self) -> bool:
        """Nothing is left to happen in any of them."""
        return all(session.idle for session in self.sessions)

    @property
    def trouble(self) -> str | None:
        """What the window's status bar should say is wrong: a daemon does not answer
        (:attr:`RemoteSession.problem <emulator.remote.RemoteSession.problem>`), or it refused
        the last clock request."""
        problems = (session.problem for session in self.sessions)
        return next((problem for problem in problems if problem), None) or self.refused

    # --- the controls --------------------------------------------------------------------------
    def play(self) -> None:
        """Play; with a finite :attr:`stop_at`, every daemon to it as fast as it can, then
        pause (a clock ``until``: a daemon's pause, speed and other clients' requests do not
        hold it back)."""
        if math.isfinite(self.stop_at):
            if not self._heading:
                self._heading = True
                self.pacer.resume(self._at)
                self._send(self.stop_at)
        elif not self.follows:
            self.pacer.resume(self._at)
        elif not self.playing:
            self._steer("resume")

    def pause(self) -> None:
        self._heading = False
        if not self.follows:
            self.pacer.pause(self._at)
        elif self.playing:
            self._steer("pause")

    def set_speed(self, speed: float) -> None:
        """Simulated seconds per wall second (``math.inf``: as fast as possible)."""
        if not self.follows:
            self.pacer.set_speed(speed, self._at)
        elif speed != self.speed:
            self._steer("speed", None if math.isinf(speed) else speed)

    def step(self) -> bool:
        """Every daemon to the earliest of their next events (every event of that instant, and
        its pass), paused, waiting for them; False when nothing is left to happen or the daemon
        refused."""
        self.pause()
        if self.follows:
            answer = self._steer("step")
            return answer is not None and "note" not in answer
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
        self._send(max(min(upcoming), self._at), last=True)
        self.settle()
        self.pacer.pause(self._at)
        return True

    def tick(self) -> None:
        """What the window's timer calls: take the daemons' nodes (the cheap request, never
        waited for), follow the lone daemon's clock, and, once every daemon reached the last
        goal, send the pair the next. No event runs here."""
        for session in self.sessions:
            session.nodes_snapshot()
        if not self._arrived():
            return
        if self._heading and self._at >= self.stop_at:
            self.pause()
        if self.follows:
            if not self._heading:
                self._mirror()
                if self.stop_when_idle and self.playing and self.idle:
                    self.pause()  # the workload is done: the clock would run on over nothing
            return
        if not self.playing:
            return
        if self._at >= self.stop_at or self.idle:
            self.pause()
            return
        target = self.pacer.target()  # at a finite speed, behind daemons catch up at once
        if math.isinf(target):
            target = self._at + self._span
        target = min(target, self.stop_at)
        if target > self._at:
            self._send(target)

    def settle(self) -> None:
        """Wait for the daemons to reach the goal that is out, if any: all then stand at
        :attr:`now`."""
        for goal in self._goals:
            goal.wait(STEP_TIMEOUT)
        self._arrived()

    # --- the daemons ---------------------------------------------------------------------------
    def _mirror(self) -> None:
        clock = self.sessions[0].clock
        self.pacer.paused = bool(clock.get("paused", True))
        speed = clock.get("speed", 1.0)
        self.pacer.speed = math.inf if speed is None else float(speed)

    def _steer(self, action: str, value: float | None = None) -> dict[str, Any] | None:
        """The lone daemon's answer to a clock request, or None if it refused (:attr:`refused`
        says why)."""
        try:
            answer = self.sessions[0].steer(action, value)
        except RemoteError as problem:
            self.refused = str(problem)
            return None
        finally:
            self._mirror()
        self.refused = None
        return answer

    def _arrived(self) -> bool:
        """Whether no goal is out (the last one reached: :attr:`now` moves to it)."""
        if not self._goals:
            return True
        self.behind = not all(goal.is_set() for goal in self._goals)
        if self.behind:
            return False
        self._goals = []
        if math.isinf(self.speed) and not self._heading:  # the next: about GOAL_SECONDS' work
            took = self.pacer.wall() - self._sent
            # reached well within it: the daemons had time to spare
            self._span *= 2.0 if took < 1.5 * GOAL_SECONDS else max(0.5, GOAL_SECONDS / took)
        self._at = self._goal
        return True

    def _send(self, goal: float, *, last: bool = False) -> None:
        """Every daemon to ``goal``; ``last`` (a step's, ``stop_at``): the window then asks
        for their state at once, not in the background as it does while they run."""
        self._goal, self._sent = goal, self.pacer.wall()
        request = {"action": "until", "value": goal}
        fresh = last or goal >= self.stop_at
        self._goals = [
            session.reach(request, f"@ {goal:g}", fresh=fresh) for session in self.sessions
        ]
