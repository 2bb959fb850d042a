"""A reallocated job seen from outside: scontrol show job, jobs.csv, the event log."""

from __future__ import annotations

import io

from emulator.api import Decision, Route
from emulator.commandfile import CommandFile
from emulator.engine import Engine, Observer
from emulator.model.job import Request, Submission
from emulator.model.platform_file import load_platform
from emulator.replay import replay
from emulator.session.events import describe
from emulator.slurm.formats.jobs import JobInfo
from emulator.slurm.formats.scontrol import scontrol_show_job
from emulator.slurmctld.controller import Controller
from resources import platform_path
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
    moved = engine.jobs[4]
    info = JobInfo(reallocated_from=("s1", "s0"))
    assert "   Reallocations=2 ReallocatedFrom=s1,s0\n" in scontrol_show_job(
        moved, PLATFORM, now=0, info=info
    )
    assert "Reallocations" not in scontrol_show_job(moved, PLATFORM, now=0)


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


SESSION = """cd /home/grid
@ 10:00:00
sbatch -M north -N 8 --ntasks-per-node=4 -t 1:00:00 -J fill-north --wrap "sleep 3600"
sbatch -M east -N 6 --ntasks-per-node=4 -t 2:00:00 -J short-east --wrap "sleep 60"
sbatch -M south -N 4 --ntasks-per-node=4 -t 1:00:00 -J fill-south --wrap "sleep 3600"
sbatch -n 16 -t 30 -J mover --wrap "sleep 600"
@ 10:10:01
scontrol show job 4
sacct -M all -X --format=JobID,JobName,Cluster
"""


def test_a_slurm_session_moves_the_job_live_and_says_so() -> None:
    """The mover waits on north (ECT 1:20:00) while short-east ends at 10:00:40; the first
    reallocation, ten minutes after the first submission, moves it to east (ECT 0:20:00)."""
    platform = load_platform(platform_path("teaching-3sites"))
    transcript = CommandFile(Controller(platform, "realloc:period=600")).run(SESSION)
    assert "   Reallocations=1 ReallocatedFrom=north\n" in transcript
    assert (
        "Explanation=realloc: moved from north (ECT 01:20:00) to east (ECT 00:20:00), algo 1, mct"
        in transcript
    )
    assert any(line.split() == ["4", "mover", "east"] for line in transcript.splitlines())
