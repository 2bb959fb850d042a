"""The in-process client API: snapshots, stepping, scheduler switches, commands, pacing."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from emulator.api.registry import SpecError
from emulator.commandfile import run_text
from emulator.model.job import JobState, Request, Submission
from emulator.model.platform import Cluster, Node, Partition, Platform
from emulator.session import (
    QUEUE_HEADERS,
    STATES,
    Pacer,
    Session,
    demo_session,
    queue_cell,
    queue_rows,
    where,
)
from emulator.slurmctld import Controller


def small_platform() -> Platform:
    """One cluster ``c`` of four 2-core nodes, speeds 1, 1, 2, 2, link 10."""
    nodes = tuple(
        Node(id=i, name=f"c{i + 1}", cluster=0, local=i, cores=2, speed=(1.0, 1.0, 2.0, 2.0)[i])
        for i in range(4)
    )
    return Platform("small", (Cluster("c", 0, nodes, (Partition("p", (0, 1, 2, 3), True),), 10.0),))


def unit_platform(cores: int) -> Platform:
    return Platform.single_cluster(cores)


def test_snapshot_of_a_small_state() -> None:
    session = Session(small_platform(), "easy")
    assert session.command('sbatch -n 4 -t 10 --wrap "sleep 300"', user="alice").stdout == (
        "Submitted batch job 1\n"
    )
    session.command('sbatch -n 8 -t 5 -J wide --wrap "sleep 60"', user="bob")
    session.advance(1)
    snap = session.snapshot()

    assert snap.now == 1.0
    assert snap.platform == "small" and snap.scheduler == "easy"
    (cluster,) = snap.clusters
    assert cluster.node_names == ("c1", "c2", "c3", "c4")
    assert cluster.speeds.tolist() == [1.0, 1.0, 2.0, 2.0]
    assert cluster.cores.tolist() == [2, 2, 2, 2]
    # job 1 took the lowest-numbered nodes (runtime 300 s / slowest speed 1)
    assert cluster.job.tolist() == [1, 1, -1, -1]
    assert cluster.free.tolist() == [0, 0, 2, 2]

    jobs = snap.jobs
    assert jobs.id.tolist() == [1, 2]
    assert jobs.label == ("1", "2")
    assert jobs.name == ("wrap", "wide") and jobs.user == ("alice", "bob")
    assert [jobs.state_of(i) for i in range(2)] == [JobState.RUNNING, JobState.PENDING]
    assert jobs.nodes == ((0, 1), ())
    assert jobs.cores.tolist() == [4, 8]
    assert jobs.start[0] == 0.0 and math.isnan(jobs.start[1])
    assert jobs.expected_end[0] == 600.0
    # EASY reserves the head for when job 1's limit is up
    assert jobs.planned_start[1] == 600.0
    assert jobs.reason[1] == "Resources"
    assert jobs.where == ("", "(Resources)")
    assert [where(snap, row) for row in range(2)] == ["c[1-2]", "(Resources)"]
    # one segment: job 1 on nodes 0..1 from 0
    assert (snap.segments.row.tolist(), snap.segments.lo.tolist(), snap.segments.hi.tolist()) == (
        [0],
        [0],
        [1],
    )

    (link,) = snap.links
    assert (link.cluster, link.capacity, link.used) == ("c", 10.0, 0.0)
    assert link.times.tolist() == [0.0] and link.values.tolist() == [0.0]

    metrics = snap.metrics
    assert metrics.time[-1] == 1.0
    assert metrics.utilization[-1] == 0.5  # 4 of 8 cores
    assert metrics.queue_length[-1] == 1.0
    assert metrics.mean_wait[-1] == 0.0

    kinds = [(entry.kind, entry.job_id) for entry in snap.events]
    assert ("Start", 1) in kinds and ("Reserve", 2) in kinds
    reserve = next(entry for entry in snap.events if entry.kind == "Reserve")
    assert reserve.policy == "easy" and reserve.time == 0.0 and "t=600" in reserve.text

    # arrays are read-only and the same object comes back while nothing changes
    with pytest.raises(ValueError):
        cluster.free[0] = 1
    assert session.snapshot() is snap


def test_snapshot_follows_ends_and_metrics() -> None:
    session = Session(small_platform(), "easy")
    session.command('sbatch -n 4 -t 10 --wrap "sleep 300"')
    session.command('sbatch -n 8 -t 5 --wrap "sleep 60"')
    session.run_until(301)
    snap = session.snapshot()
    jobs = snap.jobs
    assert jobs.state_of(0) is JobState.COMPLETED and jobs.end[0] == 300.0
    # job 2 started at 300 on all four nodes
    assert jobs.state_of(1) is JobState.RUNNING and jobs.start[1] == 300.0
    assert snap.clusters[0].job.tolist() == [2, 2, 2, 2]
    assert snap.metrics.mean_wait[-1] == 150.0  # (0 + 300) / 2
    assert snap.metrics.mean_bounded_slowdown[-1] == 1.0  # job 1 did not wait
    session.run_until(math.inf)
    end = session.snapshot()
    assert end.idle and end.clusters[0].job.tolist() == [-1, -1, -1, -1]
    # job 2 waited 300 s and ran 30 s on speed-1 nodes (60 s / slowest speed 1... x2 nodes)
    wait, run = 300.0, float(end.jobs.end[1] - end.jobs.start[1])
    assert end.metrics.mean_bounded_slowdown[-1] == pytest.approx((1.0 + (wait + run) / run) / 2)


def test_metrics_are_sampled_every_interval_and_at_snapshots() -> None:
    """An instant at a time (as a daemon advances) samples no more often than sample_every;
    a snapshot's metrics still end at its time."""
    session = Session(small_platform(), "fcfs", sample_every=600.0)
    session.submit_workload(workload([50.0 * k for k in range(40)], runtime=100.0))  # every 50 s
    while session.now < 1900.0:
        session.run_until(session.next_time())  # one instant at a time
    times = session.snapshot().metrics.time.tolist()
    assert times[-1] == session.now
    assert all(later - earlier >= 600.0 for earlier, later in itertools.pairwise(times[1:-1]))
    session.step()
    assert session.snapshot().metrics.time[-1] == session.now


