"""ALP and AMP window searches and the multi-variant search over a batch (Toporkov et al.,
ICCS 2011, §2–3; models.md §4.7).

Both searches are one forward scan over a slot list sorted by start (§3: "we move only forward
through the list"). A slot *suits* when its node is fast enough (2°a), it lasts its task's run
time ``t / P(node)`` (2°b, models.md's reading) and, for ALP only, its price is within the cap
(2°c). A suited slot joins the window, the window start moves to that slot's start, and slots
whose remaining length no longer covers their run time from the new start *expire* (ALP 4°).

The expiry is kept in a heap keyed by each slot's latest possible window start
(``end − run time``): the window start only moves forward, so a slot that expired never comes
back and the heap's top is the next to go. AMP also keeps the alive slots' costs in a sorted
list of floats, so its N cheapest sum the list's first N, and sums them only at a step whose
new slot is one of them. A step costs O(log w) comparisons (w: the slots alive at once, bounded
by the slot lengths, not by m), so a scan is linear in the number of slots m, as the paper
counts it.
"""

from __future__ import annotations

import bisect
import enum
import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from solvers.economic.slots import Hold, Request, Slot, Window, cut_in_place, start_of


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
    found = _scan(slots, request, amp=False)
    return found.window if found else None


def amp(slots: Sequence[Slot], request: Request) -> Window | None:
    """AMP (§3, steps 1°–4°): scan as ALP without the per-slot price test; once the window
    holds N or more slots, take its N cheapest by cost (price × run time) and accept them if
    they cost at most the budget S = C·t·N, otherwise go on scanning. The window start is the
    start of the last slot added (step 3°), which all N chosen slots still cover."""
    found = _scan(slots, request, amp=True)
    return found.window if found else None


@dataclass(frozen=True, slots=True)
class _Found:
    """A scan's window, and the earliest start of a slot alive at the window's start but left
    out of it (AMP's dearer ones; infinite when none was, as always for ALP, whose window is
    every alive slot): where the same job's next scan must look from."""

    window: Window
    left_out_from: float


def _scan(
    slots: Sequence[Slot], request: Request, *, amp: bool, first: int = 0, begin: int = 0
) -> _Found | None:
    """The scan of the slots from position ``first`` on, with steps from ``begin`` on.

    The slots in ``[first, begin)`` join without a step of their own (no check), for a caller
    that knows no window starts before ``slots[begin]``. Then one step per suited slot: it
    joins, the expired leave (ALP 4°), and the window is checked. AMP sums its N cheapest
    only when the new slot is one of them: otherwise they are N slots that were alive one step
    earlier, whose N cheapest were then no dearer and did not fit (a smaller set has dearer N
    cheapest, and rounding is monotone).
    """
    need = request.nodes
    length = request.length
    floor = request.min_performance
    cap = math.inf if amp else request.price_cap
    budget = request.budget
    # the alive slots as (latest window start, cost, position) in a heap by expiry, and for
    # AMP their costs alone in a sorted list, whose first N sum the N cheapest
    expiry: list[tuple[float, float, int]] = []
    costs: list[float] = []
    push, pop, locate = heapq.heappush, heapq.heappop, bisect.bisect_right  # the hot loop's calls
    check_below = len(slots)  # every step checks until one has: the joined were never checked
    for position in range(first, len(slots)):
        slot = slots[position]
        performance, price = slot.performance, slot.price
        if price > cap or performance < floor:
            continue
        run = length / performance
        start, end = slot.start, slot.end
        latest = end - run
        if end - start < run or latest < start:  # the latter: it would expire on joining
            continue
        cost = price * run
        if position < begin:
            push(expiry, (latest, cost, position))
            if amp:
                costs.insert(locate(costs, cost), cost)
            continue
        while expiry and expiry[0][0] < start:
            gone = pop(expiry)[1]
            if amp:
                del costs[locate(costs, gone) - 1]
        push(expiry, (latest, cost, position))
        if not amp:
            if len(expiry) >= need:  # one more slot a step: exactly N now
                chosen = [position for _, _, position in expiry]
                return _Found(_window(slots, start, length, chosen), math.inf)
            continue
        rank = locate(costs, cost)  # the alive of equal cost come first: they are older
        costs.insert(rank, cost)
        if rank < check_below and len(costs) >= need:
            check_below = need
            if sum(costs[:need]) <= budget:
                alive = sorted((cost, position) for _, cost, position in expiry)
                chosen = [position for _, position in alive[:need]]
                left_out = min((position for _, position in alive[need:]), default=None)
                left_out_from = math.inf if left_out is None else slots[left_out].start
                return _Found(_window(slots, start, length, chosen), left_out_from)
    return None


