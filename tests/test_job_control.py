"""Job control and eligibility in the engine: scancel, hold/release, requeue, update, dependencies,
array task caps and partition limits, with Slurm's reasons (slurm-conventions.md, the samples)."""

from __future__ import annotations

import pytest

from emulator.engine import Engine, JobStateError
from emulator.model.job import (
    ArrayTask,
    Dependencies,
    Dependency,
    DependencyKind,
    JobState,
    Reason,
    Request,
)
from emulator.model.platform_file import load_platform
from resources import platform_path


def lab() -> Engine:
    """The Slurm sample cluster: node[01-04] × 4 cores, batch (2 days) and short (1 hour)."""
    return Engine(load_platform(platform_path("lab")), "easy")


def after(
    kind: DependencyKind, *ids: int, any_of: bool = False, delay: float = 0.0
) -> Dependencies:
    return Dependencies(tuple(Dependency(kind, i, delay) for i in ids), any_of)


def test_cancel_pending_running_and_not_yet_arrived_jobs() -> None:
    engine = lab()
    running = engine.submit(Request(tasks=16, time_limit=3600), 100)
    waiting = engine.submit(Request(tasks=4, time_limit=3600), 100)
    later = engine.submit(Request(time_limit=60), 10, at=50)
    engine.run(until=10)
    engine.cancel(waiting.id)
    engine.cancel(later.id)
    engine.cancel(running.id)
    engine.run()
    assert [(j.state, j.end) for j in (running, waiting, later)] == [
        (JobState.CANCELLED, 10),
        (JobState.CANCELLED, 10),
        (JobState.CANCELLED, 10),
    ]
    assert engine.clusters[0].free_cores == 16 and engine.idle
    with pytest.raises(JobStateError, match="already completing or completed"):
        engine.cancel(running.id)
    with pytest.raises(JobStateError, match="Invalid job id specified: 99"):
        engine.cancel(99)


def test_hold_and_release_keep_the_fifo_place() -> None:
    engine = lab()
    engine.submit(Request(tasks=16, time_limit=100), 100)
    first = engine.submit(Request(tasks=16, time_limit=100), 100)
    second = engine.submit(Request(tasks=16, time_limit=100), 100)
    engine.run(until=1)
    engine.hold(first.id)
    engine.run(until=2)
    assert (first.reason, second.reason) == (Reason.HELD_USER, Reason.RESOURCES)
    engine.run(until=50)
    engine.release(first.id)
    engine.run()
    assert (first.start, second.start) == (100, 200)  # released, it goes back ahead of job 3
    with pytest.raises(JobStateError, match="no longer pending"):
        engine.hold(first.id)


def test_the_queue_reads_in_fifo_order_after_jobs_leave_and_come_back() -> None:
    """``ClusterView.queue`` reads the queue through the plain dict's entries (nodes.in_order):
    they must keep the FIFO order when jobs leave from the front and the middle and a released
    job goes back ahead of later ones."""
    engine = lab()
    engine.submit(Request(tasks=16, time_limit=100), 100)
    jobs = [engine.submit(Request(tasks=16, time_limit=100), 100) for _ in range(6)]
    engine.run(until=1)
    engine.hold(jobs[1].id)
    engine.cancel(jobs[3].id)
    engine.run(until=150)  # the first job ended: jobs[0] started, the others wait
    engine.release(jobs[1].id)
    engine.run(until=151)
    state = engine.clusters[0]
    assert [job.id for job in state.queue] == [jobs[k].id for k in (1, 2, 4, 5)]
    assert list(state.queue) == list(state.waiting.values())


def test_requeue_runs_the_job_again_with_the_same_id() -> None:
    engine = lab()
    job = engine.submit(Request(tasks=4, time_limit=100), 30)
    engine.run(until=10)
    engine.requeue(job.id)
    assert (job.state, job.nodes) == (JobState.PENDING, ())
    engine.run()
    assert (job.state, job.start, job.end) == (JobState.COMPLETED, 10, 40)
    engine.requeue(job.id)  # a finished job may be requeued too
    engine.run()
    assert (job.start, job.end) == (40, 70)


