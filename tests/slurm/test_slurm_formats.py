"""Formatters against the real Slurm 22.05.8 captures (byte for byte)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from emulator.model.job import (
    ArrayTask,
    Dependencies,
    Dependency,
    DependencyKind,
    Job,
    JobState,
    Reason,
    Request,
)
from emulator.model.platform_file import load_platform
from emulator.slurm.formats import (
    JobInfo,
    LinkInfo,
    NodeInfo,
    sacct,
    scontrol_show_config,
    scontrol_show_job,
    scontrol_show_link,
    scontrol_show_node,
    scontrol_show_partition,
    sinfo,
    squeue,
)

ROOT = Path(__file__).resolve().parents[2]
RAW = Path("/work/shared/reference/slurm-samples/raw")
PLATFORM = load_platform(ROOT / "resources/platforms/lab.toml")
ORIGIN = datetime(2026, 11, 22, tzinfo=UTC).timestamp()
WORK = "/var/spool/lab/jobs"
TOP = 4294901760


def t(hms: str) -> float:
    hours, minutes, seconds = (int(x) for x in hms.split(":"))
    return float(hours * 3600 + minutes * 60 + seconds)


def sample(name: str) -> str:
    path = RAW / f"{name}.stdout"
    if not path.exists():
        pytest.skip("samples not available")
    return path.read_text()


def req(**kwargs: object) -> Request:
    base: dict[str, object] = {"name": "wrap", "user": "root", "account": "root"}
    base["time_limit"] = 3600.0
    base.update(kwargs)
    return Request(**base)  # type: ignore[arg-type]


def running(job_id: int, submit: str, request: Request, nodes: tuple[int, ...], cores: int) -> Job:
    return Job(
        job_id,
        t(submit),
        request,
        state=JobState.RUNNING,
        start=t("1:36:03"),
        nodes=nodes,
        node_cores=(cores,) * len(nodes),
    )


def pending(job_id: int, submit: str, request: Request, reason: Reason, plan: str = "") -> Job:
    job = Job(job_id, t(submit), request, reason=reason)
    if plan:
        job.planned_start = t(plan)
    return job


def phase1() -> tuple[list[Job], dict[int, JobInfo]]:
    """The sample scenario at phase 1 (01:36:55), README "Scenario"."""
    done = Job(1, t("1:35:56"), req(), state=JobState.COMPLETED, nodes=(0,), node_cores=(1,))
    done.start = done.end = t("1:35:57")
    array = [
        running(7, "1:36:01", req(array=ArrayTask(4, 0, 2)), (3,), 1),
        running(8, "1:36:01", req(array=ArrayTask(4, 1, 2)), (3,), 1),
    ]
    array += [
        pending(4, "1:36:01", req(array=ArrayTask(4, i, 2)), Reason.ARRAY_TASK_LIMIT)
        for i in range(2, 10)
    ]
    jobs = [
        done,
        running(2, "1:36:00", req(tasks=8, min_nodes=2, tasks_per_node=4), (0, 1), 4),
        running(3, "1:36:01", req(tasks=4), (2,), 4),
        *array,
        running(5, "1:36:01", req(name="train_resnet50_imagenet_lr0.01"), (3,), 1),
        running(6, "1:36:01", req(partition="short"), (3,), 1),
        pending(9, "1:36:03", req(tasks=4), Reason.RESOURCES, "2:36:03"),
        pending(10, "1:36:03", req(tasks=2), Reason.PRIORITY, "2:36:03"),
        pending(11, "1:36:04", req(held=True), Reason.HELD_USER),
        pending(
            12,
            "1:36:04",
            req(dependencies=Dependencies((Dependency(DependencyKind.AFTER_OK, 2),))),
            Reason.DEPENDENCY,
        ),
        pending(13, "1:36:04", req(begin=t("2:36:04")), Reason.BEGIN_TIME, "2:36:04"),
    ]
    priorities = {1: 1, 2: 2, 3: 3, 4: 4, 7: 4, 8: 4, 5: 5, 6: 6, 9: 7, 10: 8, 12: 9, 13: 10}
    infos = {
        job_id: JobInfo(priority=TOP - rank, work_dir=WORK, sid=11586)
        for job_id, rank in priorities.items()
    }
    infos[11] = JobInfo(priority=0, work_dir=WORK, sid=11586)
    infos[9] = JobInfo(
        priority=TOP - 7,
        work_dir=WORK,
        sid=11586,
        sched_nodes="node01",
        scheduler="Backfill:*",
        last_sched_eval=t("1:36:49"),
    )
    infos[10] = JobInfo(priority=TOP - 8, work_dir=WORK, sid=11586, sched_nodes="node02")
    return jobs, infos


def by_id(jobs: list[Job], job_id: int) -> Job:
    return next(job for job in jobs if job.id == job_id)


@pytest.mark.parametrize(
    ("name", "now", "kwargs"),
    [
        ("squeue", "1:36:55", {}),
        ("squeue--l", "1:36:55", {"long": True}),
        ("squeue---start", "1:36:55", {"start": True}),
        ("squeue--r", "1:36:56", {"expand_arrays": True}),
        ("squeue--h--o_i_t_r", "1:36:56", {"header": False, "fmt": "%i %t %r"}),
        ("squeue--t-all", "1:36:56", {"states": "all"}),
        ("squeue--t-PD", "1:36:56", {"states": "PD"}),
        (
            "squeue--o_csv",
            "1:36:56",
            {"fmt": '"%i","%j","%t","%M","%L","%D","%C","%m","%b","%R"'},
        ),
        ("squeue--o_dependency", "1:36:56", {"fmt": "%.10i %.10F %.6K %.2t %.20r %E"}),
    ],
)
def test_squeue_samples(name: str, now: str, kwargs: dict[str, object]) -> None:
    jobs, infos = phase1()
    text = squeue(jobs, PLATFORM, now=t(now), origin=ORIGIN, infos=infos, **kwargs)  # type: ignore[arg-type]
    assert text == sample(name)


@pytest.mark.parametrize(
    ("fmt", "header", "first"),
    [
        ("{%i} 100%% %5t|", "{JOBID} 100% ST   |", "{4_[2-9%2]} 100% PD   |"),  # literals
        ("plain", "plain", "plain"),  # no field: the text on every line
        ("%.3i%0j%z", "JOBNAMEz", "4_[wrap"),  # cut, width 0, an unknown code (empty)
        ("%.3l|%2M|%.4L", "TIM|TI|TIME", "1:00:00|0:00|1:00:00"),  # times are never cut
        ("%.12S %7a", "  START_TIME ACCOUNT", "         N/A root   "),
        ("%.12S %-7a", "  START_TIME %-7a", "         N/A %-7a"),  # not a field: kept
        ("%.3i 5%", "JOB 5%", "4_[ 5%"),  # a lone % at the end: text
    ],
)
def test_squeue_format_layout(fmt: str, header: str, first: str) -> None:
    jobs, infos = phase1()
    lines = squeue(jobs, PLATFORM, now=t("1:36:55"), origin=ORIGIN, infos=infos, fmt=fmt)
    assert lines.splitlines()[:2] == [header, first]
    assert len(lines.splitlines()) == 1 + 12  # the array's 8 pending tasks on one line


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("sinfo", "default"),
        ("sinfo--s", "summary"),
        ("sinfo--R", "reasons"),
        ("sinfo--N--l", "nodes-long"),
        ("sinfo--l", "long"),
    ],
)
def test_sinfo_samples(name: str, mode: str) -> None:
    jobs, _ = phase1()
    text = sinfo(PLATFORM, jobs, mode=mode, now=t("1:36:58"), origin=ORIGIN)
    assert text == sample(name)


def test_sinfo_nodes_and_filters() -> None:
    jobs, _ = phase1()
    text = sinfo(PLATFORM, jobs, mode="nodes")
    # 22.05 listed `short` before `batch*` while nodes were allocated (README); we keep
    # configuration order, so compare as sets of lines.
    assert sorted(text.splitlines()) == sorted(sample("sinfo--N").splitlines())
    assert sinfo(PLATFORM, jobs, partitions=["short"]) == sample("sinfo--p-short")
    assert sinfo(PLATFORM, jobs, partitions=["nosuch"]) == sample("extra-sinfo--p-nosuch")
    assert sinfo(PLATFORM) == sample("setup-sinfo-idle")


@pytest.mark.parametrize(
    ("name", "job_id", "now", "task"),
    [
        ("scontrol-show-job-running", 2, "1:36:58", None),
        ("scontrol-show-job-pending", 9, "1:36:59", None),
        ("scontrol-show-job-held", 11, "1:36:59", None),
        ("scontrol-show-job-dependency", 12, "1:36:59", None),
        ("scontrol-show-job-begin", 13, "1:36:59", None),
        ("scontrol-show-job-completed", 1, "1:36:59", None),
        ("scontrol-show-job-array-task", 7, "1:36:59", None),
        ("scontrol-show-job-array-pending", 4, "1:36:59", 5),
    ],
)
def test_scontrol_show_job(name: str, job_id: int, now: str, task: int | None) -> None:
    jobs, infos = phase1()
    job = by_id(jobs, job_id)
    if task is not None:
        job = next(j for j in jobs if j.request.array and j.request.array.task_id == task)
    info = infos[job_id]
    if job_id in (4, 7):  # throttled tasks: eligible when they start / never yet
        info = JobInfo(
            priority=info.priority,
            work_dir=WORK,
            sid=11586,
            eligible=t("1:36:03") if job_id == 7 else None,
            accrue=t("1:36:03"),
            last_sched_eval=t("1:36:03"),
        )
    if job_id in (11, 12):
        info = JobInfo(priority=info.priority, work_dir=WORK, sid=11586, accrue=None)
    text = scontrol_show_job(job, PLATFORM, now=t(now), origin=ORIGIN, info=info, task_id=task)
    assert text == sample(name)


def test_scontrol_show_partition() -> None:
    assert scontrol_show_partition(PLATFORM) == sample("scontrol-show-partition")
    assert scontrol_show_partition(PLATFORM, ["short"]) == sample(
        "extra-scontrol-show-partition-short"
    )
    assert scontrol_show_partition(PLATFORM, ["nosuch"]) == sample(
        "extra-scontrol-show-partition-nosuch"
    )


def test_scontrol_show_node() -> None:
    jobs, _ = phase1()
    info = NodeInfo(
        os="Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0",
        cpu_load=0.09,
        free_mem=23637,
        boot_time=t("0:59:38"),
        slurmd_start_time=t("1:35:50"),
        last_busy_time=t("1:35:57"),
        port=17001,
    )
    text = scontrol_show_node(
        PLATFORM, jobs, names=["node01"], origin=ORIGIN, infos={"node01": info}
    )
    assert text == sample("scontrol-show-node-node01")
    assert scontrol_show_node(PLATFORM, names=["nosuch"]) == sample(
        "extra-scontrol-show-node-nosuch"
    )


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("sacct", {}),
        ("sacct--X", {"allocations": True}),
        (
            "sacct--P--format",
            {"parsable": "P", "fields": ["JobID", "JobName", "State", "ExitCode", "Elapsed"]},
        ),
    ],
)
def test_sacct_samples(name: str, kwargs: dict[str, object]) -> None:
    jobs, infos = phase1()
    text = sacct(jobs, PLATFORM, now=t("1:37:01"), origin=ORIGIN, infos=infos, **kwargs)  # type: ignore[arg-type]
    assert text == sample(name)


def test_scontrol_show_config_layout() -> None:
    text = scontrol_show_config(
        [("ClusterName", "lab"), ("AccountingStorageBackupHost", "(null)")],
        now=t("01:39:05"),
        origin=ORIGIN,
        host="vm",
    )
    assert text == (  # the sample's lines (extra-scontrol-show-config.txt)
        "Configuration data as of 2026-11-22T01:39:05\n"
        "ClusterName             = lab\n"
        "AccountingStorageBackupHost = (null)\n"
        "\n"
        "Slurmctld(primary) at vm is UP\n"
    )


def test_scontrol_show_link() -> None:
    busy = LinkInfo("east", 10.0, 12.5, ((3, 2.5), (7, 10.0)), 12.5, 6.25, 90.0)
    idle = LinkInfo("west", math.inf, 0.0, (), 0.0, 0.0, 0.0)
    assert scontrol_show_link([busy, idle], "MB/s") == (
        "LinkName=east Cluster=east\n"
        "   Capacity=10MB/s Used=12.5MB/s Load=125.0% Saturated=YES Slowdown=1.25\n"
        "   ActiveFlows=2 JobIds=3,7 JobBandwidth=3:2.5MB/s,7:10MB/s\n"
        "   PeakUsed=12.5MB/s MeanUsed=6.25MB/s SaturatedTime=00:01:30\n"
        "\n"
        "LinkName=west Cluster=west\n"
        "   Capacity=UNLIMITED Used=0MB/s Load=0.0% Saturated=NO Slowdown=1\n"
        "   ActiveFlows=0 JobIds=(null) JobBandwidth=(null)\n"
        "   PeakUsed=0MB/s MeanUsed=0MB/s SaturatedTime=00:00:00\n"
        "\n"
    )
    exactly_full = LinkInfo("x", 1.0, 1.0, ((1, 1.0),), 1.0, 1.0, 0.0)
    assert "Load=100.0% Saturated=NO Slowdown=1\n" in scontrol_show_link([exactly_full], "G")
