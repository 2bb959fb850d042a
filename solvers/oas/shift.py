"""Left-shift a slotted OAS plan: every job as early as its own resources and the links allow,
keeping the plan's order and allocation (models.md §4.3).

The MIP of Blanco et al. (§3.2, objective (9)) minimises the makespan only, so a job that is not
on the critical path may sit anywhere before it. A grid policy should not leave resources idle
for that, so it carries out the semi-active version of the plan: jobs are taken in order of their
planned start and each moves to the first slot from which its resources are free and its link
loads fit for its whole run, beside the jobs already moved and those running before the plan.

Never worse: a job's old slot always remains possible, because every job placed before it only
moved earlier, so the set of jobs running at any later slot can only have shrunk. The makespan
therefore never grows, and a plan of the MIP keeps its (optimal) makespan.
"""

from __future__ import annotations

from dataclasses import replace

from solvers.common.links import fits_link
from solvers.oas.problem import JobPlacement, OasPlan, OasProblem


def left_shift(problem: OasProblem, plan: OasPlan) -> OasPlan:
    """``plan`` (slotted) with each job started as early as the rules allow, in the same order."""
    jobs = {job.id: job for job in problem.jobs}
    busy = problem.busy_slots()
    eta = problem.slot_size
    free_from = list(busy)  # per resource: the first slot after which it is free
    loads: dict[int, list[float]] = {}  # slot (1-based) -> load per link of the placed jobs
    moved: dict[int, JobPlacement] = {}
    order = sorted(range(len(plan.placements)), key=lambda i: (plan.placements[i].start_slot, i))
    for index in order:
        p = plan.placements[index]
        if p.start_slot is None or p.finish_slot is None:
            raise ValueError(f"job {p.job_id} has no slots: only a slotted plan can be shifted")
        job = jobs[p.job_id]
        length = p.finish_slot - p.start_slot
        counts = [0] * problem.cluster_count
        for r in p.resources:
            counts[problem.resources[r].cluster] += 1
        own = [job.link_bandwidth(n) for n in counts]
        start = max([0, *(free_from[r] for r in p.resources)])
        while start < p.start_slot and not _links_fit(problem, loads, own, start, length):
            start += 1
        for t in range(start + 1, start + length + 1):
            slot = loads.setdefault(t, [0.0] * problem.cluster_count)
            for k, load in enumerate(own):
                slot[k] += load
        for r in p.resources:
            free_from[r] = start + length
        finish = start + length
        moved[index] = replace(
            p, start=start * eta, end=finish * eta, start_slot=start, finish_slot=finish
        )
    placements = tuple(moved[i] for i in range(len(plan.placements)))
    return OasPlan(placements, max(p.end for p in placements))


def _links_fit(
    problem: OasProblem,
    loads: dict[int, list[float]],
    own: list[float],
    start: int,
    length: int,
) -> bool:
    """Do a job's link loads fit in every slot of ``start + 1 .. start + length``?"""
    for t in range(start + 1, start + length + 1):
        placed = loads.get(t)
        for k, load in enumerate(own):
            if load and not fits_link(
                (placed[k] if placed else 0.0) + load, problem.link_room(k, t)
            ):
                return False
    return True