def workload(times: list[float], tasks: int = 1, runtime: float = 50.0) -> list[Submission]:
    return [
        Submission(i + 1, t, Request(tasks=tasks, time_limit=100, name=f"w{i + 1}"), runtime)
        for i, t in enumerate(times)
    ]


def test_step_advances_exactly_one_event() -> None:
    session = Session(unit_platform(1), "fcfs")
    session.submit_workload(workload([10, 20, 30]))  # 50 s each on the one core
    assert session.next_time() == 10

    def states() -> list[str]:
        snap = session.snapshot()
        return [STATES[int(code)].value for code in snap.jobs.state]

    # each step: one event, and the scheduling pass of its instant if that was the last event
    assert session.step()  # job 1 arrives (the workload submits it at 10) and starts
    assert session.now == 10 and states() == ["R"]
    assert session.step()  # job 2 arrives
    assert session.now == 20 and states() == ["R", "PD"]
    assert session.step()  # job 3 arrives
    assert session.now == 30 and states() == ["R", "PD", "PD"]
    assert session.step()  # job 1 ends, job 2 starts
    assert session.now == 60 and states() == ["CD", "R", "PD"]
    assert session.step() and session.step()
    assert session.now == 160 and states() == ["CD", "CD", "CD"]
    assert not session.step() and session.idle and session.now == 160


def test_sliced_runs_give_the_same_schedule() -> None:
    subs = workload([0, 0, 5, 7, 7, 30, 31, 90], tasks=2, runtime=40)
    whole = Session(unit_platform(5), "easy")
    whole.submit_workload(subs)
    whole.run_until(math.inf)
    sliced = Session(unit_platform(5), "easy")
    sliced.submit_workload(subs)
    while not sliced.idle:
        sliced.run_until(math.inf, max_events=1)
    a, b = whole.snapshot().jobs, sliced.snapshot().jobs
    assert a.id.tolist() == b.id.tolist()
    assert np.array_equal(a.start, b.start) and np.array_equal(a.end, b.end)


def backfill_case(switch_to: str | None) -> Session:
    """4 cores: job 1 (2 cores, 100 s) runs; job 2 (4 cores) waits; job 3 (1 core, 50 s) can
    backfill under EASY but not under FCFS."""
    session = Session(unit_platform(4), "easy")
    session.command('sbatch -n 2 -t 2 --wrap "sleep 100"')
    session.advance(1)
    if switch_to:
        session.set_scheduler(switch_to)
    session.command('sbatch -n 4 -t 2 --wrap "sleep 100"')
    session.command('sbatch -n 1 -t 1 --wrap "sleep 50"')
    session.advance(1)
    return session


def test_set_scheduler_changes_later_decisions() -> None:
    easy = backfill_case(None).snapshot().jobs
    assert easy.state_of(2) is JobState.RUNNING  # backfilled
    session = backfill_case("fcfs")
    assert session.scheduler == "fcfs"
    fcfs = session.snapshot().jobs
    assert fcfs.state_of(2) is JobState.PENDING  # FCFS never jumps the queue
    assert session.snapshot().events[-1].policy == "fcfs"
    with pytest.raises(SpecError):
        session.set_scheduler("no-such-policy")
    assert "easy" in Session.schedulers() and "fcfs" in Session.schedulers()