def test_update_a_pending_job() -> None:
    engine = lab()
    engine.submit(Request(tasks=16, time_limit=100), 100)
    job = engine.submit(Request(tasks=16, time_limit=3600 * 72), 10)
    engine.run(until=1)
    assert job.reason is Reason.PARTITION_TIME_LIMIT  # 3 days > batch's 2 days
    engine.update(job.id, Request(tasks=16, time_limit=3600))
    engine.run()
    assert (job.start, job.state) == (100, JobState.COMPLETED)


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (Request(time_limit=3 * 86400, partition="short"), Reason.PARTITION_TIME_LIMIT),
        (Request(tasks=99, time_limit=60), Reason.PARTITION_CONFIG),
        (Request(cpus_per_task=64, time_limit=60), Reason.PARTITION_CONFIG),
        (Request(time_limit=60, partition="nosuch"), Reason.PARTITION_CONFIG),
    ],
)
def test_partition_limits_keep_jobs_pending(request_: Request, reason: Reason) -> None:
    engine = lab()
    job = engine.submit(request_, 10)
    engine.run()
    assert (job.state, job.reason) == (JobState.PENDING, reason)


def test_afterok_afternotok_afterany() -> None:
    engine = lab()
    ok = engine.submit(Request(time_limit=100), 10)
    killed = engine.submit(Request(time_limit=5 / 60 * 60), 10)  # limit 5 s, runs 10: TIMEOUT
    on_ok = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_OK, 1)), 1
    )
    on_fail = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_NOT_OK, 2)), 1
    )
    never = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_OK, 2)), 1
    )
    on_any = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_ANY, 1, 2)), 1
    )
    engine.run(until=1)
    assert on_ok.reason is Reason.DEPENDENCY and never.reason is Reason.DEPENDENCY
    engine.run()
    assert killed.state is JobState.TIMEOUT
    assert (on_ok.start, on_fail.start, on_any.start) == (10, 5, 10)
    assert (never.state, never.reason) == (JobState.PENDING, Reason.DEPENDENCY_NEVER)
    assert ok.state is JobState.COMPLETED


def test_after_with_delay_and_any_of() -> None:
    engine = lab()
    engine.submit(Request(time_limit=1000), 500)
    engine.submit(Request(time_limit=1000, begin=300), 10)
    delayed = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER, 1, delay=60)), 1
    )
    either = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_ANY, 1, 2, any_of=True)), 1
    )
    engine.run()
    assert (delayed.start, either.start) == (60, 310)


def test_singleton_waits_for_the_earlier_job_of_the_same_name_and_user() -> None:
    engine = lab()
    single = Dependencies((Dependency(DependencyKind.SINGLETON),))
    first = engine.submit(Request(name="train", time_limit=100), 50)
    second = engine.submit(Request(name="train", time_limit=100, dependencies=single), 50)
    other = engine.submit(Request(name="eval", time_limit=100, dependencies=single), 50)
    engine.run()
    assert (first.start, second.start, other.start) == (0, 50, 0)


def test_array_task_cap() -> None:
    engine = lab()
    tasks = [
        engine.submit(Request(time_limit=100, array=ArrayTask(4, i, max_running=2)), 10)
        for i in range(5)
    ]
    engine.run(until=1)
    assert [t.state for t in tasks].count(JobState.RUNNING) == 2
    assert tasks[4].reason is Reason.ARRAY_TASK_LIMIT
    engine.run()
    assert [t.start for t in tasks] == [0, 0, 10, 10, 20]


def test_a_non_zero_exit_fails_the_job_and_afterok_never_holds() -> None:
    engine = lab()
    failing = engine.submit(Request(time_limit=100), 10, exit_code=3)
    on_ok = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_OK, 1)), 1
    )
    on_fail = engine.submit(
        Request(time_limit=100, dependencies=after(DependencyKind.AFTER_NOT_OK, 1)), 1
    )
    engine.run()
    assert (failing.state, failing.exit_code, failing.end) == (JobState.FAILED, 3, 10)
    assert (on_ok.reason, on_fail.start) == (Reason.DEPENDENCY_NEVER, 10)
