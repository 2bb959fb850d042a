"""The Withdraw grid decision: a waiting job goes back to the grid queue, the engine remembers
where it came from, a later route elsewhere is a reallocation; running, unknown or already
withdrawn jobs and local policies are refused naming the policy."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import pytest

from emulator.api import Decision, GridPolicy, GridView, PolicyError, Route, Wake, Withdraw
from emulator.engine import Engine
from emulator.model.job import Job, JobState, Request
from emulator.session.events import describe
from solvers.brokers.platforms import sites_platform


@dataclass
class Scripted(GridPolicy):
    """Routes arrivals to cluster 0; at ``at`` runs ``act`` once (jobs it withdraws and leaves
    in the grid queue stay there)."""

    name = "scripted"
    at: float
    act: Callable[[GridView], Iterable[Decision]]
    woken: bool = False
    done: bool = False
    withdrawn: set[int] = field(default_factory=set)

    def schedule(self, view: GridView) -> Iterator[Decision]:
        if not self.woken:
            self.woken = True
            yield Wake(self.at)
        if view.now >= self.at and not self.done:
            self.done = True
            for decision in self.act(view):
                if isinstance(decision, Withdraw):
                    self.withdrawn.add(decision.job.id)
                yield decision
        for job in view.queue:
            if job.id not in self.withdrawn:
                yield Route(job, 0)


def engine_with(act: Callable[[GridView], Iterable[Decision]], at: float = 5.0) -> Engine:
    engine = Engine(sites_platform([2, 2]), "mct+fcfs")
    engine.grid_policy = Scripted(at, act)
    return engine


def submit(engine: Engine, at: float, cores: int, limit: float) -> Job:
    return engine.submit(Request(tasks=cores, time_limit=limit), limit, at=at)


def test_withdraw_then_route_elsewhere_is_a_reallocation() -> None:
    def act(view: GridView) -> Iterable[Decision]:
        waiting = list(view.clusters[0].queue)
        for job in waiting:
            yield Withdraw(job)
        assert [job.id for job in view.queue] == [job.id for job in waiting]
        assert all(job.cluster == -1 for job in waiting)
        assert not view.clusters[0].queue
        for job in waiting:
            yield Route(job, 1)

    engine = engine_with(act)
    submit(engine, 0, 2, 100)
    first = submit(engine, 0, 2, 100)
    later = submit(engine, 10, 2, 100)  # arrives after the act: routed to cluster 0
    engine.run()
    assert engine.queues.reallocations == 1
    assert first.moved_from == (0,)
    assert first.state is JobState.COMPLETED and first.cluster == 1
    assert first.start == 5.0
    assert later.cluster == 0 and later.moved_from == ()


def test_withdraw_then_route_back_is_no_reallocation_and_requeues_at_the_end() -> None:
    order: list[int] = []

    def act(view: GridView) -> Iterable[Decision]:
        waiting = list(view.clusters[0].queue)
        for job in waiting:
            yield Withdraw(job)
        for job in reversed(waiting):
            yield Route(job, 0)
        order.extend(job.id for job in view.clusters[0].queue)

    engine = engine_with(act)
    jobs = [submit(engine, 0, 2, 100) for _ in range(3)]
    engine.run()
    assert engine.queues.reallocations == 0
    assert all(job.moved_from == () for job in jobs)
    assert order == [jobs[2].id, jobs[1].id]  # jobs[0] runs; the others in the new order
    assert jobs[2].start < jobs[1].start


def test_withdrawing_a_running_job_is_refused() -> None:
    def act(view: GridView) -> Iterable[Decision]:
        (running,) = view.clusters[0].running
        yield Withdraw(running)

    engine = engine_with(act)
    submit(engine, 0, 2, 100)
    with pytest.raises(PolicyError, match=r"policy 'scripted': job 1 is not waiting .*RUNNING"):
        engine.run()


def test_withdrawing_an_unknown_job_is_refused() -> None:
    stranger = Job(99, 0.0, Request(tasks=1, time_limit=10))

    engine = engine_with(lambda view: [Withdraw(stranger)])
    submit(engine, 0, 2, 100)
    with pytest.raises(PolicyError, match="policy 'scripted': job 99 is not waiting"):
        engine.run()


def test_withdrawing_twice_is_refused() -> None:
    def act(view: GridView) -> Iterable[Decision]:
        (job,) = view.clusters[0].queue
        yield Withdraw(job)
        yield Withdraw(job)

    engine = engine_with(act)
    submit(engine, 0, 2, 100)
    submit(engine, 0, 2, 100)
    with pytest.raises(PolicyError, match="job 2 is already in the grid queue"):
        engine.run()


def test_a_local_policy_may_not_withdraw() -> None:
    engine = Engine(sites_platform([2]), "fcfs")
    job = submit(engine, 0, 2, 100)
    with pytest.raises(PolicyError, match="only the grid policy may withdraw"):
        engine._apply(0, "fcfs", [Withdraw(job)])


def test_the_event_log_says_withdraw() -> None:
    job = Job(1, 0.0, Request(tasks=1, time_limit=10))
    text = describe(Withdraw(job, "realloc: with cancellation"), sites_platform([1]))
    assert text == "withdraw to the grid queue: realloc: with cancellation"


@dataclass
class PlaceThenMove(GridPolicy):
    """Routes every arrival to cluster 0, then, in the same pass, takes it through ``moves``
    (cluster numbers; -1 for a withdrawal): a job that arrives in a queue and leaves it before
    that cluster's pass."""

    name = "place-then-move"
    moves: tuple[int, ...] = ()

    def schedule(self, view: GridView) -> Iterator[Decision]:
        for job in view.queue:
            yield Route(job, 0)
            for move in self.moves:
                yield Withdraw(job) if move < 0 else Route(job, move)


@pytest.mark.parametrize("local", ["fcfs", "easy", "cbf", "lsf"])
@pytest.mark.parametrize(
    ("moves", "home", "moved_from"),
    [((1,), 1, (0,)), ((-1, 1), 1, (0,)), ((1, 0), 0, (0, 1)), ((-1, 0), 0, ())],
)
def test_a_job_that_left_a_queue_in_the_pass_it_arrived_is_not_planned_there(
    local: str, moves: tuple[int, ...], home: int, moved_from: tuple[int, ...]
) -> None:
    """Both clusters busy to 100; each job comes to s0 and leaves it (or comes back) before s0's
    pass: the local policy there plans it once if it stayed, never if it left (CBF planned a job
    that had left, and a job that came back twice, before the pass start dropped them from
    ``arrived``)."""
    engine = Engine(sites_platform([2, 2]), f"mct+{local}")
    engine.grid_policy = PlaceThenMove(moves)
    blockers = [
        engine.submit(Request(tasks=2, time_limit=100, clusters=(name,)), 100, at=0)
        for name in ("s0", "s1")
    ]
    moving = [submit(engine, 5, 2, 50) for _ in range(2)]
    engine.run()
    assert [job.cluster for job in blockers] == [0, 1]
    assert all(job.state is JobState.COMPLETED for job in (*blockers, *moving))
    assert [job.cluster for job in moving] == [home, home]
    assert moving[0].moved_from == moved_from
    assert (moving[0].start, moving[1].start) == (100.0, 150.0)
