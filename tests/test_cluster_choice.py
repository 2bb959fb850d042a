"""Choosing a cluster at each arrival without a grid policy (issue 24 item 4): the shortcuts
give the schedule the plain rule gives, on two loaded clusters, under each local policy."""

from __future__ import annotations

import io
from collections.abc import Iterable

import pytest

from emulator.api import ClusterView, Estimate
from emulator.engine.queues import Queues
from emulator.model.job import Job
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from emulator.replay import replay
from solvers.local.fcfs import Fcfs
from workloads.synthetic import rigid_jobs

TWO = """\
name = "two"
[[clusters]]
name = "a"
[[clusters.nodes]]
names = "a[01-16]"
cores = 1
[[clusters]]
name = "b"
[[clusters.nodes]]
names = "b[01-12]"
cores = 1
"""


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Platform:
    path = tmp_path_factory.mktemp("platform") / "two.toml"
    path.write_text(TWO)
    return load_platform(path)


def table(platform: Platform, policy: str) -> str:
    out = io.StringIO()
    jobs = rigid_jobs(1500, 28, load=1.05, max_size=12, seed=5)
    replay(jobs, platform, policy).recorder.write_jobs_csv(out)
    return out.getvalue()


def plain_rule(self: Queues, job: Job, allowed: list[int]) -> int:
    """Every allowed cluster's estimate, the earliest start, ties to the first."""
    return min(allowed, key=lambda k: (self.grid.estimate(job, k).start, k))


@pytest.mark.parametrize("policy", ["fcfs", "easy", "cbf", "lsf"])
def test_shortcuts_choose_as_the_plain_rule(
    two: Platform, policy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = table(two, policy)
    monkeypatch.setattr(Queues, "_earliest_cluster", plain_rule)
    assert chosen == table(two, policy)
    assert len(set(line.split(",")[4] for line in chosen.splitlines()[1:])) == 2  # both used


def test_fcfs_kept_plan_answers_as_a_new_one(
    two: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = table(two, "fcfs")
    original = Fcfs.estimates

    def always_new(self: Fcfs, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        self._plan = None
        return original(self, jobs, view)

    monkeypatch.setattr(Fcfs, "estimates", always_new)
    assert kept == table(two, "fcfs")
