"""The OAS problem and its answers as plain data (Blanco et al., "OAS: a MIP model for ordering and
allocating parallel jobs on multi-cluster systems", §3.1 and Fig. 2).

Both MIP formulations, the queue-order heuristics and the solver front end share these types. The
timing rule lives on :class:`OasJob` because every formulation must use the same one: a job on
resources whose slowest speed is ``Γ`` runs ``Tb · ct`` with ``ct = sigma / Γ + (1 - sigma)``
(eq. 1-3 and (18): the model forbids link saturation, so the communication slowdown SC is 1), and
in a slotted schedule it holds ``ceil(Tb · ct / η)`` whole slots.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

#: Slack for float noise when a run time is an exact multiple of the slot size (2.0000000001 → 2).
TIME_TOLERANCE = 1e-9
#: Relative slack when comparing a link load with its capacity (float sums of eq. 4 terms).
LOAD_TOLERANCE = 1e-9


def fits_link(load: float, capacity: float) -> bool:
    """True when ``load`` does not saturate a link of ``capacity`` (SAT^k >= 1, eq. 5)."""
    return load <= capacity + LOAD_TOLERANCE * max(1.0, capacity)


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
    """A rigid bulk-synchronous job: τ tasks, base time Tb at speed 1.0, weight sigma, PTBW."""

    id: int
    tasks: int
    base_time: float
    sigma: float = 1.0
    task_bw: float = 0.0

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
        if self.tasks <= 1:
            return 0.0
        outside = self.tasks - tasks_in_cluster
        return tasks_in_cluster * self.task_bw * outside / (self.tasks - 1)


@dataclass(frozen=True, slots=True)
class OasProblem:
    """Resources, one link capacity MBW_k per cluster, the job batch, slot size η and θ slots.

    Build one with :meth:`create` to get the defaults (η = 50 % of the mean base time, θ from a
    heuristic schedule). ``link_capacity`` may hold ``math.inf`` for an unconstrained link.
    """

    resources: tuple[OasResource, ...]
    link_capacity: tuple[float, ...]
    jobs: tuple[OasJob, ...]
    slot_size: float
    slot_count: int

    def __post_init__(self) -> None:
        for name in ("resources", "link_capacity", "jobs"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _validate_platform(self.resources, self.link_capacity)
        _validate_jobs(self.jobs, len(self.resources))
        if not (self.slot_size > 0 and math.isfinite(self.slot_size)):
            raise ValueError(f"slot size η must be a positive number, got {self.slot_size}")
        if self.slot_count < 1:
            raise ValueError(f"slot count θ must be at least 1, got {self.slot_count}")

    @classmethod
    def create(
        cls,
        resources: Sequence[OasResource],
        link_capacity: Sequence[float],
        jobs: Sequence[OasJob],
        *,
        slot_size: float | None = None,
        slot_count: int | None = None,
    ) -> OasProblem:
        """A problem with η and θ defaulted (see the two ``default_slot_*`` functions)."""
        eta = default_slot_size(jobs) if slot_size is None else slot_size
        theta = 1 if slot_count is None else slot_count
        draft = cls(tuple(resources), tuple(link_capacity), tuple(jobs), eta, theta)
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


def _validate_jobs(jobs: tuple[OasJob, ...], resource_count: int) -> None:
    if not jobs:
        raise ValueError("an OAS problem needs at least one job")
    ids = [job.id for job in jobs]
    if len(set(ids)) != len(ids):
        raise ValueError(f"job ids must be unique, got {ids}")
    for job in jobs:
        if not 1 <= job.tasks <= resource_count:
            raise ValueError(
                f"job {job.id} asks for {job.tasks} tasks; it needs 1..{resource_count} "
                "(one task per resource)"
            )
        if not (job.base_time > 0 and math.isfinite(job.base_time)):
            raise ValueError(f"job {job.id} has base time {job.base_time}; it must be positive")
        if not 0 <= job.sigma <= 1:
            raise ValueError(f"job {job.id} has sigma = {job.sigma}; it must be in [0, 1]")
        if not (job.task_bw >= 0 and math.isfinite(job.task_bw)):
            raise ValueError(f"job {job.id} has per-task bandwidth {job.task_bw}; it must be >= 0")


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
