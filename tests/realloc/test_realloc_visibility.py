"""A reallocated job seen from outside: scontrol show job, jobs.csv, the event log."""

from __future__ import annotations

import io

from emulator.api import Decision, Route
from emulator.engine import Engine, Observer
from emulator.model.job import Request, Submission
from emulator.replay import replay
from emulator.session.events import describe
from emulator.slurm.formats.scontrol import scontrol_show_job
from solvers.brokers.platforms import sites_platform

PLATFORM = sites_platform([2, 2])
# as tests/realloc/test_realloc_policy.py's early_end: j4 moves from s1 to s0 at 100
JOBS = [(1000.0, 10.0), (1000.0, 1000.0), (100.0, 100.0), (1000.0, 1000.0)]


def submissions() -> list[Submission]:
    return [
        Submission(i + 1, 0.0, Request(tasks=2, time_limit=limit), runtime)
        for i, (limit, runtime) in enumerate(JOBS)
    ]


def test_scontrol_says_how_often_and_from_where() -> None:
    engine = Engine(PLATFORM, "realloc:period=100")
    for item in submissions():
        engine.submit(item.request, item.runtime, at=item.submit, job_id=item.job_id)
    engine.run()
    moved, stayed = engine.jobs[4], engine.jobs[3]
    assert "   Reallocations=1 ReallocatedFrom=s1\n" in scontrol_show_job(moved, PLATFORM, now=0)
    assert "Reallocations" not in scontrol_show_job(stayed, PLATFORM, now=0)


def test_jobs_csv_has_the_reallocation_columns_when_jobs_moved() -> None:
    out = io.StringIO()
    replay(submissions(), PLATFORM, "realloc:period=100").recorder.write_jobs_csv(out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "job_id,submit,start,end,cluster,cores,state,reallocations,moved_from"
    assert lines[4] == "4,0,110,1110,s0,2,COMPLETED,1,s1"
    assert lines[1].endswith(",COMPLETED,0,")
    reference = io.StringIO()
    replay(submissions(), PLATFORM, "mct+fcfs").recorder.write_jobs_csv(reference)
    assert reference.getvalue().splitlines()[0] == "job_id,submit,start,end,cluster,cores,state"


def test_the_event_log_gives_both_clusters_and_both_ects() -> None:
    engine = Engine(PLATFORM, "realloc:period=100")
    routes: list[Route] = []

    class Routes(Observer):
        def decided(self, policy: str, decision: Decision) -> None:
            if isinstance(decision, Route) and policy == "realloc":
                routes.append(decision)

    engine.observe(Routes())
    for item in submissions():
        engine.submit(item.request, item.runtime, at=item.submit, job_id=item.job_id)
    engine.run()
    assert describe(routes[-1], PLATFORM) == (
        "route to s0: realloc: moved from s1 (ECT 00:31:40) to s0 (ECT 00:16:50), algo 1, mct"
    )
