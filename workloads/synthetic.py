"""Synthetic rigid workloads, streamed: any number of jobs in constant memory.

Sizes are log-uniform over [1, max_size] processors, runtimes log-uniform over [10 s, 36 h], user
estimates the runtime times a uniform factor in [1, 3] (users overestimate), and arrivals Poisson,
with the rate chosen so that the offered load (work / capacity / time) is ``load``. Seeded and
platform-independent: the same arguments always give the same jobs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

from emulator.model.job import Request, Submission

MIN_RUNTIME = 10.0
MAX_RUNTIME = 36 * 3600.0


def _log_uniform_mean(low: float, high: float) -> float:
    return (high - low) / math.log(high / low) if high > low else low


def rigid_jobs(
    count: int, cores: int, *, load: float = 0.85, max_size: int | None = None, seed: int = 1
) -> Iterator[Submission]:
    """``count`` jobs for a machine of ``cores`` processors at offered load ``load``."""
    if count < 0 or cores <= 0 or load <= 0:
        raise ValueError("count must be >= 0, cores and load > 0")
    largest = max_size or max(1, cores // 16)
    rng = random.Random(seed)
    mean_work = _log_uniform_mean(1, largest + 1) * _log_uniform_mean(MIN_RUNTIME, MAX_RUNTIME)
    rate = load * cores / mean_work  # arrivals per second
    log_size, log_runtime = math.log(largest + 1), (math.log(MIN_RUNTIME), math.log(MAX_RUNTIME))
    now = 0.0
    for job_id in range(1, count + 1):
        now += rng.expovariate(rate)
        size = min(int(math.exp(rng.uniform(0.0, log_size))), largest)
        runtime = round(math.exp(rng.uniform(*log_runtime)))
        limit = math.ceil(runtime * rng.uniform(1.0, 3.0) / 60) * 60
        request = Request(
            tasks=size, time_limit=limit, name=f"synth{job_id}", user=f"u{job_id % 97}"
        )
        yield Submission(job_id, round(now), request, runtime)
