"""The event kernel: a heap keyed by (time, kind, sequence), and an end-of-instant hook.

``kind`` orders events at one instant (completions, then arrivals, then timers), and the sequence
number breaks the remaining ties in insertion order, so a run is a pure function of its inputs.
Whoever needs to act once all events of an instant are in (the engine's scheduling pass) asks for
the *settle* hook; it runs when the next event lies strictly later, and may schedule more events
at the same instant. The kernel never reads the wall clock; pacing a live run against real time is
the job of a separate adapter.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from enum import IntEnum
from typing import Any


class EventKind(IntEnum):
    """What an event is; the value is its priority among events of the same time."""

    JOB_END = 0
    ARRIVAL = 1
    TIMER = 2


Handler = Callable[[Any], None]


class Kernel:
    """Deterministic discrete-event loop with cancellable events."""

    __slots__ = ("_cancelled", "_handlers", "_heap", "_seq", "_settle", "now", "settle_pending")

    def __init__(
        self,
        handlers: Mapping[EventKind, Handler],
        settle: Callable[[], None] | None = None,
        start: float = 0.0,
    ) -> None:
        self.now = start
        self._heap: list[tuple[float, int, int, Any]] = []
        self._seq = 0
        self._cancelled: set[int] = set()
        self._handlers = [handlers.get(kind) for kind in EventKind]
        self._settle = settle
        self.settle_pending = False

    def at(self, time: float, kind: EventKind, payload: Any = None) -> int:
        """Schedule an event; returns its id for :meth:`cancel`. Past times are an error."""
        if time < self.now:
            raise ValueError(f"cannot schedule {kind.name} at {time} before now ({self.now})")
        self._seq += 1
        heapq.heappush(self._heap, (time, kind, self._seq, payload))
        return self._seq

    def cancel(self, event_id: int) -> None:
        """Forget a scheduled event (cancelling one already processed changes nothing)."""
        self._cancelled.add(event_id)

    def request_settle(self) -> None:
        """Run the settle hook once the current instant's events are all processed."""
        self.settle_pending = True

    def next_time(self) -> float:
        """Time of the next live event, ``inf`` when none is left."""
        heap = self._heap
        while heap and heap[0][2] in self._cancelled:
            self._cancelled.discard(heapq.heappop(heap)[2])
        return heap[0][0] if heap else math.inf

    def step(self) -> bool:
        """Process one event, or the settle hook when it is due; False when there is nothing."""
        if self.settle_pending and self.next_time() > self.now:
            self._settle_if_due()
            return True
        return self.run(max_events=1) == 1

    def run(self, until: float = math.inf, max_events: int | None = None) -> int:
        """Process events with time <= ``until`` (then set the clock to ``until`` if finite).

        Returns the number of events processed; stops early after ``max_events``.
        """
        heap, cancelled, handlers, pop = self._heap, self._cancelled, self._handlers, heapq.heappop
        settle = self._settle
        limit = -1 if max_events is None else max_events
        count = 0
        self._settle_if_due()
        while heap and count != limit:
            time, kind, seq, payload = heap[0]
            if time > until:
                break
            pop(heap)
            if cancelled and seq in cancelled:
                cancelled.discard(seq)
            else:
                self.now = time
                handler = handlers[kind]
                if handler is not None:
                    handler(payload)
                count += 1
            # (the settle hook waits while a live event of this instant is left)
            if self.settle_pending:
                if not heap or heap[0][0] > time:  # the instant is over: the common case
                    self.settle_pending = False
                    if settle is not None:
                        settle()
                    if self.settle_pending:  # the hook asked again (it may have added events)
                        self._settle_if_due()
                elif heap[0][2] in cancelled:  # is a live event of this instant left?
                    self._settle_if_due()
        if until != math.inf and self.now < until and self.next_time() > until:
            self.now = until
        return count

    def _settle_if_due(self) -> None:
        """Run the settle hook while it is pending and the current instant has no event left."""
        heap = self._heap
        while self.settle_pending:
            if heap and heap[0][0] <= self.now and self.next_time() <= self.now:
                return  # (next_time only when an event of this instant may be left)
            self.settle_pending = False
            if self._settle is not None:
                self._settle()

    def __len__(self) -> int:
        """Live (not cancelled) events waiting in the heap."""
        return sum(1 for entry in self._heap if entry[2] not in self._cancelled)
