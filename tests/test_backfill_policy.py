"""The ``backfill`` policy (Slurm 22.05's main scheduler plus backfill cycles) on hand-checked
schedules of the lab cluster (4 nodes of 4 cores); the first cycle at 23.6 s, as on the lab's
real Slurm (its controller started 7 s before the session's first command)."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pytest

from emulator.engine import Engine
from emulator.model.job import Job, JobState, Reason, Request
from emulator.model.platform_file import load_platform
from solvers.local.backfill import BACKFILLED, BF_INTERVAL, BF_POLL, SlurmBackfill

LAB = Path(__file__).resolve().parents[1] / "resources/platforms/lab.toml"


def lab(scheduler: str = "backfill") -> Engine:
    return Engine(load_platform(LAB), scheduler)


def whole_nodes(count: int, limit: float) -> Request:
    return Request(tasks=4 * count, min_nodes=count, tasks_per_node=4, time_limit=limit)


def names(engine: Engine, job: Job) -> list[str]:
    return [engine.platform.nodes[n].name for n in job.nodes]


def test_a_job_waits_for_the_cycle_then_starts_beside_the_reservation() -> None:
    engine = lab()
    a = engine.submit(whole_nodes(3, 100), 100, at=0)  # node[01-03] to 100
    b = engine.submit(whole_nodes(2, 100), 100, at=0)  # head: node[01-02] reserved at 100
    c = engine.submit(Request(tasks=4, time_limit=50), 50, at=0)  # node04 is nobody's
    d = engine.submit(Request(tasks=1, time_limit=1000), 1000, at=0)
    engine.run(until=1)
    assert (b.reason, c.reason, d.reason) == (Reason.RESOURCES, Reason.PRIORITY, Reason.PRIORITY)
    engine.run(until=24)
    # the cycle at 23.6: B is promised node[01-02] at 100; C starts at once on node04; D, 1 core
    # for 1000 s, is promised node04 at 73.6, when C's limit ends
    assert c.start == 23.6 and names(engine, c) == ["node04"]
    assert b.planned_start == 100 and [engine.platform.nodes[n].name for n in b.planned_nodes] == [
        "node01",
        "node02",
    ]
    assert d.planned_start == 73.6
    engine.run()
    # the cycle at 53.6 (C's start was a change) starts nothing; C ends at 73.6: the main
    # scheduler stops at B (Resources); the cycle 30 s after the last, at 83.6, starts D
    assert [a.start, b.start, c.start, d.start] == [0, 100, 23.6, 83.6]
    assert names(engine, b) == ["node01", "node02"] and names(engine, d) == ["node04"]


def test_easy_starts_the_same_jobs_at_once() -> None:
    """The difference the issue saw: EASY has no cycle and counts cores."""
    engine = lab("easy")
    jobs = [
        engine.submit(whole_nodes(3, 100), 100, at=0),
        engine.submit(whole_nodes(2, 100), 100, at=0),
        engine.submit(Request(tasks=4, time_limit=50), 50, at=0),
        engine.submit(Request(tasks=1, time_limit=1000), 1000, at=0),
    ]
    engine.run()
    assert [job.start for job in jobs] == [0, 100, 0, 50]


def test_a_reservation_holds_whole_nodes() -> None:
    engine = lab()
    engine.submit(Request(tasks=4, include=("node01",), time_limit=100), 100, at=0)
    engine.submit(Request(tasks=3, include=("node02",), time_limit=100), 100, at=0)
    engine.submit(Request(tasks=8, min_nodes=2, exclusive=True, time_limit=1000), 1000, at=0)
    head = engine.submit(Request(tasks=4, time_limit=100), 100, at=0)  # node01 at 100
    small = engine.submit(Request(tasks=1, time_limit=1000), 1000, at=0)
    engine.run(until=24)
    assert head.planned_start == 100
    # node02's free core is beside nobody's promise: the 1-core job backfills there
    assert small.start == 23.6 and names(engine, small) == ["node02"]
    engine.run(until=99)
    late = engine.submit(Request(tasks=1, time_limit=50), 50, at=99)
    engine.run(until=110)
    # at 100 node01 and node02 free up: the head starts at once (main), the late job too
    assert head.start == 100 and late.start == 100
    assert names(engine, head) == ["node01"] and names(engine, late) == ["node02"]


@pytest.mark.parametrize("seed", range(4))
def test_backfill_starts_fall_on_cycles_and_cores_are_never_oversubscribed(seed: int) -> None:
    """The main scheduler may start a job of higher priority earlier than planned, on nodes
    promised to a later one (Slurm's too), so promises are not guarantees; but a job the
    cycle started started at a cycle's time, and no node is ever given more than its cores."""
    rng = random.Random(seed)
    engine = lab()
    jobs = []
    for i in range(60):
        limit = rng.choice([30, 60, 120, 300])
        request = Request(tasks=rng.randint(1, 12), time_limit=limit)
        jobs.append(engine.submit(request, limit, at=i * 7.0))
    engine.run()
    assert all(job.state is JobState.COMPLETED for job in jobs)
    backfilled = [job for job in jobs if job.explanation == BACKFILLED]
    assert backfilled, "the workload must make the cycle start some jobs"
    first = SlurmBackfill().first_cycle()
    looks = [(job.start - first) / BF_POLL for job in backfilled]
    assert all(abs(look - round(look)) < 1e-6 for look in looks)  # on backfill_agent's looks
    cycles = sorted({job.start for job in backfilled})
    assert all(b - a >= BF_INTERVAL for a, b in itertools.pairwise(cycles))
    events = sorted(
        [(j.start, 1, n, c) for j in jobs for n, c in zip(j.nodes, j.node_cores, strict=True)]
        + [(j.end, 0, n, -c) for j in jobs for n, c in zip(j.nodes, j.node_cores, strict=True)]
    )
    busy: dict[int, int] = {}
    for _, _, node, delta in events:  # ends before starts at the same time
        busy[node] = busy.get(node, 0) + delta
        assert busy[node] <= 4


def test_a_quiet_cycle_waits_for_the_first_look_after_a_change() -> None:
    """With no job waiting and nothing changed, backfill_agent looks once a second: the cycle
    runs at the first look after a change, not on a 30 s grid (the lab's sdiag: a cycle at
    05:20:00.7, none while nothing waited, one within a second of the submissions at 72 s)."""
    engine = lab()
    engine.submit(whole_nodes(4, 1000), 1000, at=0)  # every node to 1000, nothing waits
    engine.run(until=100)  # the first cycle at 23.6; no more: nothing waits or changes
    late = engine.submit(Request(tasks=1, time_limit=10), 10, at=100.2)
    engine.run(until=100.5)
    assert late.reason is Reason.RESOURCES and math.isnan(late.planned_start)
    engine.run(until=101)  # the look at 100.6 runs a cycle: the job is planned at 1000
    assert late.planned_start == 1000
    engine.run(until=130)
    assert late.planned_start == 1000


def test_time_min_lets_the_cycle_start_a_job_under_a_shorter_limit() -> None:
    """Slurm's backfill with ``--time-min`` (backfill.c ``_reset_job_time_limit``): the job is
    planned with its shortest limit; started now, its limit ends at the first promise on its
    nodes (whole minutes), never below ``time_min``."""
    engine = lab()
    engine.submit(whole_nodes(3, 120), 100, at=0)  # node[01-03] to 120 at the latest
    head = engine.submit(whole_nodes(4, 100), 100, at=0)  # every node promised at 120
    short = engine.submit(Request(tasks=1, time_limit=600, time_min=60), 300, at=0)
    full = engine.submit(Request(tasks=1, time_limit=600), 300, at=0)
    engine.run(until=24)
    # the cycle at 23.6: 60 s fit on node04 before 120; the limit is cut to 1 minute
    # (120 - 23.6 = 96.4 s, floored to whole minutes); the job without --time-min waits
    assert short.start == 23.6 and names(engine, short) == ["node04"]
    assert short.time_limit == short.request.time_limit == 60
    assert full.state is JobState.PENDING
    engine.run()
    assert short.state is JobState.TIMEOUT and short.end == 83.6
    assert head.start == 100 and full.start > head.start


def test_sbatch_time_min_reaches_the_request_and_the_shown_limit() -> None:
    from emulator.slurmctld import Controller

    ctl = Controller(load_platform(LAB), "backfill")
    ctl.execute(["sbatch", "-N", "3", "--exclusive", "-t", "2", "--wrap", "sleep 100"])
    ctl.execute(["sbatch", "-N", "4", "--exclusive", "-t", "2", "--wrap", "sleep 100"])
    ctl.execute(["sbatch", "-t", "10", "--time-min=1", "--wrap", "sleep 300"])
    ctl.advance(30)
    shown = ctl.execute(["scontrol", "show", "job", "3"]).stdout
    assert "JobState=RUNNING" in shown and "TimeLimit=00:01:00 TimeMin=00:01:00" in shown


def test_an_allocation_right_after_an_end_avoids_the_completing_node() -> None:
    """Real Slurm 22.05.8 (differential scenario operator): salloc right after srun returned
    got node02, node01 still completing srun's job; a job the end itself lets start (a pass
    after the epilog) may take the freed node."""
    from emulator.slurmctld import Controller

    ctl = Controller(load_platform(LAB), "backfill")
    assert ctl.execute(["srun", "-n", "1", "true"]).exit_code == 0
    assert ctl.execute(["salloc", "-n", "2", "true"]).exit_code == 0
    nodes = ctl.execute(["squeue", "-h", "-t", "all", "-o", "%i %N"]).stdout
    assert nodes == "1 node01\n2 node02\n"
    engine = lab()
    first = engine.submit(Request(tasks=4, time_limit=100), 50, at=0)  # node01 to 50
    engine.submit(whole_nodes(3, 1000), 1000, at=0)  # node[02-04]
    waiting = engine.submit(Request(tasks=4, time_limit=100), 10, at=0)
    engine.run(until=51)
    assert names(engine, first) == ["node01"]
    assert waiting.start == 50 and names(engine, waiting) == ["node01"]
