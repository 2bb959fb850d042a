"""The ``oas`` policy's loose ends (issue 24 items 5-6): jobs it cannot place without saturating
a link are refused with a reason, and plans are carried out in continuous time by default
(``starts=slots`` keeps slot-boundary starts).

Platform: the OAS test bed (tests/oas/test_oas_policy.py): clusters c0 / c1 / c2 of two one-core
nodes, speeds 1.0 / 0.75 / 0.5, 1.0 Gbit/s links; bandwidths in Gbit/s. Eq. 4 puts n of a job's
τ tasks in one cluster at n·(τ - n)/(τ - 1)·PTBW on its link.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("pyomo.core")
pytest.importorskip("highspy")

from test_oas_policy import bsp, engine

from emulator.cli import main
from emulator.engine import Engine
from emulator.model.job import JobState
from emulator.model.platform_file import load_platform
from resources import platform_path


def saturating_workload(eng: Engine) -> list[int]:
    """Jobs 1 and 2 cannot run even on the idle platform without a link over 1.0: six tasks
    need all three clusters (2 per cluster: 2·4/5·1.0 = 1.6), three tasks at 2.0 split 2 + 1
    (2·1/2·2.0 = 2.0). Job 3 (two tasks at 2.0) fits one cluster, job 4 sends nothing."""
    jobs = [
        eng.submit(bsp(6, 50.0, 0.8, 1.0), 50.0),
        eng.submit(bsp(3, 40.0, 0.8, 2.0), 40.0),
        eng.submit(bsp(2, 30.0, 0.8, 2.0), 30.0),
        eng.submit(bsp(4, 20.0), 20.0),
    ]
    return [job.id for job in jobs]


def test_a_job_that_saturates_every_link_is_refused_with_a_reason() -> None:
    eng, _, policy = engine()
    ids = saturating_workload(eng)
    eng.run()
    refused, placed = [eng.jobs[i] for i in ids[:2]], [eng.jobs[i] for i in ids[2:]]
    for job in refused:
        assert job.state is JobState.FAILED
        assert job.explanation.startswith(
            f"oas cannot place job {job.id} without saturating a link, even on the idle platform"
        )
    assert "6 tasks at 1 per task; link capacities c0 1, c1 1, c2 1" in refused[0].explanation
    assert all(job.state is JobState.COMPLETED for job in placed)
    assert [p.job_ids for p in policy.plans] == [tuple(ids[2:])]


def test_coalloc_runs_the_same_workload_on_a_saturated_link() -> None:
    """The comparison the issue asks for: ``coalloc`` places jobs 1 and 2 as a last resort."""
    eng = Engine(load_platform(platform_path("oas-testbed")), "coalloc")
    ids = saturating_workload(eng)
    eng.run()
    assert all(eng.jobs[i].state is JobState.COMPLETED for i in ids)
    first = eng.jobs[ids[0]]
    assert first.slowdown_max > 1.0, "job 1 ran with its links over capacity"


@pytest.mark.parametrize("starts", ["continuous", "slots"])
def test_the_second_job_starts_when_the_first_ends_or_at_the_next_slot(starts: str) -> None:
    """Two 6-task jobs (σ = 1) at time 0: each needs every node, so one plan runs them one after
    the other, Te = Tb / 0.5 on the slowest node: 50 s and 20 s. η = 0.5 × mean Tb = 8.75 s, so
    the plan rounds them to 6 and 3 slots. Whichever goes first, in continuous time the second
    starts at the first's end and the batch ends at 70 s; at slot boundaries the second waits for
    the boundary after that end (52.5 s or 26.25 s) and the batch ends at 72.5 s or 76.25 s."""
    eng, _, policy = engine(f"oas:starts={starts}")
    jobs = [eng.submit(bsp(6, 25.0), 25.0), eng.submit(bsp(6, 10.0), 10.0)]
    eng.run()
    assert len(policy.plans) == 1 and policy.plans[0].slot_size == pytest.approx(8.75)
    first, second = sorted(jobs, key=lambda job: job.start)
    assert first.start == 0.0
    assert first.end - first.start == pytest.approx(2 * first.request.communication.base_time)
    if starts == "continuous":
        assert second.start == pytest.approx(first.end)
        assert second.end == pytest.approx(70.0)
    else:
        boundary = {50.0: 52.5, 20.0: 26.25}[round(first.end, 6)]
        assert second.start == pytest.approx(boundary)
        assert second.end == pytest.approx({52.5: 72.5, 26.25: 76.25}[boundary])


def test_a_replay_with_such_a_job_ends_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The case of issue 24: a CSV workload replayed under ``oas`` used to die in the heuristic
    that sets θ (ValueError). Job 1 is refused, job 2 runs."""
    workload = tmp_path / "w.csv"
    workload.write_text(
        "job_id,submit,tasks,base_time,sigma,task_bw,time_limit\n"
        "1,0,6,50,0.8,1.0,500\n"
        "2,0,2,30,0.8,2.0,300\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    args = ["replay", str(workload), "--platform", "oas-testbed", "-s", "oas", "-o", str(out)]
    assert main([*args, "-q"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    rows = {row["job_id"]: row for row in csv.DictReader((out / "jobs.csv").open())}
    assert (rows["1"]["state"], rows["2"]["state"]) == ("FAILED", "COMPLETED")
