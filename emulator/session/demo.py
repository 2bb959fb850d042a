"""The demo: the teaching platform under a seeded mixed workload, what ``batchlab gui --demo``
shows (and the lessons of ``docs/teaching.md`` use)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

from emulator.model.job import Communication, Request, Submission
from emulator.session.core import Session

__all__ = ["DEMO_PLATFORM", "demo_session", "demo_submissions"]


def demo_submissions(count: int = 300, seed: int = 7) -> Iterator[Submission]:
    """A seeded mixed workload for the teaching platform (3 sites, 72 cores): many short narrow
    jobs, some medium ones, a few wide long bulk-synchronous ones (they load the links when a
    grid policy spreads them); limits overestimate runtimes 1-3x; offered load about 0.8."""
    rng = random.Random(seed)
    now = 0.0
    users = ("alice", "bob", "carol", "dave", "erin")
    for job_id in range(1, count + 1):
        now += rng.expovariate(1 / 240.0)  # an offered load of about 0.8
        kind = rng.random()
        if kind < 0.6:
            tasks, runtime, name = rng.randint(1, 4), rng.uniform(60, 900), "short"
        elif kind < 0.9:
            tasks, runtime, name = rng.randint(4, 12), rng.uniform(600, 3600), "medium"
        else:
            tasks, runtime, name = rng.randint(12, 24), rng.uniform(1800, 7200), "wide"
        limit = math.ceil(runtime * rng.uniform(1.0, 3.0) / 60) * 60
        # wide jobs are bulk-synchronous: spread over sites by a co-allocating policy
        # (coalloc), they load the links and slow down when a link saturates
        bsp = Communication(round(runtime), sigma=0.7, task_bw=0.8) if name == "wide" else None
        request = Request(
            tasks=tasks,
            time_limit=limit,
            name=f"{name}{job_id}",
            user=users[job_id % len(users)],
            communication=bsp,
        )
        yield Submission(job_id, round(now), request, round(runtime))


DEMO_PLATFORM = "teaching-3sites"  # the shipped platform of the demo


def demo_session(scheduler: str = "easy", *, count: int = 300, seed: int = 7) -> Session:
    """The teaching platform (``teaching-3sites``) under ``scheduler`` with a seeded mixed
    workload, plus an array and a dependent job submitted with ``sbatch`` at time 0."""
    from emulator.model.platform_file import load_platform
    from resources import platform_path

    session = Session(load_platform(platform_path(DEMO_PLATFORM)), scheduler)
    session.command('sbatch -J sweep -a 1-6%3 -n 2 -t 20 --wrap "sleep 600"', user="alice")
    session.command('sbatch -J prep -n 4 -t 10 --wrap "sleep 300"', user="bob")
    session.command('sbatch -J post -d afterok:2 -n 8 -t 30 --wrap "sleep 900"', user="bob")
    session.submit_workload(demo_submissions(count, seed))
    return session
