"""An independent check that a plan is a valid OAS schedule (Blanco et al., "OAS: a MIP model for
ordering and allocating parallel jobs on multi-cluster systems", §3.1 eq. 1-7 and Fig. 2).

It restates the paper's performance model here on purpose and shares no code with the models,
the heuristics or ``OasJob``'s timing helpers, so a mistake there cannot hide itself: one task per
resource at a time; each job on exactly τ_j distinct resources, all its tasks starting and ending
together; a duration of at least Tb_j · ct_j for the resources it really got; no link loaded
beyond MBW_k at any moment (eq. 4 summed over the jobs running then); slotted placements on the
slot grid within θ; and a makespan equal to the last end. Jobs already running when the plan
begins (``OasProblem.occupied``) keep their resources until their end and their load on the
links meanwhile; a planned job may not add load to a link they have already filled.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

from solvers.oas.problem import JobPlacement, OasJob, OasPlan, OasProblem

_TOLERANCE = 1e-6


def processing_slowdown(speeds: Iterable[float]) -> float:
    """SP_j = max over allocated resources of SP^r = 1 / Γ^r (eq. 3)."""
    return max(1.0 / speed for speed in speeds)


def link_bandwidth(tasks: int, tasks_in_cluster: int, task_bw: float) -> float:
    """BW_j^k = t_j^k · PTBW_j · (τ_j - t_j^k) / (τ_j - 1) (eq. 4); a one-task job sends nothing."""
    if tasks == 1:
        return 0.0
    return tasks_in_cluster * task_bw * (tasks - tasks_in_cluster) / (tasks - 1)


def saturation(capacity: float, loads: Iterable[float]) -> float:
    """SAT^k = MBW_k / Σ_j BW_j^k (eq. 5); an unloaded link is never saturated (∞)."""
    total = sum(loads)
    return math.inf if total <= 0 else capacity / total


def communication_slowdown(saturations: Iterable[float]) -> float:
    """SC_j = max over j's links of SC_j^k, with SC_j^k = 1 / SAT^k if SAT^k < 1 (eq. 6-7)."""
    return max((1.0 / sat if sat < 1 else 1.0 for sat in saturations), default=1.0)


def time_cost(sigma: float, slowdown: float, comm_slowdown: float = 1.0) -> float:
    """ct_j = sigma_j · SP_j + (1 - sigma_j) · SC_j (eq. 2)."""
    return sigma * slowdown + (1.0 - sigma) * comm_slowdown


def execution_time(base_time: float, cost: float) -> float:
    """Te_j = Tb_j · ct_j (eq. 1)."""
    return base_time * cost


def _close_or_above(value: float, limit: float) -> bool:
    return value >= limit - _TOLERANCE * max(1.0, abs(limit))


def check_plan(problem: OasProblem, plan: OasPlan) -> list[str]:
    """Every way ``plan`` breaks the OAS rules, as readable sentences; empty when it is valid."""
    jobs = {job.id: job for job in problem.jobs}
    errors = _check_coverage(problem, plan)
    placed = [(jobs[p.job_id], p) for p in plan.placements if p.job_id in jobs]
    for job, placement in placed:
        errors += _check_placement(problem, job, placement)
    if any("resource index" in e for e in errors):
        return errors  # overlap and link checks need valid indices
    errors += _check_exclusive_use(placed)
    errors += _check_occupied(problem, placed)
    errors += _check_links(problem, placed)
    last_end = max((p.end for p in plan.placements), default=0.0)
    if not math.isclose(plan.makespan, last_end, rel_tol=_TOLERANCE, abs_tol=_TOLERANCE):
        errors.append(f"makespan {plan.makespan} is not the last end time {last_end}")
    return errors


def _check_coverage(problem: OasProblem, plan: OasPlan) -> list[str]:
    """Each job of the batch placed exactly once, and nothing else."""
    known = {job.id for job in problem.jobs}
    ids = [p.job_id for p in plan.placements]
    twice = sorted(i for i in set(ids) if ids.count(i) > 1)
    errors = [f"job {i} is placed {ids.count(i)} times" for i in twice]
    errors += [f"job {i} is not in the problem" for i in sorted(set(ids) - known)]
    errors += [f"job {i} is not placed" for i in sorted(known - set(ids))]
    return errors


