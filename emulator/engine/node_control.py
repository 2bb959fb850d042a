"""Draining, downing and resuming nodes (``scontrol update NodeName=… State=…``).

A mixin of :class:`~emulator.engine.engine.Engine`, like :mod:`emulator.engine.control`. A node
out of service keeps its cores from the free pool (:meth:`ClusterState.withhold`): policies see
fewer free cores and a smaller planning capacity, and never place a job there. Setting a node
down also kills the jobs running on it; they end NODE_FAIL, as under Slurm's ``JobRequeue=0``
(batchlab does not requeue them: a teacher sees the failure in ``sacct``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from emulator.engine.nodes import ClusterState
from emulator.kernel import Kernel
from emulator.model.job import Job, JobState
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Platform


class NodeStateError(ValueError):
    """A node-state change the nodes do not allow; the message is Slurm's."""


class NodeControl:
    """Node states on top of the cluster states; see the module docstring."""

    platform: Platform
    kernel: Kernel
    clusters: list[ClusterState]
    node_status: dict[int, NodeStatus]

    if TYPE_CHECKING:

        def _release(self, job: Job) -> None: ...
        def _finish(self, job: Job, state: JobState, explanation: str = "") -> None: ...
        def _left(self, job: Job) -> None: ...
        def _request_pass(self) -> None: ...

    def _check_nodes_exist(self, node_ids: Sequence[int]) -> None:
        if not node_ids or not all(0 <= n < len(self.platform.nodes) for n in node_ids):
            raise NodeStateError("Invalid node name specified")

    def drain(self, node_ids: Sequence[int], reason: str, user: str = "root") -> None:
        """Take nodes out of service; their running jobs finish, no new job starts there."""
        self._check_nodes_exist(node_ids)
        self._set(node_ids, NodeState.DRAIN, reason, user)

    def down(self, node_ids: Sequence[int], reason: str, user: str = "root") -> list[Job]:
        """Take nodes out of service now: the jobs running on them end NODE_FAIL (returned)."""
        self._check_nodes_exist(node_ids)
        doomed = set(node_ids)
        killed = [
            job
            for job in {j.id: j for s in self.clusters for j in s.active.values()}.values()
            if doomed.intersection(job.nodes)
        ]
        for job in sorted(killed, key=lambda j: j.id):
            names = ",".join(self.platform.nodes[n].name for n in job.nodes if n in doomed)
            self._release(job)
            self._finish(job, JobState.NODE_FAIL, f"node {names} set DOWN: {reason}")
            self._left(job)
        self._set(node_ids, NodeState.DOWN, reason, user)
        return killed

    def resume(self, node_ids: Sequence[int]) -> None:
        """Put drained or down nodes back in service."""
        self._check_nodes_exist(node_ids)
        if any(n not in self.node_status for n in node_ids):
            raise NodeStateError("Invalid node state specified")
        for node_id in node_ids:
            del self.node_status[node_id]
            node = self.platform.nodes[node_id]
            self.clusters[node.cluster].restore(node.local)
        self._request_pass()

    def _set(self, node_ids: Sequence[int], state: NodeState, reason: str, user: str) -> None:
        """Mark existing nodes ``state`` (withheld once, however often they are set)."""
        status = NodeStatus(state, reason, user, self.kernel.now)
        for node_id in node_ids:
            node = self.platform.nodes[node_id]
            if node_id not in self.node_status:
                self.clusters[node.cluster].withhold(node.local)
            self.node_status[node_id] = status
        self._request_pass()
