"""Algorithm 2's resubmission order (solvers/realloc/resubmission.py) asks only the ECTs its
heuristic's choice needs: at every step it must take the job, with the row, that the heuristic
takes over a table asked afresh for every job on every cluster (the paper's definition)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

import pytest

from emulator.api import Decision, GridPolicy, GridView, Route, Withdraw
from emulator.engine import Engine
from emulator.model.job import Job, Request
from emulator.model.platform import Platform
from solvers.brokers.platforms import sites_platform
from solvers.realloc.heuristics import Candidate, Heuristic, choose, resubmit_to
from solvers.realloc.resubmission import Resubmission


@dataclass
class ResubmitAndCompare(GridPolicy):
    """Routes each arriving job to a random cluster; every ``every``-th pass, withdraws every
    waiting job and resubmits them in the heuristic's order, checking each step against the
    choice over a table made afresh."""

    name = "resubmit-and-compare"
    heuristic: Heuristic = Heuristic.MAXMIN
    seed: int = 0
    every: int = 4
    passes: int = 0
    steps: int = 0

    def schedule(self, view: GridView) -> Iterator[Decision]:
        rng = random.Random(self.seed * 1000 + self.passes)
        self.passes += 1
        for job in view.queue:
            yield Route(job, rng.choice(view.allowed(job)))
        if self.passes % self.every:
            return
        jobs = sorted(
            (job for cluster in view.clusters for job in cluster.queue),
            key=lambda job: (job.submit, job.id),
        )
        origins = [job.cluster for job in jobs]
        references = [view.estimate(job, job.cluster).end for job in jobs]
        for job in jobs:
            yield Withdraw(job)
        rank = list(range(len(view.clusters)))
        order = Resubmission(view, jobs, references, self.heuristic, rank)
        left = list(range(len(jobs)))
        while left:
            table = [self._fresh(view, jobs[i], references[i]) for i in left]
            expected = left.pop(choose(self.heuristic, table, rank))
            i, row = order.take()
            assert (i, row) == (expected, self._fresh(view, jobs[i], references[i]))
            self.steps += 1
            yield Route(jobs[i], resubmit_to(row, rank, origins[i]))
        assert order.remaining == 0

    @staticmethod
    def _fresh(view: GridView, job: Job, reference: float) -> Candidate:
        allowed = set(view.allowed(job))
        ects = tuple(
            view.estimate(job, k).end if k in allowed else math.inf
            for k in range(len(view.clusters))
        )
        return Candidate((job.submit, job.id), job.cores, ects, None, reference)


def platform_with_speeds(sizes: list[int], speeds: list[float]) -> Platform:
    platform = sites_platform(sizes)
    clusters = tuple(
        replace(cluster, nodes=tuple(replace(node, speed=speed) for node in cluster.nodes))
        for cluster, speed in zip(platform.clusters, speeds, strict=True)
    )
    return Platform(platform.name, clusters)


@pytest.mark.parametrize("local", ["fcfs", "cbf"])
@pytest.mark.parametrize("heuristic", list(Heuristic))
@pytest.mark.parametrize("seed", range(3))
def test_each_step_takes_what_a_fresh_table_takes(
    local: str, heuristic: Heuristic, seed: int
) -> None:
    rng = random.Random(seed)
    engine = Engine(platform_with_speeds([8, 6, 4], [1.0, 1.5, 2.0]), f"mct+{local}")
    policy = engine.grid_policy = ResubmitAndCompare(heuristic, seed)
    for _ in range(60):
        cores = rng.choice([1, 1, 2, 2, 3, 4, 6, 8])  # alike jobs, some fitting one cluster
        limit = rng.choice([10, 20, 20, 30, 45, 60])  # equal limits: ties to break
        engine.submit(
            Request(tasks=cores, time_limit=limit), rng.uniform(1, limit), at=rng.randrange(0, 90)
        )
    engine.run()
    assert policy.steps >= 30
