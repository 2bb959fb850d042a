"""FCFS keeps its plan between estimates and extends it as a grid pass routes jobs to the end of
the queue (solvers/local/fcfs.py): every answer must be the one a plan made afresh gives."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from emulator.api import ClusterView, Decision, Estimate, GridPolicy, GridView, Route, Withdraw
from emulator.api.policy import running_profile
from emulator.engine import Engine
from emulator.model.job import Job, Request
from solvers.brokers.platforms import sites_platform
from solvers.local.fcfs import Fcfs


@dataclass
class RouteAndAsk(GridPolicy):
    """Routes the grid queue's jobs one by one to random clusters (now and then withdrawing a
    waiting job first), asking both clusters' estimates for the same probes after each
    decision: the live policy's (kept plan) against a fresh FCFS's (plan made afresh)."""

    name = "route-and-ask"
    seed: int = 0
    probes: list[Job] = field(default_factory=list)
    compared: int = 0
    withdrawals: int = 20  # then no more: a withdrawn job comes back through the grid queue

    def schedule(self, view: GridView) -> Iterator[Decision]:
        rng = random.Random(self.seed * 1000 + self.compared)
        for job in view.queue:
            waiting = [j for cluster in view.clusters for j in cluster.queue]
            if waiting and self.withdrawals and rng.random() < 0.2:
                self.withdrawals -= 1
                yield Withdraw(rng.choice(waiting))
                self._compare(view)
            yield Route(job, rng.randrange(len(view.clusters)))
            self._compare(view)

    def _compare(self, view: GridView) -> None:
        for k, cluster in enumerate(view.clusters):
            asked = [*self.probes, *cluster.queue]
            kept = view.estimates(asked, k)
            assert kept == Fcfs().estimates(asked, cluster)
            assert kept == fcfs_by_profile(asked, cluster)
            self.compared += 1


def fcfs_by_profile(jobs: list[Job], view: ClusterView) -> list[Estimate]:
    """The FCFS answers straight from the definition: the queue placed in order on the running
    jobs' profile, no job before the one ahead of it; a new job searched for a window of its
    whole time limit after the last of them."""
    profile, last, planned = running_profile(view), view.now, {}
    for waiting in view.queue:
        last = profile.earliest(waiting.cores, view.walltime(waiting), last)
        if last == math.inf:
            break
        profile.reserve(last, view.walltime(waiting), waiting.cores)
        planned[waiting.id] = last
    answers = []
    for job in jobs:
        limit = view.walltime(job)
        start = planned.get(job.id, math.inf if last == math.inf else -1.0)
        if start < 0:
            start = profile.earliest(job.cores, limit, last)
        answers.append(Estimate(start, start + limit))
    return answers


@pytest.mark.parametrize("seed", range(12))
def test_kept_and_extended_plans_answer_as_fresh_ones(seed: int) -> None:
    rng = random.Random(seed)
    engine = Engine(sites_platform([8, 6]), "mct+fcfs")
    probes = [
        Job(10_000 + i, 0.0, Request(tasks=rng.randint(1, 8), time_limit=rng.choice([10, 30])))
        for i in range(6)
    ]
    policy = engine.grid_policy = RouteAndAsk(seed, probes)
    for _ in range(40):
        at, cores, limit = rng.randrange(0, 60), rng.randint(1, 6), rng.randrange(5, 60)
        engine.submit(Request(tasks=cores, time_limit=limit), rng.uniform(1, limit), at=at)
    engine.run()
    assert policy.compared >= 80  # both clusters after each of the 40 routes, at least
