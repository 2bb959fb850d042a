"""How long a job runs on the nodes it was given (models.md §1–3).

Durations and time limits are measured on the reference machine (speed 1) and divided by the
speed of the slowest allocated node, the pace-setter of a parallel job (OAS eq. 3; the
reallocation paper divides runtimes and wall-time limits by the cluster's speed).
"""

from __future__ import annotations

from emulator.model.job import Job
from emulator.model.network import time_cost
from emulator.model.platform import Platform


def run_times(platform: Platform, job: Job, slowest: float, runtime: float) -> tuple[float, float]:
    """``(actual duration, wall-time limit)`` of a job just placed on ``job.nodes``.

    - rigid job: ``runtime / slowest``;
    - BSP job (OAS eq. 1–2): ``Tb · (σ·SP + (1 − σ)·SC)`` with ``SP = 1 / slowest`` and ``SC = 1``;
      a job whose tasks span clusters is instead paced by the network's fluid model;
    - moldable job (BPU paper): work ``runtime · x_j`` BPU-seconds over the BPUs it got (each core
      counts ``speed / slowest speed of the platform``), with an optional Amdahl serial fraction.
    """
    request = job.request
    walltime = request.time_limit / slowest
    if request.moldable is not None:
        bpu = min(node.speed for node in platform.nodes)
        power = sum(
            cores * platform.nodes[node].speed / bpu
            for node, cores in zip(job.nodes, job.node_cores, strict=True)
        )
        work = runtime * request.moldable.power
        serial = request.moldable.serial_fraction
        return work * (serial + (1 - serial) / power), walltime
    communication = request.communication
    if communication is not None:
        return runtime * time_cost(communication.sigma, slowest), walltime
    return runtime / slowest, walltime