def _window(slots: Sequence[Slot], start: float, length: float, positions: list[int]) -> Window:
    """The window of the slots at ``positions``, kept in list order."""
    return Window(start, length, tuple(slots[position] for position in sorted(positions)))


def find_window(
    slots: Sequence[Slot], request: Request, algorithm: Algorithm, hold: Hold = Hold.TASK
) -> Window | None:
    """The earliest window of ``request`` by the paper's scan (ALP or AMP) every slot of which
    lasts as long as ``hold`` keeps it. With :attr:`Hold.TASK` the scan's own test (2°b)
    guarantees it: one scan. With :attr:`Hold.WINDOW` a window whose faster slots would not
    last the slowest task's time (a gap before a reservation) is refused: its short slots are
    set aside and the scan runs again (each retry drops at least one slot, so this ends)."""
    found = _find(slots, request, algorithm is Algorithm.AMP, hold, _FROM_THE_START)
    return found[0] if found else None


_FROM_THE_START = (-math.inf, -math.inf)


def _find(
    slots: Sequence[Slot],
    request: Request,
    is_amp: bool,
    hold: Hold,
    resume: tuple[float, float],
) -> tuple[Window, tuple[float, float]] | None:
    """:func:`find_window` with every scan joining slots from start ``resume[0]`` and stepping
    from ``resume[1]`` on, and where the same job's next search (on this list cut, filtered
    the same way) may resume: from its first scan's window E (the earliest window of the list;
    a retry's window never starts before it), whose slots and left-out ones (AMP) are the only
    slots starting before E alive at E. With the paper's cut the window is E and its own slots
    end at its start once cut, so the left-out ones alone join (see :func:`find_alternatives`).
    """
    candidates = slots
    after: tuple[float, float] | None = None
    while True:
        first = bisect.bisect_left(candidates, resume[0], key=start_of)
        begin = bisect.bisect_left(candidates, resume[1], first, key=start_of)
        found = _scan(candidates, request, amp=is_amp, first=first, begin=begin)
        if found is None:
            return None
        window = found.window
        if after is None:
            alive_from = window.start if hold is Hold.TASK else window.sources[0].start
            after = (min(found.left_out_from, alive_from), window.start)
        if hold is Hold.TASK:
            return window, after
        end = window.used(window.sources[0], hold)[1]
        short = {id(s) for s in window.sources if s.end < end}
        if not short:
            return window, after
        candidates = [s for s in candidates if id(s) not in short]


def find_alternatives(
    slots: Sequence[Slot],
    batch: Sequence[Request],
    algorithm: Algorithm,
    *,
    hold: Hold = Hold.TASK,
    rounds: int = 0,
    usable: Sequence[Callable[[Slot], bool] | None] = (),
) -> list[list[Window]]:
    """The multi-variant search (§2): round after round over the batch in priority order, each
    job gets at most one more window per round, and every window found is cut out of the slot
    list (as ``hold`` keeps its slots) before the next job searches (Fig. 1 (b)), so
    alternatives never share processor time. The search ends when a round finds no window for
    any job, or after ``rounds`` rounds (0: no limit, the paper's rule). ``usable[j]``, when
    given and not None, is the filter of the slots job j may use (the live nodes it may run
    on); job j scans only those.

    A job that found no window is not asked again in later rounds, and a job's next scan steps
    only from its last first-scan window's start W on: a scan finds the earliest window the
    list holds (its latest-starting slot is reached with all its slots alive), and cutting
    only shrinks the free intervals, so a job's next window never starts earlier than W and a
    job that found none finds none again (a rectangular retry scans a subset of the list:
    its window starts no earlier). Of the slots starting before W, only pieces of those alive
    at W in the last scan can still be alive at W (every slot of the list is a piece of one
    the last scan saw, on its node, starting no earlier, no longer): they join from the
    earliest of their starts (:func:`_find`). Skipping changes no result, only the work.
    """
    is_amp = algorithm is Algorithm.AMP
    found: list[list[Window]] = [[] for _ in batch]
    resume = [_FROM_THE_START] * len(batch)
    current = list(slots)
    searching = list(range(len(batch)))
    done = 0
    while searching and (not rounds or done < rounds):
        still = []
        for job in searching:
            accept = usable[job] if usable else None
            mine = current if accept is None else [s for s in current if accept(s)]
            result = _find(mine, batch[job], is_amp, hold, resume[job])
            if result is None:
                continue
            window, resume[job] = result
            found[job].append(window)
            cut_in_place(current, window, hold)
            still.append(job)
        searching = still
        done += 1
    return found
