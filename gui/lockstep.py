"""Several sessions on one simulated clock, for side-by-side comparison. Plain Python, no Qt.

:class:`Lockstep` moves like one session (a :class:`gui.driver.Clocked`), so one
:class:`~gui.driver.Driver` plays, pauses, steps and paces them all. After every call all the
sessions stand at the same simulated time: one of them (the leader) advances within the event
bound, then the others run to the time it reached. Sessions cannot go back in time, so the one
bounded must be the one that would otherwise run ahead in cost: the leader is the live session
that has processed the most events so far (on one workload the counts stay close; they differ by
the timers and the job ends each policy causes).
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.session import Session


class Lockstep:
    """Sessions (same platform and workload, different schedulers) that advance together."""

    def __init__(self, sessions: Sequence[Session]) -> None:
        if not sessions:
            raise ValueError("lockstep needs at least one session")
        if len({session.now for session in sessions}) > 1:
            raise ValueError("sessions in lockstep must start at the same simulated time")
        self.sessions = tuple(sessions)
        self.events = [0] * len(self.sessions)  # processed by each so far

    @property
    def now(self) -> float:
        return self.sessions[0].now

    @property
    def idle(self) -> bool:
        """Nothing is left to happen in any of them."""
        return all(session.idle for session in self.sessions)

    def _leader(self) -> int:
        live = [k for k, session in enumerate(self.sessions) if not session.idle]
        return max(live, key=lambda k: self.events[k], default=0)

    def _follow(self, leader: int) -> None:
        """Bring every other session to the leader's time (at the same instant, each processes
        all of its events there: only the leader may stop inside an instant)."""
        now = self.sessions[leader].now
        for k, session in enumerate(self.sessions):
            if k != leader:
                self.events[k] += session.run_until(now)

    def run_until(self, until: float, max_events: int | None = None) -> int:
        """Advance all towards ``until`` (see :meth:`Session.run_until`); ``max_events`` bounds
        the leader's events, and that count is returned."""
        leader = self._leader()
        done = self.sessions[leader].run_until(until, max_events)
        self.events[leader] += done
        self._follow(leader)
        return done

    def step(self) -> bool:
        """Step the session whose next event comes first (see :meth:`Session.step`), and bring
        the others to its time. False when nothing is left to happen in any of them."""
        live = [k for k, session in enumerate(self.sessions) if not session.idle]
        if not live:
            return False
        leader = min(live, key=lambda k: self.sessions[k].next_time())
        stepped = self.sessions[leader].step()
        self.events[leader] += 1
        self._follow(leader)
        return stepped
