"""The grid level: the queue of jobs not yet routed to a cluster, and the platform-wide view."""

from __future__ import annotations

from collections.abc import Sequence

from emulator.api.policy import Estimate
from emulator.api.view import ClusterView
from emulator.engine.network import Network
from emulator.engine.nodes import ClusterState
from emulator.engine.scope import Scope
from emulator.kernel import Kernel
from emulator.model.job import Job
from emulator.model.platform import Platform


class GridState(Scope):
    """The grid queue and the platform-wide view; implements :class:`emulator.api.GridView`."""

    def __init__(
        self, platform: Platform, kernel: Kernel, clusters: list[ClusterState], network: Network
    ) -> None:
        super().__init__(kernel)
        self.platform = platform
        self._clusters = clusters
        self._network = network

    @property
    def clusters(self) -> Sequence[ClusterView]:
        return self._clusters

    def estimate(self, job: Job, cluster: int) -> Estimate:
        """The planning query, answered by the cluster's local policy."""
        state = self._clusters[cluster]
        return state.policy.estimate(job, state)

    def link_load(self, cluster: int) -> float:
        return self._network.used[cluster]
