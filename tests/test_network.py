"""The fluid network model against hand calculations (OAS paper eq. 1–7, models.md §3).

Platform: the OAS test bed, 3 clusters × 2 one-core nodes, speeds 1.0 / 0.75 / 0.5, 1 Gbit/s links.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.api import Decision, GridPolicy, GridView, Start
from emulator.engine import Engine
from emulator.model.job import Communication, Job, JobState, Request
from emulator.model.network import link_bandwidth, link_slowdown, time_cost
from emulator.model.platform_file import load_platform
from resources import platform_path


class Place(GridPolicy):
    """Starts each grid job on the nodes named for it."""

    name = "place-test"

    def __init__(self, nodes: dict[int, tuple[str, ...]]) -> None:
        self.nodes = nodes

    def schedule(self, view: GridView) -> Iterator[Decision]:
        by_name = view.platform.node_by_name
        for job in view.queue:
            ids = tuple(by_name[name].id for name in self.nodes[job.id])
            yield Start(job, nodes=ids, cores=(1,) * len(ids))


def run(
    placements: dict[int, tuple[str, ...]], jobs: list[tuple[float, Request, float]]
) -> tuple[Engine, list[Job]]:
    engine = Engine(load_platform(platform_path("oas-testbed")), "fcfs")
    engine.grid_policy = Place(placements)
    submitted = [engine.submit(request, runtime, at=at) for at, request, runtime in jobs]
    engine.run()
    return engine, submitted


def bsp(tasks: int, sigma: float, task_bw: float, limit: float = 10_000) -> Request:
    return Request(
        tasks=tasks,
        time_limit=limit,
        communication=Communication(base_time=100.0, sigma=sigma, task_bw=task_bw),
    )


def test_formulas() -> None:
    assert link_bandwidth(1, 2, 0.6) == pytest.approx(0.6)  # 1 · 0.6 · (2 − 1)/(2 − 1)
    assert link_bandwidth(2, 6, 1.0) == pytest.approx(2 * 1.0 * 4 / 5)
    assert link_bandwidth(3, 3, 1.0) == 0.0 and link_bandwidth(0, 3, 1.0) == 0.0
    assert link_bandwidth(1, 1, 9.0) == 0.0
    assert link_slowdown(1.0, 1.2) == pytest.approx(1.2) and link_slowdown(1.0, 0.8) == 1.0
    assert time_cost(0.5, 0.75, 1.2) == pytest.approx(0.5 / 0.75 + 0.5 * 1.2)


def test_two_jobs_that_saturate_a_link_end_when_the_formulas_say() -> None:
    # A (c0n0 + c1n0) from t = 0 and B (c0n1 + c2n0) from t = 10 each draw 0.6 on link 0: 1.2 > 1.
    engine, (a, b) = run(
        {1: ("c0n0", "c1n0"), 2: ("c0n1", "c2n0")},
        [(0.0, bsp(2, 0.5, 0.6), 100.0), (10.0, bsp(2, 0.5, 0.6), 100.0)],
    )
    sc = 1.2 / 1.0  # SC = 1 / SAT = ΣBW / MBW on link 0, for both (their other links are free)
    a_alone = 100 * (0.5 / 0.75 + 0.5)  # Te of A with SC = 1
    a_shared = 100 * (0.5 / 0.75 + 0.5 * sc)
    a_done_at_10 = 10 / a_alone
    a_end = 10 + (1 - a_done_at_10) * a_shared
    b_shared = 100 * (0.5 / 0.5 + 0.5 * sc)
    b_alone = 100 * (0.5 / 0.5 + 0.5)
    b_done_when_a_ends = (a_end - 10) / b_shared
    b_end = a_end + (1 - b_done_when_a_ends) * b_alone
    assert a.end == pytest.approx(a_end, rel=1e-12)
    assert b.end == pytest.approx(b_end, rel=1e-12)
    assert (a.state, b.state) == (JobState.COMPLETED, JobState.COMPLETED)
    # worst and time-averaged SC of each job
    assert (a.slowdown_max, b.slowdown_max) == (pytest.approx(sc), pytest.approx(sc))
    assert a.slowdown_mean == pytest.approx((10 * 1 + (a_end - 10) * sc) / a_end)
    assert b.slowdown_mean == pytest.approx(((a_end - 10) * sc + (b_end - a_end)) / (b_end - 10))
    # link 0's load over time: 0.6, then 1.2 while both run, then 0.6, then idle
    assert engine.network.history[0] == [
        (0.0, pytest.approx(0.6)),
        (10.0, pytest.approx(1.2)),
        (a_end, pytest.approx(0.6)),
        (b_end, 0.0),
    ]
    assert engine.network.used == [0.0, 0.0, 0.0]


def test_a_job_on_one_cluster_is_never_slowed_by_saturated_links() -> None:
    # A and B saturate links 0 and 1 (1.2 each); C runs on cluster 2 alone, with a huge PTBW.
    _, (a, b, c) = run(
        {1: ("c0n0", "c1n0"), 2: ("c0n1", "c1n1"), 3: ("c2n0", "c2n1")},
        [
            (0.0, bsp(2, 0.5, 0.6), 100.0),
            (0.0, bsp(2, 0.5, 0.6), 100.0),
            (0.0, bsp(2, 0.2, 50.0), 100.0),
        ],
    )
    assert a.end == b.end == pytest.approx(100 * (0.5 / 0.75 + 0.5 * 1.2))
    assert c.end == pytest.approx(100 * (0.2 / 0.5 + 0.8))  # SC = 1 whatever the links carry
    assert (c.slowdown_max, c.slowdown_mean) == (1.0, 1.0)


def test_a_slowed_job_is_killed_at_its_limit() -> None:
    # A's 90 s limit becomes 120 s on its 0.75-speed node. Alone it would take 116.7 s; B's
    # arrival at t = 10 stretches it to 125.8 s, so it is killed at 120.
    _, (a, b) = run(
        {1: ("c0n0", "c1n0"), 2: ("c0n1", "c2n0")},
        [(0.0, bsp(2, 0.5, 0.6, limit=90), 100.0), (10.0, bsp(2, 0.5, 0.6), 100.0)],
    )
    assert (a.state, a.end) == (JobState.TIMEOUT, pytest.approx(120.0))
    assert b.state is JobState.COMPLETED


def test_link_usage_summary() -> None:
    from emulator.metrics import link_usage

    history = [(0.0, 0.0), (0.0, 0.6), (10.0, 1.2), (40.0, 0.6), (50.0, 0.0)]
    usage = link_usage(history, 1.0, 0.0, 100.0)
    assert usage.mean_used == pytest.approx((0.6 * 10 + 1.2 * 30 + 0.6 * 10) / 100)
    assert (usage.peak_used, usage.saturated_fraction) == (1.2, pytest.approx(0.3))
    assert link_usage(history, 1.0, 20.0, 20.0).mean_used == 0.0
