"""The OAS problem and its answers as plain data (Blanco et al., "OAS: a MIP model for ordering and
allocating parallel jobs on multi-cluster systems", §3.1 and Fig. 2).

Both MIP formulations, the queue-order heuristics and the solver front end share these types. The
timing rule lives on :class:`OasJob` because every formulation must use the same one: a job on
resources whose slowest speed is ``Γ`` runs ``Tb · ct`` with ``ct = sigma / Γ + (1 - sigma)``
(eq. 1-3 and (18): the model forbids link saturation, so the communication slowdown SC is 1), and
in a slotted schedule it holds ``ceil(Tb · ct / η)`` whole slots.

The paper plans a batch on an idle platform. A grid policy that re-plans while jobs run passes
those jobs as :class:`Occupancy` (the project's extension, kept out of the way when empty): their
resources are busy from time 0 until they are predicted to end, and their link loads stay on the
links meanwhile. A link that the running jobs already load beyond MBW_k (they were not planned by
OAS) takes no further load until they end: the room left on a link is never below 0.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from emulator.model.network import link_bandwidth

#: Slack for float noise when a run time is an exact multiple of the slot size (2.0000000001 → 2).
TIME_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class OasResource:
    """One processing resource (a node running one task at a time) of cluster ``cluster``."""

    name: str
    cluster: int
    speed: float  # effective power Γ^r ∈ (0, 1]

    @property
    def slowdown(self) -> float:
        """Processing slowdown SP^r = 1 / Γ^r (models.md §1)."""
        return 1.0 / self.speed


@dataclass(frozen=True, slots=True)
class OasJob:
    """A rigid bulk-synchronous job: τ tasks, base time Tb at speed 1.0, weight sigma, PTBW.

    ``clusters`` restricts it to some clusters (a user's ``-M``; the paper has no such jobs):
    empty means any.
    """

    id: int
    tasks: int
    base_time: float
    sigma: float = 1.0
    task_bw: float = 0.0
    clusters: tuple[int, ...] = ()

    def may_use(self, cluster: int) -> bool:
        return not self.clusters or cluster in self.clusters

    def time_cost(self, slowdown: float) -> float:
        """ct_j of (18) for a processing slowdown SP_j (SC_j = 1: no link may saturate)."""
        return self.sigma * slowdown + (1.0 - self.sigma)

    def run_time(self, slowdown: float) -> float:
        """Te_j = Tb_j · ct_j (eq. 1)."""
        return self.base_time * self.time_cost(slowdown)

    def slots_needed(self, slowdown: float, slot_size: float) -> int:
        """Whole slots the job holds: ceil(Te_j / η) (eq. 8 rounded up to the slot grid)."""
        return max(1, math.ceil(self.run_time(slowdown) / slot_size - TIME_TOLERANCE))

    def link_bandwidth(self, tasks_in_cluster: int) -> float:
        """BW_j^k of eq. 4 when ``tasks_in_cluster`` of the τ_j tasks run in cluster k."""
        return link_bandwidth(tasks_in_cluster, self.tasks, self.task_bw)


@dataclass(frozen=True, slots=True)
class Occupancy:
    """Resources that a job already running holds when the plan begins (fixed, not planned).

    They are busy from time 0 until ``until``, and the job draws ``link_load[k]`` on link k
    (eq. 4 for its actual allocation, one entry per cluster) meanwhile.
    """

    job_id: int
    resources: tuple[int, ...]  # indices into OasProblem.resources
    until: float
    link_load: tuple[float, ...]

    def slots(self, slot_size: float) -> int:
        """The leading slots it holds: ceil(until / η)."""
        return max(1, math.ceil(self.until / slot_size - TIME_TOLERANCE))


@dataclass(frozen=True, slots=True)
class OasProblem:
    """Resources, one link capacity MBW_k per cluster, the job batch, slot size η and θ slots,
    and the resources and link loads of jobs already running (``occupied``, usually empty).

    Build one with :meth:`create` to get the defaults (η = 50 % of the mean base time, θ from a
    heuristic schedule). ``link_capacity`` may hold ``math.inf`` for an unconstrained link.
    """

    resources: tuple[OasResource, ...]
    link_capacity: tuple[float, ...]
    jobs: tuple[OasJob, ...]
    slot_size: float
    slot_count: int
    occupied: tuple[Occupancy, ...] = ()

    def __post_init__(self) -> None:
        for name in ("resources", "link_capacity", "jobs", "occupied"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _validate_platform(self.resources, self.link_capacity)
        _validate_jobs(self.jobs, self.resources)
        _validate_occupancy(self.occupied, len(self.resources), len(self.link_capacity))
        if not (self.slot_size > 0 and math.isfinite(self.slot_size)):
            raise ValueError(f"slot size η must be a positive number, got {self.slot_size}")
        if self.slot_count < 1:
            raise ValueError(f"slot count θ must be at least 1, got {self.slot_count}")

    def busy_slots(self) -> tuple[int, ...]:
        """Per resource, how many leading slots a running job holds it (0: free from the start)."""
        busy = [0] * len(self.resources)
        for held in self.occupied:
            for r in held.resources:
                busy[r] = held.slots(self.slot_size)
        return tuple(busy)

    def link_room(self, cluster: int, slot: int) -> float:
        """MBW_k less the load of the running jobs that hold slot ``slot`` (1-based), >= 0."""
        fixed = sum(
            held.link_load[cluster] for held in self.occupied if held.slots(self.slot_size) >= slot
        )
        return max(0.0, self.link_capacity[cluster] - fixed)

    @classmethod
    def create(
        cls,
        resources: Sequence[OasResource],
        link_capacity: Sequence[float],
        jobs: Sequence[OasJob],
        *,
        slot_size: float | None = None,
        slot_count: int | None = None,
        occupied: Sequence[Occupancy] = (),
    ) -> OasProblem:
        """A problem with η and θ defaulted (see the two ``default_slot_*`` functions)."""
        eta = default_slot_size(jobs) if slot_size is None else slot_size
        theta = 1 if slot_count is None else slot_count
        draft = cls(
            tuple(resources), tuple(link_capacity), tuple(jobs), eta, theta, tuple(occupied)
        )
        if slot_count is not None:
            return draft
        return replace(draft, slot_count=default_slot_count(draft))

    @property
    def cluster_count(self) -> int:
        return len(self.link_capacity)


def _validate_platform(resources: tuple[OasResource, ...], links: tuple[float, ...]) -> None:
    if not resources:
        raise ValueError("an OAS problem needs at least one resource")
    if not links:
        raise ValueError("an OAS problem needs one link capacity per cluster, got none")
    for capacity in links:
        if not capacity >= 0:  # also rejects NaN
            raise ValueError(f"link capacity MBW_k must be >= 0, got {capacity}")
    for resource in resources:
        if not 0 <= resource.cluster < len(links):
            raise ValueError(
                f"resource {resource.name!r} is in cluster {resource.cluster}, but there are "
                f"only {len(links)} link capacities (clusters 0..{len(links) - 1})"
            )
        if not 0 < resource.speed <= 1:
            raise ValueError(
                f"resource {resource.name!r} has speed Γ = {resource.speed}; it must be in (0, 1]"
            )


def _validate_jobs(jobs: tuple[OasJob, ...], resources: tuple[OasResource, ...]) -> None:
    if not jobs:
        raise ValueError("an OAS problem needs at least one job")
    ids = [job.id for job in jobs]
    if len(set(ids)) != len(ids):
        raise ValueError(f"job ids must be unique, got {ids}")
    clusters = {r.cluster for r in resources}
    for job in jobs:
        if not set(job.clusters) <= clusters:
            raise ValueError(
                f"job {job.id} names clusters {job.clusters}; the platform has {sorted(clusters)}"
            )
        usable = sum(1 for r in resources if job.may_use(r.cluster))
        if not 1 <= job.tasks <= usable:
            raise ValueError(
                f"job {job.id} asks for {job.tasks} tasks; it needs 1..{usable} "
                "(one task per resource of the clusters it may use)"
            )
        if not (job.base_time > 0 and math.isfinite(job.base_time)):
            raise ValueError(f"job {job.id} has base time {job.base_time}; it must be positive")
        if not 0 <= job.sigma <= 1:
            raise ValueError(f"job {job.id} has sigma = {job.sigma}; it must be in [0, 1]")
        if not (job.task_bw >= 0 and math.isfinite(job.task_bw)):
            raise ValueError(f"job {job.id} has per-task bandwidth {job.task_bw}; it must be >= 0")


def _validate_occupancy(
    occupied: tuple[Occupancy, ...], resource_count: int, cluster_count: int
) -> None:
    seen: set[int] = set()
    for held in occupied:
        for r in held.resources:
            if not 0 <= r < resource_count:
                raise ValueError(
                    f"running job {held.job_id} holds resource {r}, which does not exist"
                )
            if r in seen:
                raise ValueError(f"resource {r} is held by two running jobs")
            seen.add(r)
        if not (held.until > 0 and math.isfinite(held.until)):
            raise ValueError(
                f"running job {held.job_id} holds its resources until {held.until}; it must be "
                "a positive time"
            )
        if len(held.link_load) != cluster_count or not all(
            load >= 0 and math.isfinite(load) for load in held.link_load
        ):
            raise ValueError(
                f"running job {held.job_id} needs one link load >= 0 per cluster, got "
                f"{held.link_load}"
            )


@dataclass(frozen=True, slots=True)
class JobPlacement:
    """Where and when one job runs. Slots are None in a continuous-time (heuristic) plan.

    A slotted job holds slots ``start_slot + 1 .. finish_slot`` (1-based, as s_j and f_j in the
    paper), i.e. the time ``[start_slot · η, finish_slot · η)``.
    """

    job_id: int
    start: float
    end: float
    resources: tuple[int, ...]  # indices into OasProblem.resources
    start_slot: int | None = None
    finish_slot: int | None = None


@dataclass(frozen=True, slots=True)
class OasPlan:
    """A schedule of the whole batch, in the order of :attr:`OasProblem.jobs`."""

    placements: tuple[JobPlacement, ...]
    makespan: float

    def placement(self, job_id: int) -> JobPlacement:
        for placement in self.placements:
            if placement.job_id == job_id:
                return placement
        raise KeyError(f"no placement for job {job_id}")


class SolveStatus(enum.Enum):
    """How a MIP solve ended."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"  # a limit stopped the search with an incumbent
    INFEASIBLE = "infeasible"  # proven: no schedule fits in θ slots
    NO_SOLUTION = "no_solution"  # stopped without any schedule (limit or solver error)


@dataclass(frozen=True, slots=True)
class SolveResult:
    """A solve's outcome. ``objective`` and ``bound`` are makespans in time units (slots · η)."""

    plan: OasPlan | None
    status: SolveStatus
    objective: float | None
    bound: float | None
    gap: float | None  # (objective - bound) / objective
    solver: str
    model: str
    wall_seconds: float


def default_slot_size(jobs: Sequence[OasJob]) -> float:
    """η = 50 % of the mean base time, where the paper found the makespan stable (§4.1)."""
    if not jobs:
        raise ValueError("the default slot size needs at least one job")
    return 0.5 * sum(job.base_time for job in jobs) / len(jobs)


def default_slot_count(problem: OasProblem) -> int:
    """θ: the shortest slotted makespan of the queue-order heuristics (its own θ is ignored).

    Every heuristic schedule with durations rounded up to whole slots is a feasible solution of
    the MIP, so its length in slots is a valid deadline that never cuts off the optimum.
    """
    from solvers.oas.heuristics import best_slotted_plan  # heuristics imports this module

    plan = best_slotted_plan(problem)
    return max(p.finish_slot or 0 for p in plan.placements)
