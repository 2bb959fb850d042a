"""Queue-order list schedulers: the baselines OAS is compared with (Blanco et al., "OAS: a MIP model
for ordering and allocating parallel jobs on multi-cluster systems", §4.2; models.md §4.2).

FCFS, SJF (fewest tasks first), BJF (most tasks first), SPT (shortest base time first) and LPT
(longest first) keep a strict queue: the head waits until it fits. FPFS (fit processors first
served) starts, at each decision point, the first job in arrival order that fits. Decision points
are time 0 and every completion; nothing is ever preempted.

Allocation (the same for every order): among the free resources, the τ_j that minimise the
predicted Te_j without pushing any link over MBW_k. Te_j depends only on the slowest node, so the
fastest speed threshold that admits a link-feasible choice wins; among the choices at that
threshold the one loading the links least, then the one with the fastest nodes, is taken.
This is not :func:`solvers.coalloc.allocation.best`, the live co-allocator, on purpose: an
offline plan must be a feasible MIP solution, so a job that would saturate a link is never
placed (``best`` allows it as a last resort), and the ties go another way (``best`` prefers one
site, then less bandwidth, then earlier sites). The published baselines (docs/experiments/oas.md)
are this rule's.

Times are continuous (Te_j exactly). With ``slotted=True`` every duration is rounded up to whole
slots of η, which makes the schedule a feasible solution of the MIP (see ``default_slot_count``).
Jobs already running (``OasProblem.occupied``) hold their resources and link loads from time 0,
as if started before the batch; a job adds load only to a link it keeps within MBW_k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from solvers.common.links import fits_link
from solvers.common.orders import QueueOrder
from solvers.oas.problem import JobPlacement, OasJob, OasPlan, OasProblem


@dataclass(frozen=True, slots=True)
class _Choice:
    """A partial allocation over the first clusters: its cost and chosen resources."""

    bandwidth: float
    minus_speed: float
    resources: tuple[int, ...]

    def key(self) -> tuple[float, float]:
        return (self.bandwidth, self.minus_speed)


def allocate(
    problem: OasProblem, job: OasJob, free: Sequence[int], link_load: Sequence[float]
) -> tuple[int, ...] | None:
    """The free resources minimising Te_j without saturating a link, or None if none fit."""
    speeds = sorted({problem.resources[r].speed for r in free}, reverse=True)
    for threshold in speeds:
        choice = _allocate_at(problem, job, free, link_load, threshold)
        if choice is not None:
            return tuple(sorted(choice))
    return None


def _allocate_at(
    problem: OasProblem,
    job: OasJob,
    free: Sequence[int],
    link_load: Sequence[float],
    threshold: float,
) -> tuple[int, ...] | None:
    """Dynamic programme over clusters: best[n] = cheapest way to place n tasks so far."""
    best: dict[int, _Choice] = {0: _Choice(0.0, 0.0, ())}
    for cluster in range(problem.cluster_count):
        usable = job.may_use(cluster)
        fast = sorted(
            (
                r
                for r in free
                if usable
                and problem.resources[r].cluster == cluster
                and problem.resources[r].speed >= threshold
            ),
            key=lambda r: (-problem.resources[r].speed, r),
        )
        best = _extend(problem, job, best, fast, link_load[cluster], problem.link_capacity[cluster])
    final = best.get(job.tasks)
    return None if final is None else final.resources


def _extend(
    problem: OasProblem,
    job: OasJob,
    best: dict[int, _Choice],
    candidates: list[int],
    load: float,
    capacity: float,
) -> dict[int, _Choice]:
    """Add one cluster to the DP: put 0..len(candidates) more tasks on its fastest nodes."""
    grown: dict[int, _Choice] = {}
    for placed, choice in sorted(best.items()):
        for count in range(min(len(candidates), job.tasks - placed) + 1):
            bandwidth = job.link_bandwidth(count)
            if bandwidth and not fits_link(load + bandwidth, capacity):
                continue
            taken = candidates[:count]
            option = _Choice(
                choice.bandwidth + bandwidth,
                choice.minus_speed - sum(problem.resources[r].speed for r in taken),
                choice.resources + tuple(taken),
            )
            current = grown.get(placed + count)
            if current is None or option.key() < current.key():
                grown[placed + count] = option
    return grown


@dataclass(slots=True)
class _Run:
    index: int  # -1 for a job running before the batch (occupancy)
    end: float
    resources: tuple[int, ...]
    bandwidth: tuple[float, ...]


@dataclass(slots=True)
class _State:
    """What a list scheduler knows at the current decision point."""

    problem: OasProblem
    slotted: bool
    free: set[int]
    load: list[float]
    running: list[_Run]
    placements: dict[int, JobPlacement]
    now: float = 0.0

    def release_finished(self) -> None:
        for run in [r for r in self.running if r.end <= self.now]:
            self.running.remove(run)
            self.free.update(run.resources)
            self.load = [a - b for a, b in zip(self.load, run.bandwidth, strict=True)]

    def try_start(self, index: int) -> bool:
        job = self.problem.jobs[index]
        chosen = allocate(self.problem, job, sorted(self.free), self.load)
        if chosen is None:
            return False
        bandwidth = _bandwidth_by_cluster(self.problem, job, chosen)
        slowdown = max(self.problem.resources[r].slowdown for r in chosen)
        length = (
            job.slots_needed(slowdown, self.problem.slot_size)
            if self.slotted
            else job.run_time(slowdown)
        )
        self.running.append(_Run(index, self.now + length, chosen, bandwidth))
        self.free.difference_update(chosen)
        self.load = [a + b for a, b in zip(self.load, bandwidth, strict=True)]
        self.placements[index] = self._placement(job, chosen, self.now, self.now + length)
        return True

    def _placement(
        self, job: OasJob, chosen: tuple[int, ...], start: float, end: float
    ) -> JobPlacement:
        if not self.slotted:
            return JobPlacement(job.id, start, end, chosen)
        eta = self.problem.slot_size
        return JobPlacement(job.id, start * eta, end * eta, chosen, round(start), round(end))


def _bandwidth_by_cluster(
    problem: OasProblem, job: OasJob, chosen: tuple[int, ...]
) -> tuple[float, ...]:
    counts = [0] * problem.cluster_count
    for r in chosen:
        counts[problem.resources[r].cluster] += 1
    return tuple(job.link_bandwidth(n) for n in counts)


def _queue(jobs: Sequence[OasJob], order: QueueOrder) -> list[int]:
    """Job indices in queue order; ties keep arrival order (a stable sort)."""
    keys = {
        QueueOrder.SJF: lambda i: jobs[i].tasks,
        QueueOrder.BJF: lambda i: -jobs[i].tasks,
        QueueOrder.SPT: lambda i: jobs[i].base_time,
        QueueOrder.LPT: lambda i: -jobs[i].base_time,
    }
    indices = list(range(len(jobs)))
    key = keys.get(order)
    return indices if key is None else sorted(indices, key=key)


def list_schedule(
    problem: OasProblem, order: QueueOrder = QueueOrder.FCFS, *, slotted: bool = False
) -> OasPlan:
    """Schedule the batch in ``order``; raises ValueError for a job that cannot run even alone."""
    state = _State(
        problem, slotted, set(range(len(problem.resources))), [0.0] * problem.cluster_count, [], {}
    )
    for held in problem.occupied:
        end = held.slots(problem.slot_size) if slotted else held.until
        state.running.append(_Run(-1, end, held.resources, held.link_load))
        state.free.difference_update(held.resources)
        state.load = [a + b for a, b in zip(state.load, held.link_load, strict=True)]
    queue = _queue(problem.jobs, order)
    while queue:
        state.release_finished()
        _start_what_fits(state, queue, skip_blocked=order is QueueOrder.FPFS)
        if queue and not state.running:
            job = problem.jobs[queue[0]]
            raise ValueError(
                f"job {job.id} ({job.tasks} tasks, {job.task_bw} per-task bandwidth) cannot run "
                "even on the idle platform without saturating a link"
            )
        if queue:
            state.now = min(run.end for run in state.running)
    placements = tuple(state.placements[i] for i in range(len(problem.jobs)))
    return OasPlan(placements, max(p.end for p in placements))


def _start_what_fits(state: _State, queue: list[int], *, skip_blocked: bool) -> None:
    """Start the queue head while it fits; with ``skip_blocked`` (FPFS) any job that fits."""
    position = 0
    while position < len(queue):
        if state.try_start(queue[position]):
            queue.pop(position)  # the jobs before it fit even less now: no need to go back
        elif skip_blocked:
            position += 1
        else:
            return


def best_slotted_plan(problem: OasProblem) -> OasPlan:
    """The shortest slotted schedule over all queue orders (ties: the first order listed)."""
    plans = [list_schedule(problem, order, slotted=True) for order in QueueOrder]
    return min(plans, key=lambda plan: plan.makespan)
