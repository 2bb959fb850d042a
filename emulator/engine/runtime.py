"""How long a job runs on the nodes it was given (models.md §1–3).

Durations and time limits are measured on the reference machine (speed 1) and divided by the
speed of the slowest allocated node, the pace-setter of a parallel job (OAS eq. 3; the
reallocation paper divides runtimes and wall-time limits by the cluster's speed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from emulator.api.decisions import Start
from emulator.model.bpu import allocated_bpus, moldable_scale
from emulator.model.job import Job
from emulator.model.network import time_cost


def run_times(
    ratings: Sequence[float], job: Job, slowest: float, runtime: float, bpus: float | None = None
) -> tuple[float, float]:
    """``(actual duration, wall-time limit)`` of a job just placed on ``job.nodes``; ``ratings``
    are the platform's BPU ratings (:func:`emulator.model.bpu.bpu_ratings`), ``bpus`` those of
    its allocation when already summed (a checked grid start), else they are summed here.

    - rigid job: ``runtime / slowest``;
    - BSP job (OAS eq. 1–2): ``Tb · (σ·SP + (1 − σ)·SC)`` with ``SP = 1 / slowest`` and ``SC = 1``;
      a job whose tasks span clusters is instead paced by the network's fluid model;
    - moldable job (BPU paper): run time and limit both measured on the x_j BPUs it asked for,
      scaled to the BPUs it got (:func:`emulator.model.bpu.moldable_scale`).
    """
    request = job.request
    moldable = request.moldable
    if moldable is not None:
        if bpus is None:
            bpus = allocated_bpus(ratings, job.nodes, job.node_cores)
        scale = moldable_scale(moldable, bpus)
        return runtime * scale, request.time_limit * scale
    walltime = request.time_limit / slowest
    communication = request.communication
    if communication is not None:
        return runtime * time_cost(communication.sigma, slowest), walltime
    return runtime / slowest, walltime


def held_to_limit(decision: Start) -> Job:
    """The job a Start starts, its limit cut to the decision's if that is shorter (Slurm's
    backfill starts a job that gave ``--time-min`` under a limit that ends before a later
    job's reservation, ``_reset_job_time_limit``), never below its ``time_min``."""
    job = decision.job
    limit = decision.time_limit
    if limit is not None and limit < job.request.time_limit:
        limit = max(limit, job.request.time_min)
        job.request = replace(job.request, time_limit=limit)
        job.time_limit = limit
    return job
