"""Nodes out of service: drained or down (``scontrol update NodeName=… State=…``).

A node out of service keeps its cores from the free pool (:meth:`ClusterState.withhold`): policies
see fewer free cores and a smaller planning capacity, and never place a job there. Setting a node
down also kills the jobs running on it (the engine ends them NODE_FAIL, as under Slurm's
``JobRequeue=0``: batchlab does not requeue them, a teacher sees the failure in ``sacct``).
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.engine.queues import Queues
from emulator.kernel import Kernel
from emulator.model.job import Job
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Platform


class NodeStateError(ValueError):
    """A node-state change the nodes do not allow; the message is Slurm's."""


class NodeService:
    """Which nodes are out of service and why; keeps their cores out of the clusters' pools."""

    def __init__(self, platform: Platform, kernel: Kernel, queues: Queues) -> None:
        self._platform = platform
        self._kernel = kernel
        self._queues = queues
        self.status: dict[int, NodeStatus] = {}  # node id -> why it is out of service

    def check(self, node_ids: Sequence[int]) -> None:
        """Raise unless every node id names a node (and there is at least one)."""
        if not node_ids or not all(0 <= n < len(self._platform.nodes) for n in node_ids):
            raise NodeStateError("Invalid node name specified")

    def jobs_on(self, node_ids: Sequence[int]) -> list[Job]:
        """The running jobs that use any of the nodes, by job id."""
        doomed = set(node_ids)
        running = {j.id: j for s in self._queues.clusters for j in s.active.values()}
        return sorted(
            (job for job in running.values() if doomed.intersection(job.nodes)),
            key=lambda j: j.id,
        )

    def names(self, job: Job, node_ids: Sequence[int]) -> str:
        """The job's nodes among ``node_ids``, comma-separated."""
        chosen = set(node_ids)
        return ",".join(self._platform.nodes[n].name for n in job.nodes if n in chosen)

    def mark(self, node_ids: Sequence[int], state: NodeState, reason: str, user: str) -> None:
        """Mark existing nodes ``state`` (withheld once, however often they are set); the
        clusters' next pass sees their cores gone."""
        status = NodeStatus(state, reason, user, self._kernel.now)
        for node_id in node_ids:
            node = self._platform.nodes[node_id]
            if node_id not in self.status:
                self._queues.clusters[node.cluster].withhold(node.local)
            self.status[node_id] = status
        self._queues.request_pass()

    def resume(self, node_ids: Sequence[int]) -> None:
        """Put drained or down nodes back in service."""
        self.check(node_ids)
        if any(n not in self.status for n in node_ids):
            raise NodeStateError("Invalid node state specified")
        for node_id in node_ids:
            del self.status[node_id]
            node = self._platform.nodes[node_id]
            self._queues.clusters[node.cluster].restore(node.local)
        self._queues.request_pass()