COMMANDS = """\
@ 00:00:10
sbatch -n 2 -t 5 -J first --wrap "sleep 60"
as alice
sbatch -n 4 -t 5 -J second --wrap "sleep 60"
sleep 5
squeue
sinfo
scontrol show job 2
as root
scancel 2
sleep 100
sacct -X
"""


def test_command_prints_exactly_what_the_cli_prints() -> None:
    reference = Controller(unit_platform(4), "easy")
    _, steps = run_text(COMMANDS, reference)
    expected = [step.result for step in steps]
    session = Session(unit_platform(4), "easy")
    results = [session.command(line) for line in COMMANDS.splitlines()]
    ran = [
        result
        for line, result in zip(COMMANDS.splitlines(), results, strict=True)
        if line.split()[0] not in ("@", "sleep", "as")
    ]
    assert ran == expected
    assert "second" in ran[2].stdout and "JobState=CANCELLED" not in ran[4].stdout


def test_queue_cells_equal_squeue() -> None:
    session = demo_session(count=60)
    for until in (0, 1, 900, 2400):
        session.run_until(until)
        if until == 900:
            session.command("scontrol hold 40")
        snap = session.snapshot()
        mine = [
            (
                snap.clusters[int(snap.jobs.queue_cluster[row])].name,
                *(queue_cell(snap, int(row), c) for c in range(9)),
            )
            for row in queue_rows(snap.jobs)
        ]
        table = session.queue_table()
        assert table.headers == ("CLUSTER", *QUEUE_HEADERS)
        assert mine == list(table.rows)
        assert len(mine) > 3


def test_finished_jobs_are_bounded() -> None:
    session = Session(unit_platform(4), "fcfs", keep_finished=5)
    session.submit_workload(workload([float(t) for t in range(0, 400, 5)], runtime=3))
    while not session.idle:
        session.advance(50)
        session.snapshot()
    snap = session.snapshot()
    assert len(snap.jobs) <= 2 * 5 + 64
    assert snap.segments.row.max() < len(snap.jobs)
    # the newest finished jobs are the ones kept
    assert snap.jobs.id.max() == 80


def test_pacer_maps_wall_time_to_simulated_time() -> None:
    wall = [100.0]
    pacer = Pacer(lambda: wall[0], speed=10.0)
    wall[0] += 2.0
    assert pacer.target() == 20.0
    pacer.pause(20.0)
    wall[0] += 5.0
    assert pacer.target() == 20.0
    pacer.resume(20.0)
    pacer.set_speed(math.inf, 20.0)
    assert pacer.target() == math.inf


def test_link_history_follows_the_engine_and_is_shared_while_unchanged() -> None:
    from emulator.model.platform_file import load_platform
    from resources import platform_path

    session = Session(load_platform(platform_path("oas-testbed")), "coalloc:alloc=firstfit")
    bsp = "-n 3 -t 60 --emulate-runtime=1:40 --bsp-sigma=0.5 --bsp-task-bw=0.6 --wrap bsp"
    for _ in range(2):  # two co-allocated jobs: each loads the links it spans (tests/slurmctld)
        assert session.command(f"sbatch {bsp}").exit_code == 0
    steps = 0
    for until in (0, 1, 60, 150, 400):
        session.run_until(until)
        snap = session.snapshot()
        assert snap.version == session.version
        for k, link in enumerate(snap.links):
            history = np.array(session.engine.network.history[k], np.float64).reshape(-1, 2)
            assert link.times.tolist() == history[:, 0].tolist()
            assert link.values.tolist() == history[:, 1].tolist()
            assert not link.times.flags.writeable
            steps = max(steps, len(history))
    assert steps >= 3  # loaded, then unloaded as the jobs ended
    session.command("squeue")  # a new snapshot, the links unchanged: their arrays are shared
    again = session.snapshot()
    assert again.version != snap.version
    pairs = zip(snap.links, again.links, strict=True)
    assert all(a.times is b.times and a.values is b.values for a, b in pairs)


def test_queue_order_across_partitions_equals_squeue() -> None:
    nodes = tuple(Node(id=i, name=f"n{i}", cluster=0, local=i, cores=1) for i in range(2))
    partitions = (Partition("zeta", (0, 1), True), Partition("alpha", (0, 1)))
    session = Session(Platform("two", (Cluster("c", 0, nodes, partitions, 10.0),)), "fcfs")
    for partition in ("zeta", "alpha", "zeta", "alpha", "zeta"):
        session.command(f'sbatch -p {partition} -n 1 -t 10 --wrap "sleep 60"')
    session.advance(1)
    snap = session.snapshot()
    mine = [tuple(queue_cell(snap, int(row), c) for c in range(9)) for row in queue_rows(snap.jobs)]
    assert mine == list(session.queue_table().rows)
    assert [row[1] for row in mine] == ["alpha", "alpha", "zeta", "zeta", "zeta"]
