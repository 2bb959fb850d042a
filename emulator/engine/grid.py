"""The grid level: the queue of jobs not yet routed to a cluster, and the platform-wide view."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from emulator.api.policy import Estimate
from emulator.api.view import ClusterView
from emulator.engine.network import Network
from emulator.engine.nodes import ClusterState, in_order
from emulator.kernel import Kernel
from emulator.model.job import Job
from emulator.model.platform import Platform


class GridState:
    """The grid queue and the platform-wide view; implements :class:`emulator.api.GridView`."""

    def __init__(
        self, platform: Platform, kernel: Kernel, clusters: list[ClusterState], network: Network
    ) -> None:
        self.platform = platform
        self._kernel = kernel
        self._clusters = clusters
        self._network = network
        self.waiting: OrderedDict[int, Job] = OrderedDict()  # see ClusterState.waiting
        self.arrived: list[Job] = []  # since the last pass (see ClusterState)
        self.ended: list[Job] = []
        self.dirty = False

    @property
    def now(self) -> float:
        return self._kernel.now

    @property
    def queue(self) -> Sequence[Job]:
        return in_order(self.waiting)

    @property
    def clusters(self) -> Sequence[ClusterView]:
        return self._clusters

    def estimate(self, job: Job, cluster: int) -> Estimate:
        """The planning query, answered by the cluster's local policy."""
        state = self._clusters[cluster]
        return state.policy.estimate(job, state)

    def link_load(self, cluster: int) -> float:
        return self._network.used[cluster]

    def passed(self) -> None:
        """The grid's pass is over: what happened since the last one has been seen."""
        self.arrived.clear()
        self.ended.clear()
