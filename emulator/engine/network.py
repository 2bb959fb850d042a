"""Inter-cluster link load (OAS paper §3.1, eq. 4–7; models.md §3).

A job with ``t_k`` of its ``τ`` tasks on cluster ``k`` draws
``BW_k = t_k · PTBW · (τ − t_k)/(τ − 1)`` on link ``k``; a link whose users ask more than its
capacity ``MBW_k`` is saturated (``SAT_k = MBW_k / ΣBW < 1``) and slows their communication by
``SC_k = 1 / SAT_k``.
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.model.job import Job
from emulator.model.platform import Platform


def tasks_per_cluster(platform: Platform, job: Job) -> dict[int, int]:
    """``t_j^k``: how many of the job's tasks run on each cluster (one task per cpus_per_task)."""
    per_task = job.request.cpus_per_task
    counts: dict[int, int] = {}
    for node, cores in zip(job.nodes, job.node_cores, strict=True):
        k = platform.nodes[node].cluster
        counts[k] = counts.get(k, 0) + cores // per_task
    return counts


def link_bandwidth(tasks_here: int, tasks: int, task_bw: float) -> float:
    """Eq. 4: bandwidth a job draws on one cluster's link; 0 when it does not span clusters."""
    if tasks <= 1 or tasks_here in (0, tasks):
        return 0.0
    return tasks_here * task_bw * (tasks - tasks_here) / (tasks - 1)


def slowdown(capacity: float, demand: float) -> float:
    """Eq. 5–6: ``SC_k``, 1 unless the link is saturated."""
    if demand <= capacity or demand == 0:
        return 1.0
    return demand / capacity


class LinkLoad:
    """Bandwidth drawn on each cluster's link by the running jobs."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.capacity: Sequence[float] = [c.link_capacity for c in platform.clusters]
        self.used = [0.0] * len(platform.clusters)
        self._by_job: dict[int, list[tuple[int, float]]] = {}

    def demand(self, job: Job) -> list[tuple[int, float]]:
        """``(cluster, BW_j^k)`` for each link the job would load on its nodes."""
        communication = job.request.communication
        if communication is None or communication.task_bw <= 0 or len(self.platform.clusters) == 1:
            return []
        counts = tasks_per_cluster(self.platform, job)
        if len(counts) < 2:
            return []
        tasks = sum(counts.values())
        return [(k, link_bandwidth(t, tasks, communication.task_bw)) for k, t in counts.items()]

    def add(self, job: Job) -> None:
        loads = self.demand(job)
        if loads:
            self._by_job[job.id] = loads
            for k, bandwidth in loads:
                self.used[k] += bandwidth

    def remove(self, job: Job) -> None:
        for k, bandwidth in self._by_job.pop(job.id, ()):
            self.used[k] -= bandwidth

    def job_slowdown(self, job: Job) -> float:
        """Eq. 7: ``SC_j``, the worst slowdown over the links the job uses."""
        return max(
            (slowdown(self.capacity[k], self.used[k]) for k, _ in self._by_job.get(job.id, ())),
            default=1.0,
        )
