"""Slots, resource requests and windows of the ALP/AMP paper, and the slot subtraction of its
Fig. 1 (b) (Toporkov et al., *Resource Selection Algorithms for Economic Scheduling in
Distributed Systems*, ICCS 2011, §2–3; models.md §4.7).

A slot is a free interval on one node; a slot list is sorted by start time (non-decreasing),
the order every search needs. Slots of one node never overlap (they are that node's free
intervals), so a window never holds two slots of one node.

Reading (models.md §4.7): a task of length ``t`` runs ``t / P(node)`` on a node of performance
``P(node)``; the printed step 2°b (``L(s_k) ≥ t·P(s_k)/P``) would make faster nodes need
*longer* slots and cannot reproduce the paper's figures.
"""

from __future__ import annotations

import bisect
import enum
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Slot:
    """A free interval ``[start, end)`` on ``node``, its performance and price per time unit."""

    node: int
    start: float
    end: float
    performance: float
    price: float

    def run_time(self, length: float) -> float:
        """How long a task of ``length`` (on a performance-1 node) runs on this slot's node."""
        return length / self.performance


@dataclass(frozen=True, slots=True)
class Request:
    """A job's resource request (§3): ``nodes`` concurrent slots of performance at least
    ``min_performance`` for a task ``length`` (on a performance-1 node), each at a price per
    time unit of at most ``price_cap`` (ALP's C). AMP replaces the cap by the window budget
    ``S = rho·C·t·N`` (§3; rho = ``budget_factor``, 1 in the paper's experiment, §6)."""

    nodes: int
    length: float
    min_performance: float
    price_cap: float
    budget_factor: float = 1.0

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise ValueError(f"a request needs at least one node, got {self.nodes}")
        if not self.length > 0 or not math.isfinite(self.length):
            raise ValueError(f"a request's length must be positive, got {self.length}")
        if not self.budget_factor > 0:
            raise ValueError(f"the budget factor must be positive, got {self.budget_factor}")

    @property
    def budget(self) -> float:
        """AMP's maximal window budget S = rho·C·t·N (§3, §6)."""
        return self.budget_factor * self.price_cap * self.length * self.nodes


class Hold(enum.Enum):
    """How long a window keeps each of its slots: what the cut takes out (§2, Fig. 1 (b))."""

    TASK = "task"
    """Each slot until its own task ends, ``t / P(node)`` after the window start: the paper's
    cut, a rough right edge."""
    WINDOW = "window"
    """Every slot until the slowest task ends (the window's time): a rectangular cut, as a
    Slurm allocation is held until the job ends and the engine paces a job by its slowest node
    (the live policies, :mod:`solvers.economic.lanes`)."""


@dataclass(frozen=True, slots=True)
class Window:
    """One alternative: the slots it uses (as they were in the list) and the common start.

    Every task starts at ``start`` (the start of the last slot added, §3 ALP 4°) and runs
    ``length / P`` on its node, so the right edge is rough; the window's time is its slowest
    task's (§2, Fig. 1 (a)) and its cost the sum of price × run time over its slots.
    """

    start: float
    length: float
    sources: tuple[Slot, ...]

    @property
    def time(self) -> float:
        """t_i(s_i): the run time of the slowest task."""
        return max(slot.run_time(self.length) for slot in self.sources)

    @property
    def cost(self) -> float:
        """c_i(s_i): the total cost of the window's slots."""
        return sum(slot.price * slot.run_time(self.length) for slot in self.sources)

    def used(self, source: Slot, hold: Hold = Hold.TASK) -> tuple[float, float]:
        """The interval K' this window takes out of ``source`` when it holds its slots so."""
        if hold is Hold.WINDOW:
            return self.start, self.start + self.time
        return self.start, self.start + source.run_time(self.length)


def cut_window(slots: list[Slot], window: Window, hold: Hold = Hold.TASK) -> list[Slot]:
    """The slot list without the window's intervals (§2, Fig. 1 (b)); ``slots`` is unchanged.

    Each used slot K loses K' = ``window.used(K, hold)`` (by default [window start, window
    start + its task's run time], the paper's; :attr:`Hold.WINDOW`: to the slowest task's end,
    the same for every slot), found by identity in the list: the piece before,
    K1 = [K.start, K'.start], keeps K's place (same start); the piece after,
    K2 = [K'.end, K.end], is inserted by its start, after any slot with the same start (the
    paper leaves ties open; after keeps the order stable). Zero-length pieces are dropped.
    """
    kept = list(slots)
    cut_in_place(kept, window, hold)
    return kept


def cut_in_place(kept: list[Slot], window: Window, hold: Hold = Hold.TASK) -> None:
    """:func:`cut_window` on ``kept`` itself, for a search that owns its list: a copy per cut
    costs as much as the cut's own work, every cut of every round."""
    held = window.used(window.sources[0], hold) if hold is Hold.WINDOW else None
    for source in window.sources:
        index = bisect.bisect_left(kept, source.start, key=start_of)
        while index < len(kept) and kept[index] is not source:
            if kept[index].start != source.start:
                index = len(kept)
                break
            index += 1
        if index == len(kept):
            raise ValueError("the window uses a slot that is not in the slot list")
        begin, end = held or window.used(source)
        if begin > source.start:
            kept[index] = Slot(source.node, source.start, begin, source.performance, source.price)
        else:
            del kept[index]
        if source.end > end:
            piece = Slot(source.node, end, source.end, source.performance, source.price)
            kept.insert(bisect.bisect_right(kept, piece.start, key=start_of), piece)


start_of: Callable[[Slot], float] = operator.attrgetter("start")
"""A slot's start: the key the slot list is sorted by (a C-level getter: bisect calls it at
every probe)."""
