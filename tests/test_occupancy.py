"""The job each node shows (:class:`emulator.occupancy.Occupancy`), against the rule itself,
placed here or from a daemon's :class:`~emulator.occupancy.PlacementLog`."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from emulator import occupancy as occupancy_module
from emulator.model.job import Job, JobState, Request
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.occupancy import Occupancy, PlacementLog


def cluster_of(nodes: int, cores: int) -> Platform:
    members = tuple(Node(id=i, name=f"n{i}", cluster=0, local=i, cores=cores) for i in range(nodes))
    partition = Partition("batch", tuple(range(nodes)), default=True)
    return Platform("p", (Cluster("c", 0, members, (partition,)),))


def shown_by_rule(jobs: list[Job], nodes: int) -> list[int]:
    """The latest started running job on each node (the highest id among equal starts)."""
    shown = []
    for node in range(nodes):
        here = [j for j in jobs if j.state is JobState.RUNNING and node in j.nodes]
        shown.append(max(here, key=lambda j: (j.start, j.id)).id if here else -1)
    return shown


def batches(
    rng: random.Random, nodes: int, count: int = 300
) -> Iterator[tuple[list[Job], list[Job]]]:
    """``count`` batches of jobs that started, ended or were requeued (and started elsewhere)
    on ``nodes`` nodes of 3 cores, shuffled: (the batch, every job so far)."""
    free = {node: 3 for node in range(nodes)}
    jobs: list[Job] = []
    now = 0.0
    for _ in range(count):
        now += rng.choice((0.0, 1.0))  # several jobs often start at one instant
        batch: list[Job] = []
        for job in rng.sample(jobs, min(len(jobs), 3)):
            if job.state is JobState.RUNNING:  # ends, or is requeued and starts elsewhere
                for node in job.nodes:
                    free[node] += 1
                job.state = JobState.COMPLETED if rng.random() < 0.7 else JobState.PENDING
                batch.append(job)
        for _ in range(rng.randint(0, 4)):
            job = Job(len(jobs) + 1, now, Request(tasks=1))
            jobs.append(job)
            batch.append(job)
        for job in batch:
            if job.state is JobState.PENDING:
                hosts = [node for node in range(nodes) if free[node]]
                if hosts:
                    job.nodes = tuple(sorted(rng.sample(hosts, min(len(hosts), 3))))
                    for node in job.nodes:
                        free[node] -= 1
                    job.state, job.start = JobState.RUNNING, now
        rng.shuffle(batch)
        yield batch, jobs


def test_batches_of_starts_ends_and_requeues_in_any_order_show_the_latest_job() -> None:
    platform = cluster_of(24, 3)
    occupancy = Occupancy(platform)
    jobs: list[Job] = []
    for batch, jobs in batches(random.Random(5), 24):
        occupancy.place(batch + batch[:1])  # a job twice in a batch: placed once
        assert occupancy.shown.tolist() == shown_by_rule(jobs, 24)
    assert sum(j.state is JobState.RUNNING for j in jobs) > 5  # nodes were shared


def test_clients_placing_from_the_log_show_what_the_rule_shows() -> None:
    """A daemon records its batches (PlacementLog); windows asking now and then, each since
    the version it holds (or from scratch: a reset), place them and show the latest job."""
    rng = random.Random(8)
    platform = cluster_of(24, 3)
    log = PlacementLog()
    clients: list[tuple[Occupancy, int | None]] = [(Occupancy(platform), None) for _ in range(3)]
    for version, (batch, jobs) in enumerate(batches(rng, 24)):
        log.add(version, batch)
        for k, (occupancy, held) in enumerate(clients):
            if rng.random() < 0.3:
                continue  # this one does not ask this time
            placements = log.since(held, jobs)
            if placements.reset:
                occupancy = Occupancy(platform)
            occupancy.place(placements.records())
            assert occupancy.shown.tolist() == shown_by_rule(jobs, 24)
            clients[k] = (occupancy, version)
    assert log.since(None, jobs).reset and not log.since(5, jobs).reset


def test_a_client_further_behind_than_the_log_gets_every_running_job(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(occupancy_module, "LOG_RECORDS", 10)
    platform = cluster_of(24, 3)
    log = PlacementLog()
    made = list(batches(random.Random(3), 24, 40))
    for version, (batch, _) in enumerate(made):
        log.add(version, batch)
    jobs = made[-1][1]
    behind = log.since(0, jobs)
    assert behind.reset
    occupancy = Occupancy(platform)
    occupancy.place(behind.records())
    assert occupancy.shown.tolist() == shown_by_rule(jobs, 24)
    assert sorted(behind.ids.tolist()) == sorted(j.id for j in jobs if j.state is JobState.RUNNING)


def test_placing_the_same_jobs_again_changes_nothing() -> None:
    occupancy = Occupancy(cluster_of(4, 2))
    a, b = Job(1, 0.0, Request(tasks=2)), Job(2, 0.0, Request(tasks=1))
    for job, nodes in ((a, (0, 1)), (b, (1,))):
        job.state, job.start, job.nodes = JobState.RUNNING, 5.0, nodes
    occupancy.place([b, a])
    assert occupancy.shown.tolist() == [1, 2, -1, -1]  # equal starts: the higher id
    occupancy.place([a, b])
    assert occupancy.shown.tolist() == [1, 2, -1, -1]
    b.state = JobState.COMPLETED
    occupancy.place([b])
    assert occupancy.shown.tolist() == [1, 1, -1, -1]
