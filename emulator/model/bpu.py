"""Basic Processor Units (BPU paper, "Multi-Cluster Model"; models.md §2): ratings and durations.

The slowest processor of the whole platform is one BPU; every other core is rated
``speed / slowest speed``. A moldable job asks for x_j BPUs and may run on any set of cores whose
ratings sum to at least x_j. Pure functions, shared by the engine (what a start costs) and by the
solvers (what a start would cost), so both agree to the last bit.

Choices the paper leaves open (recorded in docs/experiments/bpu.md):

- a job's ``runtime`` and ``time_limit`` are measured on exactly x_j BPUs, the power it asked for;
- on P allocated BPUs it runs ``runtime · speedup(x_j) / speedup(P)`` (Amdahl, with serial
  fraction f: ``speedup(P) = 1 / (f + (1 − f) / P)``; f = 0 is the paper's linear speed-up,
  models.md §2: work ``runtime · x_j`` BPU-seconds over P BPUs);
- its wall-time limit scales by the same factor, so a limit that covers the run time on x_j BPUs
  covers it on any allocation (a limit measured on the reference machine would kill a job that
  got exactly what it asked for on fast nodes).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from emulator.model.job import Moldable
from emulator.model.platform import Platform


def bpu_unit(platform: Platform) -> float:
    """The speed of one BPU: the platform's slowest node."""
    return min(node.speed for node in platform.nodes)


def bpu_ratings(platform: Platform) -> tuple[float, ...]:
    """BPUs of one core of each node, indexed by platform node id."""
    unit = bpu_unit(platform)
    return tuple(node.speed / unit for node in platform.nodes)


def allocated_bpus(ratings: Sequence[float], nodes: Sequence[int], cores: Sequence[int]) -> float:
    """BPUs of an allocation: ``cores[i]`` cores of platform node ``nodes[i]``."""
    if len(nodes) != len(cores):
        raise ValueError(f"{len(nodes)} nodes but {len(cores)} core counts")
    given: float = sum(map(operator.mul, map(ratings.__getitem__, nodes), cores))  # in C
    return given


def moldable_scale(moldable: Moldable, allocated: float) -> float:
    """Factor from the time on x_j BPUs to the time on ``allocated`` BPUs (module docstring)."""
    serial = moldable.serial_fraction
    asked = serial + (1.0 - serial) / moldable.power
    given = serial + (1.0 - serial) / allocated
    return given / asked
