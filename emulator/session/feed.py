"""Feeding a workload to a session: its jobs submitted as the clock reaches their submit times."""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator
from itertools import count

from emulator.model.job import Submission
from emulator.slurmctld.controller import Controller

__all__ = ["WorkloadFeed"]


class WorkloadFeed:
    """The workloads fed to ``controller``, streamed: one submission of each is held, the
    next pulled when it is submitted, so a trace of any length costs no memory up front."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        # (submit time, sequence, submission, the stream it came from)
        self._pending: list[tuple[float, int, Submission, Iterator[Submission]]] = []
        self._seq = count()

    def __bool__(self) -> bool:
        """Whether a job is still to arrive."""
        return bool(self._pending)

    def add(self, submissions: Iterable[Submission]) -> None:
        self._pull(iter(submissions))

    def next_time(self) -> float:
        """When the next job arrives (``inf``: none is left)."""
        return self._pending[0][0] if self._pending else math.inf

    def submit_due(self) -> None:
        """Submit the jobs whose time has come (the clock is at their submit time)."""
        pending, ctl = self._pending, self.controller
        while pending and pending[0][0] <= ctl.now:
            _, _, item, source = heapq.heappop(pending)
            ctl.add_workload_job(item.request, item.runtime)
            self._pull(source)

    def _pull(self, source: Iterator[Submission]) -> None:
        item = next(source, None)
        if item is not None:
            at = max(item.submit, self.controller.now)
            heapq.heappush(self._pending, (at, next(self._seq), item, source))
