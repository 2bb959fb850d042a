"""Co-allocation over clusters with queue orders (OAS paper §3.1 and §4.2; models.md §4.2).

:mod:`solvers.coalloc.allocation` holds the pure allocation functions (``best``, ``single``,
``first_fit``) over small data; :mod:`solvers.coalloc.policy` the registered grid policy
``coalloc:alloc=best|single|firstfit,order=fcfs|sjf|bjf|spt|lpt|fpfs``.
"""

from solvers.coalloc.allocation import Allocation, Site, best, first_fit, predict, single
from solvers.coalloc.policy import CoAllocation, Strategy

__all__ = [
    "Allocation",
    "CoAllocation",
    "Site",
    "Strategy",
    "best",
    "first_fit",
    "predict",
    "single",
]