def _check_placement(problem: OasProblem, job: OasJob, p: JobPlacement) -> list[str]:
    """One job alone: its resources, its duration for them, and its slots."""
    bad = [r for r in p.resources if not 0 <= r < len(problem.resources)]
    if bad:
        return [f"job {job.id}: resource index {r} does not exist" for r in bad]
    errors = []
    if len(set(p.resources)) != len(p.resources):
        errors.append(f"job {job.id}: a resource is listed twice in {p.resources}")
    foreign = sorted({problem.resources[r].cluster for r in p.resources} - set(job.clusters))
    if job.clusters and foreign:
        errors.append(f"job {job.id}: runs on clusters {foreign}, outside its {job.clusters}")
    if len(set(p.resources)) != job.tasks:
        errors.append(
            f"job {job.id}: runs on {len(set(p.resources))} distinct resources, "
            f"needs τ = {job.tasks}"
        )
    if p.start < -_TOLERANCE:
        errors.append(f"job {job.id}: starts before time 0 ({p.start})")
    if p.resources:
        slowdown = processing_slowdown(problem.resources[r].speed for r in p.resources)
        needed = execution_time(job.base_time, time_cost(job.sigma, slowdown))
        if not _close_or_above(p.end - p.start, needed):
            errors.append(
                f"job {job.id}: runs {p.end - p.start:g}, but Tb·ct = {needed:g} on its resources"
            )
    return errors + _check_slots(problem, job, p)


def _check_slots(problem: OasProblem, job: OasJob, p: JobPlacement) -> list[str]:
    """A slotted placement starts and ends on the slot grid, inside the θ slots."""
    if p.start_slot is None and p.finish_slot is None:
        return []
    if p.start_slot is None or p.finish_slot is None:
        return [f"job {job.id}: has only one of start slot and finish slot"]
    eta = problem.slot_size
    errors = []
    if not 0 <= p.start_slot < p.finish_slot <= problem.slot_count:
        errors.append(
            f"job {job.id}: slots {p.start_slot}..{p.finish_slot} are not within 0..θ = "
            f"{problem.slot_count}"
        )
    for label, time, slot in (("start", p.start, p.start_slot), ("end", p.end, p.finish_slot)):
        if not math.isclose(time, slot * eta, rel_tol=_TOLERANCE, abs_tol=_TOLERANCE):
            errors.append(f"job {job.id}: {label} {time} is not slot {slot} x η = {slot * eta}")
    return errors


def _check_exclusive_use(placed: Sequence[tuple[OasJob, JobPlacement]]) -> list[str]:
    """Constraint (10): a resource runs one task at a time."""
    by_resource: dict[int, list[JobPlacement]] = {}
    for _, p in placed:
        for r in set(p.resources):
            by_resource.setdefault(r, []).append(p)
    errors = []
    for r, uses in sorted(by_resource.items()):
        uses.sort(key=lambda p: (p.start, p.job_id))
        for before, after in itertools.pairwise(uses):
            if not _close_or_above(after.start, before.end):
                errors.append(
                    f"resource {r}: job {after.job_id} starts at {after.start:g} while job "
                    f"{before.job_id} runs until {before.end:g}"
                )
    return errors


def _check_occupied(
    problem: OasProblem, placed: Sequence[tuple[OasJob, JobPlacement]]
) -> list[str]:
    """A resource that a job already running holds is not planned before that job's end."""
    errors = []
    for held in problem.occupied:
        for _, p in placed:
            for r in sorted(set(p.resources) & set(held.resources)):
                if not _close_or_above(p.start, held.until):
                    errors.append(
                        f"resource {r}: job {p.job_id} starts at {p.start:g} while running job "
                        f"{held.job_id} holds it until {held.until:g}"
                    )
    return errors


def _check_links(problem: OasProblem, placed: Sequence[tuple[OasJob, JobPlacement]]) -> list[str]:
    """Constraints (21)-(22): the eq. 4 load of the jobs running at any moment stays ≤ MBW_k.

    Loads only rise when a planned job starts (running jobs only leave), so the starts are the
    moments to check. A link is broken only where planned jobs load it.
    """
    errors = []
    for moment in sorted({p.start for _, p in placed}):
        running = [(j, p) for j, p in placed if p.start <= moment < p.end - _TOLERANCE]
        before = [held for held in problem.occupied if moment < held.until - _TOLERANCE]
        for cluster, capacity in enumerate(problem.link_capacity):
            loads = [_cluster_load(problem, job, p, cluster) for job, p in running]
            fixed = [held.link_load[cluster] for held in before]
            if sum(loads) > 0 and saturation(capacity, loads + fixed) < 1 - _TOLERANCE:
                ids = [p.job_id for _, p in running]
                errors.append(
                    f"link {cluster} saturated at time {moment:g}: load {sum(loads + fixed):g} > "
                    f"MBW = {capacity:g} (jobs {ids}"
                    + (f", running jobs {[held.job_id for held in before]})" if before else ")")
                )
    return errors


def _cluster_load(problem: OasProblem, job: OasJob, p: JobPlacement, cluster: int) -> float:
    here = sum(1 for r in set(p.resources) if problem.resources[r].cluster == cluster)
    return link_bandwidth(job.tasks, here, job.task_bw)
