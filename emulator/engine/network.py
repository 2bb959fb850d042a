"""Inter-cluster links as a fluid model (OAS paper §3.1; models.md §3).

Every job whose tasks span clusters draws bandwidth on their links (eq. 4). Whenever a job starts
or ends on a link, the jobs sharing that link are re-rated: each keeps the fraction of its work
it has done and runs the rest at ``1 / (Tb · ct)`` with ``ct`` from the new link load, so its end
moves.
A job whose tasks share one cluster loads no link and is never slowed by one.

The load of each link is recorded over time (used bandwidth at each change), and each job's
worst and time-averaged communication slowdown ``SC`` is kept on the job.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.model.job import Job
from emulator.model.network import link_bandwidth, link_slowdown, time_cost
from emulator.model.platform import Platform


@dataclass(slots=True)
class Flow:
    """A running job that loads links: how far it got and how fast it goes now."""

    job: Job
    base_time: float
    sigma: float
    slowest: float
    links: tuple[tuple[int, float], ...]  # (cluster, BW_j^k)
    hard_end: float  # start + wall-time limit: killed there
    progress: float = 0.0  # fraction of the work done at ``last``
    rate: float = 0.0  # fraction per second
    last: float = 0.0
    slowdown: float = 1.0  # SC_j now
    slowdown_area: float = 0.0  # ∫ SC_j dt so far

    def end(self, now: float) -> tuple[float, bool]:
        """When it ends at the current rate, and whether its limit kills it first."""
        natural = now + (1.0 - self.progress) / self.rate
        return (self.hard_end, True) if natural > self.hard_end else (natural, False)


class Network:
    """Link loads and the flows that make them."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.capacity = [cluster.link_capacity for cluster in platform.clusters]
        self.used = [0.0] * len(platform.clusters)
        self.history: list[list[tuple[float, float]]] = [[(0.0, 0.0)] for _ in platform.clusters]
        self.flows: dict[int, Flow] = {}

    def demand(self, job: Job) -> tuple[tuple[int, float], ...]:
        """``(cluster, BW_j^k)`` for each link the job loads on its nodes (eq. 4)."""
        communication = job.request.communication
        if communication is None or communication.task_bw <= 0:
            return ()
        per_task = job.request.cpus_per_task
        tasks: dict[int, int] = {}
        for node, cores in zip(job.nodes, job.node_cores, strict=True):
            k = self.platform.nodes[node].cluster
            tasks[k] = tasks.get(k, 0) + cores // per_task
        if len(tasks) < 2:
            return ()
        total = sum(tasks.values())
        return tuple(
            (k, link_bandwidth(t, total, communication.task_bw)) for k, t in sorted(tasks.items())
        )

    def start(
        self, job: Job, now: float, base_time: float, slowest: float, hard_end: float
    ) -> list[tuple[Job, float, bool]]:
        """Add a flow; returns ``(job, end, killed)`` for it and every flow whose pace changed."""
        communication = job.request.communication
        assert communication is not None
        flow = Flow(
            job, base_time, communication.sigma, slowest, self.demand(job), hard_end, last=now
        )
        self.flows[job.id] = flow
        return self._shift(now, flow.links, +1.0, flow)

    def finish(self, job: Job, now: float) -> list[tuple[Job, float, bool]]:
        """Remove a flow; returns the new ends of the flows whose pace changed."""
        flow = self.flows.pop(job.id)
        self._advance(flow, now)
        job.slowdown_max = max(job.slowdown_max, flow.slowdown)
        span = now - job.start
        job.slowdown_mean = flow.slowdown_area / span if span > 0 else flow.slowdown
        return self._shift(now, flow.links, -1.0, None)

    def _shift(
        self, now: float, links: tuple[tuple[int, float], ...], sign: float, new: Flow | None
    ) -> list[tuple[Job, float, bool]]:
        touched = set()
        for k, bandwidth in links:
            self.used[k] += sign * bandwidth
            if abs(self.used[k]) < 1e-12:
                self.used[k] = 0.0
            record = self.history[k]
            if record[-1][0] == now:
                record[-1] = (now, self.used[k])
            else:
                record.append((now, self.used[k]))
            touched.add(k)
        changed = []
        for flow in self.flows.values():
            if flow is not new and not any(k in touched for k, _ in flow.links):
                continue
            slowdown = max(link_slowdown(self.capacity[k], self.used[k]) for k, _ in flow.links)
            if flow is not new and slowdown == flow.slowdown:
                continue
            self._advance(flow, now)
            flow.slowdown = slowdown
            flow.job.slowdown_max = max(flow.job.slowdown_max, slowdown)
            flow.rate = 1.0 / (flow.base_time * time_cost(flow.sigma, flow.slowest, slowdown))
            changed.append((flow.job, *flow.end(now)))
        return changed

    @staticmethod
    def _advance(flow: Flow, now: float) -> None:
        elapsed = now - flow.last
        flow.progress += elapsed * flow.rate
        flow.slowdown_area += elapsed * flow.slowdown
        flow.last = now

    def link_slowdown(self, cluster: int) -> float:
        """``SC_k`` of one link now."""
        return link_slowdown(self.capacity[cluster], self.used[cluster])
