"""ALP and AMP window searches and the multi-variant search over a batch (Toporkov et al.,
ICCS 2011, §2–3; models.md §4.7).

Both searches are one forward scan over a slot list sorted by start (§3: "we move only forward
through the list"). A slot *suits* when its node is fast enough (2°a), it lasts its task's run
time ``t / P(node)`` (2°b, models.md's reading) and, for ALP only, its price is within the cap
(2°c). A suited slot joins the window, the window start moves to that slot's start, and slots
whose remaining length no longer covers their run time from the new start *expire* (ALP 4°).

The expiry is kept in a heap keyed by each slot's latest possible window start
(``end − run time``): the window start only moves forward, so a slot that expired never comes
back and the heap's top is the next to go. AMP also keeps the alive slots sorted by cost, so
its N cheapest are the list's first N. A step costs O(log w) comparisons (w: the slots alive at
once, bounded by the slot lengths, not by m), so a scan is linear in the number of slots m, as
the paper counts it.
"""

from __future__ import annotations

import bisect
import enum
import heapq
from collections.abc import Sequence

from solvers.economic.slots import Request, Slot, Window, cut_window, start_of


class Algorithm(enum.Enum):
    """The two slot selection algorithms of §3."""

    ALP = "alp"
    """Local Price: every slot's price per time unit at most the cap C."""
    AMP = "amp"
    """Maximal job Price: the window's N cheapest slots cost at most S = C·t·N in total."""


def alp(slots: Sequence[Slot], request: Request) -> Window | None:
    """ALP (§3, steps 1°–6°): the earliest window of ``request.nodes`` suited slots each priced
    at most ``request.price_cap``; None when the list runs out first (the job waits for the
    next scheduling cycle)."""
    return _scan(slots, request, amp=False)


def amp(slots: Sequence[Slot], request: Request) -> Window | None:
    """AMP (§3, steps 1°–4°): scan as ALP without the per-slot price test; once the window
    holds N or more slots, take its N cheapest by cost (price × run time) and accept them if
    they cost at most the budget S = C·t·N, otherwise go on scanning. The window start is the
    start of the last slot added (step 3°), which all N chosen slots still cover."""
    return _scan(slots, request, amp=True)


def _scan(slots: Sequence[Slot], request: Request, *, amp: bool, first: int = 0) -> Window | None:
    """The scan from position ``first`` on (the slots before it cannot be in the window)."""
    need = request.nodes
    length = request.length
    floor = request.min_performance
    cap = request.price_cap
    budget = request.budget
    # the alive slots twice: by expiry (latest window start, position, cost) in a heap; for AMP
    # by (cost, position) in a sorted list, whose first N are the cheapest; the position
    # breaks ties and finds the slot
    expiry: list[tuple[float, int, float]] = []
    by_cost: list[tuple[float, int]] = []
    for position in range(first, len(slots)):
        slot = slots[position]
        if (not amp and slot.price > cap) or slot.performance < floor:
            continue
        run = length / slot.performance
        if slot.end - slot.start < run:
            continue
        start = slot.start
        cost = slot.price * run
        heapq.heappush(expiry, (slot.end - run, position, cost))
        if amp:
            bisect.insort(by_cost, (cost, position))
        while expiry[0][0] < start:
            _, gone, gone_cost = heapq.heappop(expiry)
            if amp:
                del by_cost[bisect.bisect_left(by_cost, (gone_cost, gone))]
        if len(expiry) < need:
            continue
        if not amp:  # the window grows by one slot a step, so it holds exactly N now
            return _window(slots, start, length, [position for _, position, _ in expiry])
        cheapest = by_cost[:need]
        if sum(cost for cost, _ in cheapest) <= budget:
            return _window(slots, start, length, [position for _, position in cheapest])
    return None


def _window(slots: Sequence[Slot], start: float, length: float, positions: list[int]) -> Window:
    """The window of the slots at ``positions``, kept in list order."""
    return Window(start, length, tuple(slots[position] for position in sorted(positions)))


def find_alternatives(
    slots: Sequence[Slot], batch: Sequence[Request], algorithm: Algorithm
) -> list[list[Window]]:
    """The multi-variant search (§2): round after round over the batch in priority order, each
    job gets at most one more window per round, and every window found is cut out of the slot
    list before the next job searches (Fig. 1 (b)), so alternatives never share processor time.
    The search ends when a round finds no window for any job.

    A job that found no window is not asked again in later rounds, and a job's next scan skips
    the slots that end before its last window's start: both scans find the earliest window the
    list holds (its latest-starting slot is reached with all its slots alive), and cutting only
    shrinks the free intervals, so a job's next window never starts earlier than its last and a
    job that found none finds none again. Skipping changes no result, only the work.
    """
    is_amp = algorithm is Algorithm.AMP
    longest = max((slot.end - slot.start for slot in slots), default=0.0)  # pieces are shorter
    found: list[list[Window]] = [[] for _ in batch]
    current = list(slots)
    searching = list(range(len(batch)))
    while searching:
        still = []
        for job in searching:
            first = 0
            if found[job]:
                horizon = found[job][-1].start - longest
                first = bisect.bisect_left(current, horizon, key=start_of)
            window = _scan(current, batch[job], amp=is_amp, first=first)
            if window is None:
                continue
            found[job].append(window)
            current = cut_window(current, window)
            still.append(job)
        searching = still
    return found
