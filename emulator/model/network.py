"""The OAS paper's performance model of a job on an allocation (§3.1, eq. 1–7; models.md §3).

Pure formulas, shared by the engine (which applies them as a fluid model) and by policies (which
predict with them). A job with ``t_k`` of its ``τ`` tasks on cluster ``k`` draws
``BW_k = t_k · PTBW · (τ − t_k)/(τ − 1)`` on link ``k`` (eq. 4); a link whose users ask more than
its capacity ``MBW_k`` is saturated (``SAT_k = MBW_k / ΣBW < 1``, eq. 5) and slows their
communication by ``SC_k = 1 / SAT_k`` (eq. 6); a job's ``SC`` is its worst link's (eq. 7), its
``SP`` is the slowdown of its slowest node (eq. 3), and ``Te = Tb · (σ·SP + (1 − σ)·SC)`` (eq. 1–2).
"""

from __future__ import annotations


def link_bandwidth(tasks_here: int, tasks: int, task_bw: float) -> float:
    """Eq. 4: bandwidth a job draws on one cluster's link; 0 when it does not span clusters."""
    if tasks <= 1 or tasks_here in (0, tasks):
        return 0.0
    return tasks_here * task_bw * (tasks - tasks_here) / (tasks - 1)


def link_slowdown(capacity: float, demand: float) -> float:
    """Eq. 5–6: ``SC_k = 1 / SAT_k`` when the link is saturated, else 1."""
    if demand <= capacity:
        return 1.0
    return demand / capacity


def time_cost(sigma: float, slowest_speed: float, comm_slowdown: float = 1.0) -> float:
    """Eq. 2–3: ``ct = σ·SP + (1 − σ)·SC`` with ``SP = 1 / slowest speed``."""
    return sigma / slowest_speed + (1.0 - sigma) * comm_slowdown
