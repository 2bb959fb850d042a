"""LSF's kept scan order (solvers.local.lsf.ScanOrder) against LSF's definition, sorted afresh
at every pass (Tchernykh et al. §2.2: waiting jobs by size, largest first, each started as soon as
it fits), over arrivals, early ends, cancellations, holds, releases and size updates."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from emulator.api import ClusterView, Decision, LocalPolicy, Start
from emulator.engine import Engine
from emulator.model.job import Job, JobState, Request
from emulator.model.platform import Platform


@dataclass
class SortedEveryPass(LocalPolicy):
    """The definition: sort the whole queue at every pass."""

    name = "lsf-reference"

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        for job in sorted(view.queue, key=lambda job: -job.cores):  # stable: queue order ties
            if job.cores <= view.free_cores and view.fits(job):
                yield Start(job)


def run(seed: int, reference: bool) -> list[tuple[int, float, str]]:
    rng = random.Random(seed)
    engine = Engine(Platform.single_cluster(16), "lsf")
    if reference:
        engine.clusters[0].policy = SortedEveryPass()
    jobs: list[Job] = []
    for _ in range(150):
        limit = float(rng.randint(5, 50))
        runtime = float(rng.randint(1, int(limit)))
        request = Request(tasks=rng.randint(1, 16), time_limit=limit)
        jobs.append(engine.submit(request, runtime, at=float(rng.randint(0, 300))))
    for moment in range(10, 300, 7):
        engine.run(float(moment))
        waiting = [job for job in jobs if job.state is JobState.PENDING and job.cluster == 0]
        if not waiting:
            continue
        job = rng.choice(waiting)
        action = rng.randrange(4)
        if action == 0:
            engine.cancel(job.id)
        elif action == 1:
            engine.hold(job.id)
            if rng.random() < 0.5:
                engine.release(job.id)
        elif action == 2:
            engine.update(job.id, replace(job.request, tasks=rng.randint(1, 16)))
    engine.run()
    return [(job.id, job.start, job.state.name) for job in jobs]


def test_the_kept_order_starts_what_a_fresh_sort_starts() -> None:
    for seed in range(12):
        assert run(seed, reference=False) == run(seed, reference=True), seed
