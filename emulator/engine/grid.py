"""The grid level: the queue of jobs not yet routed to a cluster, and the platform-wide view."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from emulator.api.view import ClusterView, Estimate, SiteChange
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
        # every cluster's default partition is plain: a plain request without -M is admitted
        # wherever its cores fit (asked twice per arrival on a grid, so answered without calls)
        self._plain = all(state.plain_partition for state in clusters)
        self._capacities = [(state.index, state.capacity_total) for state in clusters]

    def passed(self) -> None:
        super().passed()
        if self.changes:
            self.changes.clear()

    @property
    def clusters(self) -> Sequence[ClusterView]:
        return self._clusters

    def allowed(self, job: Job) -> list[int]:
        request = job.request
        if self._plain and request.plain and not request.clusters:
            cores = request.cores
            return [k for k, capacity in self._capacities if cores <= capacity]
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
