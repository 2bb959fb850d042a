"""A job as the OAS performance model sees it (OAS paper §3.1, eq. 1-7; models.md §3): one
reading of a job's BSP parameters for every family.

Choice left open by the paper, made here once: a job without ``communication`` is treated as
σ = 1, PTBW = 0, with its time limit as the base time Tb (so SPT/LPT order it by its limit).
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.model.job import Job


@dataclass(frozen=True, slots=True)
class Demand:
    """A job as eq. 1–7 see it: τ tasks, base time Tb on speed-1 nodes, weight σ, PTBW."""

    tasks: int
    base_time: float = 1.0
    sigma: float = 1.0
    task_bw: float = 0.0


def base_time(job: Job) -> float:
    """Tb: the BSP base time, or the time limit of a job that gives none."""
    communication = job.request.communication
    return job.request.time_limit if communication is None else communication.base_time


def demand_of(job: Job) -> Demand:
    """The job as eq. 1–7 see it (σ = 1 and PTBW = 0 for a job that is not BSP)."""
    communication = job.request.communication
    if communication is None:
        return Demand(job.request.tasks, job.request.time_limit)
    return Demand(
        job.request.tasks, communication.base_time, communication.sigma, communication.task_bw
    )
