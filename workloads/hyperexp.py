"""The BPU paper's workload: hyper-exponential arrivals and service times, moldable requests.

Kaur et al. (IJATCSE 2013), "Workload Characteristics": inter-arrival and service times are
hyper-exponential with a chosen rate and coefficient of variation (CV); jobs are moldable and
arrive at a local site (models.md §4.4).

The paper names the distribution, not the fit. Ours is the usual two-phase fit with balanced means
(each phase carries half the mean: ``p_i / λ_i = mean / 2``), which matches the mean and the CV
exactly:

    p_1 = (1 + sqrt((c² − 1) / (c² + 1))) / 2,  p_2 = 1 − p_1,  λ_i = 2 p_i / mean.

A hyper-exponential has CV >= 1 (CV = 1 is the exponential); a smaller CV is refused rather than
silently fitted by another family. Other choices left open, made here (docs/experiments/bpu.md):

- each job asks for x_j BPUs drawn uniformly from the integers in ``[bpu_low, bpu_high]``;
- its service time is its run time on exactly x_j BPUs (work ``x_j · service`` BPU-seconds);
- its time limit is the service time times ``limit_factor``, rounded up to the second;
- its home site is drawn uniformly from the sites; ``pin_home`` restricts it to that site
  (``-M``), which makes the local-only baseline from the same draws;
- ``tasks`` is ``ceil(x_j)``: the cores it would take on 1-BPU cores, its size for a rigid
  reader (SWF).

Seeded with numpy's PCG64: the same arguments give the same jobs on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from emulator.model.job import Moldable, Request, Submission

_BLOCK = 65536  # draws per numpy call while streaming


@dataclass(frozen=True, slots=True)
class HyperExponential:
    """A two-phase hyper-exponential: phase 1 with probability ``p``, rates ``rate1``/``rate2``."""

    p: float
    rate1: float
    rate2: float

    @classmethod
    def fit(cls, mean: float, cv: float) -> HyperExponential:
        """The balanced-means fit of ``mean`` and ``cv`` (module docstring)."""
        if not 0 < mean < math.inf:
            raise ValueError(f"the mean must be > 0, got {mean:g}")
        if not 1 <= cv < math.inf:
            raise ValueError(f"a hyper-exponential has CV >= 1, got {cv:g}")
        p = (1 + math.sqrt((cv * cv - 1) / (cv * cv + 1))) / 2
        return cls(p, 2 * p / mean, 2 * (1 - p) / mean)

    @property
    def mean(self) -> float:
        return self.p / self.rate1 + (1 - self.p) / self.rate2

    def sample(self, rng: np.random.Generator, count: int) -> npt.NDArray[np.float64]:
        """``count`` draws."""
        first = rng.random(count) < self.p
        scale = np.where(first, 1 / self.rate1, 1 / self.rate2)
        draws: npt.NDArray[np.float64] = rng.exponential(scale, count)
        return draws


@dataclass(frozen=True, slots=True)
class MoldableWorkload:
    """What :func:`moldable_jobs` draws (module docstring)."""

    sites: tuple[str, ...]
    arrival_mean: float = 60.0
    arrival_cv: float = 1.0
    service_mean: float = 600.0
    service_cv: float = 1.0
    bpu_low: int = 1
    bpu_high: int = 16
    serial_fraction: float = 0.0
    limit_factor: float = 1.5
    pin_home: bool = False

    def __post_init__(self) -> None:
        if not self.sites:
            raise ValueError("a workload needs at least one site")
        if not 1 <= self.bpu_low <= self.bpu_high:
            raise ValueError(
                f"BPU range must be 1 <= low <= high, got {self.bpu_low}-{self.bpu_high}"
            )
        if not 0 <= self.serial_fraction < 1:
            raise ValueError(f"the serial fraction must be in [0, 1), got {self.serial_fraction:g}")
        if not self.limit_factor >= 1:
            raise ValueError(f"the limit factor must be >= 1, got {self.limit_factor:g}")
        HyperExponential.fit(self.arrival_mean, self.arrival_cv)  # checks both
        HyperExponential.fit(self.service_mean, self.service_cv)


def moldable_jobs(spec: MoldableWorkload, count: int, seed: int = 1) -> Iterator[Submission]:
    """``count`` moldable submissions, streamed in blocks (submit times rounded to the
    millisecond, service times to the second, so that CSV round-trips them)."""
    if count < 0:
        raise ValueError(f"the job count must be >= 0, got {count}")
    rng = np.random.default_rng(seed)
    arrivals = HyperExponential.fit(spec.arrival_mean, spec.arrival_cv)
    services = HyperExponential.fit(spec.service_mean, spec.service_cv)
    now = 0.0
    job_id = 0
    serial = spec.serial_fraction
    while job_id < count:
        block = min(_BLOCK, count - job_id)
        gaps = arrivals.sample(rng, block).tolist()
        runs = np.maximum(np.ceil(services.sample(rng, block)), 1.0).tolist()
        powers = rng.integers(spec.bpu_low, spec.bpu_high + 1, block).tolist()
        homes = rng.integers(0, len(spec.sites), block).tolist()
        for gap, run, power, home in zip(gaps, runs, powers, homes, strict=True):
            job_id += 1
            now += gap
            site = spec.sites[home]
            request = Request(
                tasks=power,
                time_limit=float(math.ceil(run * spec.limit_factor)),
                name=f"mold{job_id}",
                user=f"u{home}",
                clusters=(site,) if spec.pin_home else (),
                moldable=Moldable(float(power), serial),
                origin=site,
            )
            yield Submission(job_id, round(now, 3), request, run)


def moments(values: Sequence[float] | npt.NDArray[np.float64]) -> tuple[float, float]:
    """Sample mean and coefficient of variation."""
    array = np.asarray(values, dtype=np.float64)
    mean = float(array.mean())
    return mean, float(array.std()) / mean
