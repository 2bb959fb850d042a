"""The engine's parts on their own terms: one way to ask for a pass (Queues.request_pass), the FIFO
insertion of a job that comes back, and node service keeping cores out of the pool."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator

from emulator.api import ClusterView, Decision, LocalPolicy
from emulator.engine import Engine
from emulator.engine.queues import insert
from emulator.model.job import Job, Request
from emulator.model.platform import Platform
from tests.test_engine import platform_of


class Counting(LocalPolicy):
    """Decides nothing; counts the passes it was asked for, with the time of each."""

    name = "counting"

    def __init__(self) -> None:
        self.passes: list[float] = []

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        self.passes.append(view.now)
        yield from ()


def test_a_pass_runs_only_the_scopes_asked_for_and_once_per_instant() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 1.0)), "fcfs")
    first, second = Counting(), Counting()
    engine.clusters[0].policy, engine.clusters[1].policy = first, second
    engine.run(until=5)
    engine.request_pass(engine.clusters[1])
    engine.request_pass(engine.clusters[1])  # asking twice in one instant: one pass
    engine.run(until=5)
    assert (first.passes, second.passes) == ([], [5.0])
    engine.request_pass()  # no scope: a settle that finds nothing dirty runs no policy
    engine.run(until=6)
    assert (first.passes, second.passes) == ([], [5.0])


def test_an_arrival_asks_for_its_cluster_pass_after_the_instant() -> None:
    engine = Engine(Platform.single_cluster(4), "fcfs")
    counting = Counting()
    engine.clusters[0].policy = counting
    for _ in range(3):  # three arrivals at one instant: one pass, after all of them
        engine.submit(Request(tasks=1, time_limit=10), 5, at=2)
    engine.run()
    assert counting.passes == [2.0]
    assert len(engine.clusters[0].waiting) == 3


def _job(job_id: int, submit: float) -> Job:
    return Job(job_id, submit, Request(time_limit=10))


def test_insert_appends_arrivals_and_puts_a_returning_job_by_submit_time() -> None:
    queue: OrderedDict[int, Job] = OrderedDict()
    for job in (_job(1, 0), _job(3, 5), _job(4, 9)):
        insert(queue, job, readmitted=False)
    insert(queue, _job(2, 1), readmitted=True)  # released: back between 1 and 3
    insert(queue, _job(5, 0), readmitted=False)  # a new arrival goes last, whatever its time
    insert(queue, _job(6, 20), readmitted=True)  # after everyone: appended
    assert list(queue) == [1, 2, 3, 4, 5, 6]


def test_node_service_keeps_a_drained_node_out_until_resumed() -> None:
    engine = Engine(Platform.single_cluster(4), "fcfs")
    engine.drain([1], "fan")
    engine.drain([1], "fan again")  # withheld once, however often it is set
    assert engine.clusters[0].free_cores == 3
    job = engine.submit(Request(tasks=4, time_limit=10), 5)
    engine.run(until=1)
    assert math.isnan(job.start)  # it waits for the drained node
    engine.resume([1])
    engine.run()
    assert (job.start, engine.clusters[0].free_cores, engine.node_status) == (1.0, 4, {})
