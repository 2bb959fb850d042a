"""The metrics a session samples as its clock moves: utilisation, queue length, mean wait and
mean bounded slowdown (:mod:`emulator.metrics`), in bounded memory."""

from __future__ import annotations

import math

import numpy as np

from emulator.engine import Engine
from emulator.metrics import bounded_slowdown
from emulator.model.job import Job
from emulator.session.snapshot import MetricSeries, frozen

__all__ = ["Sampler"]


class _Series:
    """Bounded metric samples: when full, every other sample is dropped (older ones thin out)."""

    FIELDS = 5

    def __init__(self, limit: int) -> None:
        self.limit = max(16, limit)
        self.data = np.zeros((self.FIELDS, self.limit), np.float64)
        self.n = 0

    def add(self, values: tuple[float, float, float, float, float]) -> bool:
        """Append a sample; True if older samples had to be thinned out to make room."""
        if self.n and self.data[0, self.n - 1] == values[0]:
            self.data[:, self.n - 1] = values  # the same instant: the latest sample wins
            return False
        thinned = self.n == self.limit
        if thinned:
            half = self.data[:, 1 : self.n : 2].copy()
            self.n = half.shape[1]
            self.data[:, : self.n] = half
        self.data[:, self.n] = values
        self.n += 1
        return thinned

    def last_time(self) -> float:
        """The simulated time of the last sample (-inf: none yet)."""
        return float(self.data[0, self.n - 1]) if self.n else -math.inf

    def series(self) -> MetricSeries:
        rows = [frozen(self.data[i, : self.n].copy()) for i in range(self.FIELDS)]
        return MetricSeries(*rows)


class Sampler:
    """The metric samples of one engine: at most one per ``every`` simulated seconds inside a
    long run (the interval doubles whenever old samples are thinned), ``limit`` of them kept.
    The engine hooks report starts and ends (:meth:`started`, :meth:`ended`); the sums are
    kept as they come, so a sample costs O(clusters), not O(jobs)."""

    def __init__(self, engine: Engine, capacity: int, limit: int, every: float) -> None:
        self.engine = engine
        self.every = every
        self.next_time = 0.0  # no sample is due before this simulated time
        self._series = _Series(limit)
        self._capacity = capacity  # the platform's cores
        self._waits = 0.0
        self._started = 0
        self._ended_runs: list[tuple[float, float]] = []  # (wait, run) of the ends not summed
        self._bsld_sum = 0.0
        self._ended = 0

    def started(self, job: Job) -> None:
        self._waits += job.start - job.submit
        self._started += 1

    def ended(self, job: Job) -> None:
        if not math.isnan(job.start):
            self._ended_runs.append((job.start - job.submit, job.end - job.start))

    def sample(self) -> None:
        """Record the metrics now."""
        engine = self.engine
        now = engine.now
        self.next_time = now + self.every
        capacity = self._capacity
        busy = capacity - sum(state.free_cores for state in engine.clusters)
        queued = sum(len(state.waiting) for state in engine.clusters) + len(engine.grid.waiting)
        if self._ended_runs:
            runs = np.array(self._ended_runs, np.float64)
            self._bsld_sum += float(bounded_slowdown(runs[:, 0], runs[:, 1]).sum())
            self._ended += len(self._ended_runs)
            self._ended_runs.clear()
        if self._series.add(
            (
                now,
                busy / capacity if capacity else 0.0,
                float(queued),
                self._waits / self._started if self._started else 0.0,
                self._bsld_sum / self._ended if self._ended else 0.0,
            )
        ):
            self.every *= 2

    def last_time(self) -> float:
        """The simulated time of the last sample (-inf: none yet)."""
        return self._series.last_time()

    def series(self) -> MetricSeries:
        return self._series.series()
