"""Small builders shared by the engine and policy tests."""

from __future__ import annotations

from emulator.engine import Engine
from emulator.model.job import Job, Request
from emulator.model.platform import Cluster, Node, Partition, Platform


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


def platform_of(*clusters: tuple[int, float]) -> Platform:
    """Clusters of ``n`` single-core nodes of the given speed, link capacity 1."""
    built, next_id = [], 0
    for index, (count, speed) in enumerate(clusters):
        nodes = tuple(Node(next_id + i, f"k{index}n{i}", index, i, 1, speed) for i in range(count))
        next_id += count
        built.append(
            Cluster(
                f"k{index}", index, nodes, (Partition("batch", tuple(range(count)), True),), 1.0
            )
        )
    return Platform("test", tuple(built))
