"""The grid level: the queue of jobs not yet routed to a cluster, and the platform-wide view."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from emulator.api.policy import Estimate
from emulator.api.view import ClusterView, SiteChange
from emulator.engine.nodes import in_order
from emulator.model.job import Job
from emulator.model.platform import Platform

if TYPE_CHECKING:
    from emulator.engine.engine import Engine


class GridState:
    """The grid queue and the platform-wide view; implements :class:`emulator.api.GridView`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.waiting: OrderedDict[int, Job] = OrderedDict()  # see ClusterState.waiting
        self.arrived: list[Job] = []  # since the last pass (see ClusterState)
        self.ended: list[Job] = []
        self.changes: list[tuple[SiteChange, Job, int]] = []  # since the last pass too
        self.dirty = False

    @property
    def now(self) -> float:
        return self._engine.now

    @property
    def platform(self) -> Platform:
        return self._engine.platform

    @property
    def queue(self) -> Sequence[Job]:
        return in_order(self.waiting)

    @property
    def clusters(self) -> Sequence[ClusterView]:
        return self._engine.clusters

    def estimate(self, job: Job, cluster: int) -> Estimate:
        return self._engine.estimate(job, cluster)

    def estimates(self, jobs: Iterable[Job], cluster: int) -> list[Estimate]:
        return self._engine.estimates(jobs, cluster)

    def link_load(self, cluster: int) -> float:
        return self._engine.network.used[cluster]
