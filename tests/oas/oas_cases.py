"""Shared OAS instances: the paper's test bed (§4: 3 clusters x 2 nodes, Γ = 1.0 / 0.75 / 0.5,
Gigabit links, bandwidth in Mbit/s) with small job batches."""

from __future__ import annotations

from solvers.oas.paper import EIGHT_JOBS
from solvers.oas.problem import OasJob, OasProblem, OasResource

SPEEDS = (1.0, 0.75, 0.5)
GIGABIT = 1000.0


def paper_testbed() -> tuple[OasResource, ...]:
    """Six resources: c0n0, c0n1 (Γ = 1.0), c1n0, c1n1 (0.75), c2n0, c2n1 (0.5)."""
    return tuple(
        OasResource(f"c{k}n{i}", k, speed) for k, speed in enumerate(SPEEDS) for i in range(2)
    )


def problem(*jobs: OasJob, slot_size: float | None = None) -> OasProblem:
    return OasProblem.create(paper_testbed(), [GIGABIT] * 3, jobs, slot_size=slot_size)


# Two 3-task jobs must co-allocate (2 + 1 tasks: 700 Mbit/s on both links used); any two
# co-allocations share a link, 1400 > 1000, so with bandwidth they cannot overlap.
BINDING = (OasJob(1, 3, 100.0, 0.9, 700.0), OasJob(2, 3, 100.0, 0.9, 700.0))
BINDING_FREE = (OasJob(1, 3, 100.0, 0.9, 0.0), OasJob(2, 3, 100.0, 0.9, 0.0))
THREE = (OasJob(1, 2, 100.0), OasJob(2, 4, 80.0, 0.7, 400.0), OasJob(3, 1, 150.0, 0.5))
FOUR = (
    OasJob(1, 1, 60.0),
    OasJob(2, 2, 90.0, 0.8, 300.0),
    OasJob(3, 3, 50.0, 0.6, 500.0),
    OasJob(4, 1, 120.0),
)
# Batches where the MIP beats every queue-order heuristic by one slot (found by a seeded search).
BEATS_A = (
    OasJob(1, 2, 80.0, 0.5, 300.0),
    OasJob(2, 2, 120.0, 1.0, 0.0),
    OasJob(3, 2, 40.0, 1.0, 0.0),
    OasJob(4, 1, 150.0, 0.7, 500.0),
)
BEATS_B = (
    OasJob(1, 2, 100.0, 0.5, 300.0),
    OasJob(2, 1, 150.0, 1.0, 0.0),
    OasJob(3, 3, 40.0, 1.0, 0.0),
    OasJob(4, 2, 120.0, 0.7, 0.0),
)
SMALL = {
    "binding": BINDING,
    "binding-free": BINDING_FREE,
    "three": THREE,
    "four": FOUR,
    "beats-a": BEATS_A,
    "beats-b": BEATS_B,
}

# The measurement batch of the report (the paper's §4.1 set-up; see solvers/oas/paper.py).
EIGHT = EIGHT_JOBS
