"""What a job costs on priced nodes (ALP/AMP paper, models.md §4.7): the platform file's
``price`` per core-second.

The paper prices a slot by its price × its task's run time, and a task of length t runs t / P on
a node of performance P. The engine paces a parallel job by its slowest node, so a job that
held its cores for ``elapsed`` seconds did, on each core of speed P, the work of
``elapsed · slowest / P`` seconds there: that is what each core is charged, so a job that runs
its whole limit costs exactly what the ``alp``/``amp`` window promised. On a homogeneous
allocation this is price × cores × elapsed, as any accounting would bill.
"""

from __future__ import annotations

import math

from emulator.model.job import Job
from emulator.model.platform import Platform


def priced(platform: Platform) -> bool:
    """Whether any node has a price: only then do outputs show costs (runs on unpriced
    platforms keep their outputs as they were)."""
    return any(node.price for node in platform.nodes)


def job_cost(platform: Platform, job: Job, now: float) -> float:
    """The job's cost so far (up to ``now`` while it runs); 0 for a job that never started."""
    if math.isnan(job.start) or not job.nodes:
        return 0.0
    end = job.end if job.state.finished else now
    elapsed = max(end - job.start, 0.0)
    nodes = [platform.nodes[node] for node in job.nodes]
    slowest = min(node.speed for node in nodes)
    return math.fsum(
        node.price * cores * elapsed * slowest / node.speed
        for node, cores in zip(nodes, job.node_cores, strict=True)
    )
