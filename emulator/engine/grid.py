"""The grid level: the queue of jobs not yet routed to a cluster, and the platform-wide view."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from emulator.api.policy import Estimate
from emulator.api.view import ClusterView, SiteChange
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
        self.changes: list[tuple[SiteChange, Job, int]] = []  # since the last pass, in order

    def passed(self) -> None:
        super().passed()
        if self.changes:
            self.changes.clear()

    @property
    def clusters(self) -> Sequence[ClusterView]:
        return self._clusters

    def allowed(self, job: Job) -> list[int]:
        request = job.request
        return [state.index for state in self._clusters if state.admits(request)]

    def estimate(self, job: Job, cluster: int) -> Estimate:
        """The planning query, answered by the cluster's local policy."""
        state = self._clusters[cluster]
        return state.policy.estimate(job, state)

    def estimates(self, jobs: Iterable[Job], cluster: int) -> list[Estimate]:
        """The planning query for several jobs at once, from one plan of the cluster's queue."""
        state = self._clusters[cluster]
        return state.policy.estimates(jobs, state)

    def link_load(self, cluster: int) -> float:
        return self._network.used[cluster]
