"""Nodes out of service in the engine: drain, down, resume (scontrol update NodeName=… State=…)."""

from __future__ import annotations

import pytest

from emulator.api.policy import running_profile
from emulator.engine import Engine, NodeStateError
from emulator.model.job import JobState, Request
from emulator.model.node_state import NodeState, NodeStatus
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from resources import platform_path


def lab(scheduler: str = "easy") -> Engine:
    """node[01-04] × 4 cores (platform ids 0-3)."""
    return Engine(load_platform(platform_path("lab")), scheduler)


def test_a_drained_idle_node_takes_no_job_until_resumed() -> None:
    engine = lab()
    engine.drain([3], "disk swap", user="alice")
    assert engine.node_status[3] == NodeStatus(NodeState.DRAIN, "disk swap", "alice", 0.0)
    assert engine.clusters[0].free_cores == 12
    whole = engine.submit(Request(tasks=16, time_limit=600), 60)
    small = engine.submit(Request(tasks=12, time_limit=600), 60)
    engine.run(until=100)
    assert whole.state is JobState.PENDING  # 16 cores are no longer in service
    assert small.end == 60.0  # EASY backfilled it: the head's reservation was never
    engine.resume([3])
    engine.run(until=101)
    assert (whole.state, whole.start) == (JobState.RUNNING, 100.0)
    assert engine.node_status == {}


def test_a_draining_node_keeps_its_job_and_then_its_cores() -> None:
    engine = lab()
    busy = engine.submit(Request(tasks=4, time_limit=600), 50)
    engine.run(until=1)
    assert busy.nodes == (0,)
    engine.drain([0], "maintenance")
    assert engine.clusters[0].free_cores == 12
    engine.run(until=60)
    assert busy.state is JobState.COMPLETED  # draining: the running job finished normally
    assert engine.clusters[0].free_cores == 12  # and node01's cores stayed out of the pool
    later = engine.submit(Request(tasks=4, time_limit=600), 50)
    engine.run(until=61)
    assert later.nodes == (1,)
    engine.resume([0])
    assert engine.clusters[0].free_cores == 12  # node01 back, node02 busy
    assert list(engine.clusters[0].node_free) == [4, 0, 4, 4]


def test_a_node_set_down_kills_its_jobs_node_fail() -> None:
    engine = lab()
    spanning = engine.submit(Request(tasks=8, min_nodes=2, time_limit=600), 500)
    other = engine.submit(Request(tasks=4, time_limit=600), 500)
    engine.run(until=10)
    assert (spanning.nodes, other.nodes) == ((0, 1), (2,))
    killed = engine.down([1], "power supply")
    assert killed == [spanning]
    assert (spanning.state, spanning.end) == (JobState.NODE_FAIL, 10.0)
    assert "node01" not in spanning.explanation and "node02" in spanning.explanation
    assert other.state is JobState.RUNNING
    assert engine.clusters[0].free_cores == 8  # node01 back in the pool, node02 out
    engine.run()
    assert other.state is JobState.COMPLETED
    assert spanning.end == 10.0  # the stale end event changed nothing


def test_cores_given_back_on_a_withheld_multicore_node_stay_withheld() -> None:
    engine = lab("fcfs")
    a = engine.submit(Request(tasks=2, time_limit=600), 20)
    b = engine.submit(Request(tasks=1, time_limit=600), 40)
    engine.run(until=1)
    assert a.nodes == b.nodes == (0,)
    engine.drain([0], "going")
    engine.run(until=30)
    state = engine.clusters[0]
    assert (state.free_cores, state.withheld) == (12, {0: 3})
    engine.run(until=50)
    assert state.withheld == {0: 4}
    engine.resume([0])
    assert (state.free_cores, list(state.node_free)) == (16, [4, 4, 4, 4])


def test_planning_counts_only_cores_in_service() -> None:
    engine = lab()
    engine.submit(Request(tasks=4, time_limit=600), 500)
    engine.submit(Request(tasks=4, time_limit=600), 500)
    engine.run(until=1)
    engine.drain([0], "retire")
    profile = running_profile(engine.clusters[0])
    assert profile.capacity == 12  # node01 (busy) will not come back; node02 will
    assert profile.earliest(16, 60) == float("inf")
    assert profile.earliest(12, 60) == 600.0


def test_a_job_asking_for_a_drained_node_by_name_waits() -> None:
    engine = lab()
    engine.drain([1], "check")
    pinned = engine.submit(Request(tasks=1, include=("node02",), time_limit=60), 10)
    engine.run(until=5)
    assert pinned.state is JobState.PENDING
    engine.resume([1])
    engine.run(until=6)
    assert pinned.nodes == (1,)


@pytest.mark.parametrize("scheduler", ["easy", "cbf", "fcfs", "lsf"])
def test_every_local_policy_starts_the_head_when_nodes_come_back(scheduler: str) -> None:
    engine = Engine(Platform.single_cluster(4), scheduler)
    engine.down([0, 1], "rack")
    head = engine.submit(Request(tasks=4, time_limit=600), 60)
    engine.submit(Request(tasks=3, time_limit=600), 60, at=10)  # a pass that starts nothing
    engine.run(until=20)
    assert head.state is JobState.PENDING
    engine.resume([0, 1])
    engine.run(until=21)
    assert head.start == 20.0


def test_bad_node_state_changes_are_refused() -> None:
    engine = lab()
    with pytest.raises(NodeStateError, match="Invalid node state specified"):
        engine.resume([0])  # not drained
    with pytest.raises(NodeStateError, match="Invalid node name specified"):
        engine.drain([9], "no such node")
    engine.drain([0], "first")
    engine.down([0], "then down")
    assert engine.node_status[0].state is NodeState.DOWN
    assert engine.clusters[0].withheld == {0: 4}  # withheld once, not twice
