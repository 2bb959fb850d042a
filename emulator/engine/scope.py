"""What a scheduling pass visits: a *scope*, the grid or one cluster, with its queue.

The pass runs a scope's policy when the scope is *dirty*
(:meth:`~emulator.engine.queues.Queues.request_pass`), and the scope tells the policy what
happened since its last pass (``arrived``, ``ended``: plain attributes, since policies read them
on every pass and a property is a Python call each time).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from emulator.kernel import Kernel
from emulator.model.job import Job


def in_order(waiting: OrderedDict[int, Job]) -> tuple[Job, ...]:
    """A queue's jobs in order, read through the plain dict's entries rather than the
    OrderedDict's links, which look every key up again (a policy copies its queue on every
    pass, so this is hot on a long queue). The order is the same, since no queue is ever
    reordered in place (no ``move_to_end``: ``queues.insert`` rebuilds a queue to place a job
    that comes back)."""
    return tuple(dict.values(waiting))


class Scope:
    """A queue and what happened to it since the last pass; the part of
    :class:`emulator.api.ClusterView` and :class:`emulator.api.GridView` they share."""

    def __init__(self, kernel: Kernel) -> None:
        self._kernel = kernel
        # An OrderedDict, not a dict: jobs leave from the front all the time, and a plain dict
        # then makes finding the first one skip over every hole they left. (Read in order with
        # in_order, not .values().)
        self.waiting: OrderedDict[int, Job] = OrderedDict()
        self.arrived: list[Job] = []
        self.ended: list[Job] = []
        self.dirty = False

    @property
    def now(self) -> float:
        return self._kernel.now

    @property
    def queue(self) -> Sequence[Job]:
        return in_order(self.waiting)

    def passed(self) -> None:
        """The scope's pass is over: what happened since the last one has been seen."""
        if self.arrived:
            self.arrived.clear()
        if self.ended:
            self.ended.clear()
