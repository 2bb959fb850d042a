"""The queue orders of the OAS paper's §4.2 (models.md §4.2), shared by the live ``coalloc``
policy and the offline list schedulers of :mod:`solvers.oas.heuristics`.

FCFS, SJF (fewest tasks first), BJF (most tasks first), SPT (shortest base time first) and LPT
(longest first) keep a strict queue; FPFS (fit processors first served) starts, in arrival order,
every job that fits. Each family applies an order to its own job type.
"""

from __future__ import annotations

import enum


class QueueOrder(enum.Enum):
    """The queue orders of the paper's §4.2."""

    FCFS = "fcfs"
    SJF = "sjf"
    BJF = "bjf"
    SPT = "spt"
    LPT = "lpt"
    FPFS = "fpfs"
