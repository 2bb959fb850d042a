"""Small builders shared by the engine and policy tests."""

from __future__ import annotations

from emulator.engine import Engine
from emulator.model.job import Job, Request
from emulator.model.platform import Platform


def run_jobs(
    scheduler: str, cores: int, jobs: list[tuple[float, int, float, float]]
) -> tuple[Engine, list[Job]]:
    """Run ``(submit, cores, limit, runtime)`` jobs on one cluster of single-core nodes."""
    engine = Engine(Platform.single_cluster(cores), scheduler)
    submitted = [
        engine.submit(Request(tasks=size, time_limit=limit), runtime, at=at)
        for at, size, limit, runtime in jobs
    ]
    engine.run()
    return engine, submitted


def starts(jobs: list[Job]) -> list[float]:
    return [job.start for job in jobs]
