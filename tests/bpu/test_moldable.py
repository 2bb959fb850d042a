"""Moldable jobs in the model and the engine (issue 19, Deliver 1): BPU ratings, durations and
limits that follow the allocation, the BPU check on grid starts, the cores a job was given."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from emulator.api import Decision, GridPolicy, GridView, PolicyError, Start
from emulator.engine import Engine
from emulator.model.bpu import allocated_bpus, bpu_ratings, bpu_unit, moldable_scale
from emulator.model.job import JobState, Moldable, Request
from emulator.replay import Recorder
from tests.helpers import platform_of


class Named(GridPolicy):
    """Starts every grid job on the platform node ids in ``nodes`` (one core each)."""

    name = "named-test"

    def __init__(self, nodes: tuple[int, ...]) -> None:
        self.nodes = nodes

    def schedule(self, view: GridView) -> Iterator[Decision]:
        for job in view.queue:
            yield Start(job, nodes=self.nodes, cores=(1,) * len(self.nodes))


def test_ratings_count_the_slowest_node_as_one_bpu() -> None:
    platform = platform_of((2, 0.5), (1, 1.5))
    assert bpu_unit(platform) == 0.5
    assert bpu_ratings(platform) == (1.0, 1.0, 3.0)
    assert allocated_bpus(bpu_ratings(platform), (0, 2), (1, 1)) == 4.0


def test_the_scale_is_linear_without_a_serial_fraction_and_amdahl_with_one() -> None:
    assert moldable_scale(Moldable(power=4.0), 8.0) == 0.5
    assert moldable_scale(Moldable(power=4.0), 4.0) == 1.0
    # f = 0.2: 1/speedup(4) = 0.2 + 0.8/4 = 0.4; 1/speedup(8) = 0.2 + 0.1 = 0.3
    assert moldable_scale(Moldable(power=4.0, serial_fraction=0.2), 8.0) == pytest.approx(0.75)


def test_the_limit_follows_the_allocation_as_the_run_time_does() -> None:
    # the case: x = 4 BPUs on two speed-2 nodes (2 BPUs each), run time 100, limit 150
    engine = Engine(platform_of((2, 1.0), (2, 2.0)), "fcfs")
    engine.grid_policy = Named((2, 3))
    job = engine.submit(Request(tasks=2, time_limit=150, moldable=Moldable(power=4.0)), 100)
    engine.run()
    assert (job.state, job.end, job.expected_end) == (JobState.COMPLETED, 100.0, 150.0)


def test_a_moldable_job_given_more_power_runs_and_may_run_shorter() -> None:
    # 4 BPUs asked, 5 given (k0n0: 1, k1n0 and k1n1: 2 each): run 100 · 4/5 = 80, limit
    # 90 · 4/5 = 72 (a limit on the reference machine would have been 90 / 1 = 90: no kill)
    engine = Engine(platform_of((2, 1.0), (2, 2.0)), "fcfs")
    engine.grid_policy = Named((0, 2, 3))
    job = engine.submit(Request(tasks=2, time_limit=90, moldable=Moldable(power=4.0)), 100)
    engine.run()
    assert (job.state, job.end) == (JobState.TIMEOUT, 72.0)


def test_a_grid_start_below_the_asked_power_is_refused() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 2.0)), "fcfs")
    engine.grid_policy = Named((0, 2))  # 1 + 2 = 3 BPUs
    engine.submit(Request(tasks=2, time_limit=150, moldable=Moldable(power=4.0)), 100)
    with pytest.raises(PolicyError, match="moldable job 1 needs 4 BPUs, got 3"):
        engine.run()


def test_jobs_csv_and_metrics_count_the_cores_a_moldable_job_was_given() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 2.0)), "fcfs")
    engine.grid_policy = Named((0, 1, 2))  # 4 BPUs on 3 cores, asked with tasks=1
    recorder = Recorder(engine.platform)
    engine.observe(recorder)
    job = engine.submit(Request(tasks=1, time_limit=150, moldable=Moldable(power=4.0)), 100)
    engine.run()
    assert job.cores == 3
    out = io.StringIO()
    recorder.write_jobs_csv(out)
    assert out.getvalue().splitlines()[1].split(",")[5] == "3"
    summary = recorder.summary()
    assert summary.utilization == pytest.approx(3 * 100 / (4 * 100))


def test_the_home_site_is_a_hint_not_a_restriction() -> None:
    engine = Engine(platform_of((2, 1.0), (2, 2.0)), "fcfs")
    engine.grid_policy = Named((2, 3))  # runs away from its home k0
    job = engine.submit(
        Request(tasks=2, time_limit=150, moldable=Moldable(power=4.0), origin="k0"), 100
    )
    engine.run()
    assert (job.state, job.cluster) == (JobState.COMPLETED, 1)
