"""``scontrol show link``: the load of each inter-cluster link, checked against hand calculations
(OAS paper eq. 4–7, models.md §3) for two co-allocated jobs submitted with sbatch.

Platform: the OAS test bed, 3 clusters × 2 one-core nodes, speeds 1.0 / 0.75 / 0.5, 1 Gbit/s
links. Under ``coalloc:alloc=firstfit`` two 3-task jobs submitted together take c0n[0-1] + c1n0
(job 1) and c1n1 + c2n[0-1] (job 2). Each task draws 0.6 Gbit/s; by eq. 4 a job with t of its
τ = 3 tasks on a cluster draws t · 0.6 · (3 − t) / 2 there: 0.6 on every link it spans. So link
c1 carries 1.2 > 1 (saturated, SC = 1.2) while both run, and c0 and c2 carry 0.6 each.
"""

from __future__ import annotations

import pytest

from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller
from resources import platform_path

BSP = ["-n", "3", "-t", "60", "--emulate-runtime=1:40", "--bsp-sigma=0.5", "--bsp-task-bw=0.6"]
A_END = 100 * (0.5 / 0.75 + 0.5 * 1.2)  # Te of job 1: slowest node 0.75, SC = 1.2 throughout
B_AT_A_END = A_END / (100 * (0.5 / 0.5 + 0.5 * 1.2))  # job 2's share of work done by then
B_END = A_END + (1 - B_AT_A_END) * 100 * (0.5 / 0.5 + 0.5)  # the rest alone: SC = 1


def two_coallocated_jobs() -> Controller:
    ctl = Controller(load_platform(platform_path("oas-testbed")), "coalloc:alloc=firstfit")
    for _ in range(2):
        assert ctl.execute(["sbatch", *BSP, "--wrap", "bsp"]).stdout.startswith("Submitted")
    ctl.advance_to(60)
    return ctl


def test_two_jobs_on_a_saturated_link() -> None:
    ctl = two_coallocated_jobs()
    names = ctl.platform.nodes
    assert [names[n].name for n in ctl.engine.jobs[1].nodes] == ["c0n0", "c0n1", "c1n0"]
    assert [names[n].name for n in ctl.engine.jobs[2].nodes] == ["c1n1", "c2n0", "c2n1"]
    result = ctl.execute(["scontrol", "show", "link"])
    assert (result.stderr, result.exit_code) == ("", 0)
    assert result.stdout == (
        "LinkName=c0 Cluster=c0\n"
        "   Capacity=1Gbit/s Used=0.6Gbit/s Load=60.0% Saturated=NO Slowdown=1\n"
        "   ActiveFlows=1 JobIds=1 JobBandwidth=1:0.6Gbit/s\n"
        "   PeakUsed=0.6Gbit/s MeanUsed=0.6Gbit/s SaturatedTime=00:00:00\n"
        "\n"
        "LinkName=c1 Cluster=c1\n"
        "   Capacity=1Gbit/s Used=1.2Gbit/s Load=120.0% Saturated=YES Slowdown=1.2\n"
        "   ActiveFlows=2 JobIds=1,2 JobBandwidth=1:0.6Gbit/s,2:0.6Gbit/s\n"
        "   PeakUsed=1.2Gbit/s MeanUsed=1.2Gbit/s SaturatedTime=00:01:00\n"
        "\n"
        "LinkName=c2 Cluster=c2\n"
        "   Capacity=1Gbit/s Used=0.6Gbit/s Load=60.0% Saturated=NO Slowdown=1\n"
        "   ActiveFlows=1 JobIds=2 JobBandwidth=2:0.6Gbit/s\n"
        "   PeakUsed=0.6Gbit/s MeanUsed=0.6Gbit/s SaturatedTime=00:00:00\n"
        "\n"
    )


def test_the_jobs_end_when_the_formulas_say_and_the_link_history_adds_up() -> None:
    ctl = two_coallocated_jobs()
    ctl.wait()
    assert ctl.engine.jobs[1].end == pytest.approx(A_END, rel=1e-12)  # 126.67 s
    assert ctl.engine.jobs[2].end == pytest.approx(B_END, rel=1e-12)  # 157.92 s
    mean = (1.2 * A_END + 0.6 * (B_END - A_END)) / B_END  # link c1 over [0, end of job 2]
    result = ctl.execute(["scontrol", "-o", "show", "link", "c1"])
    assert result.stdout == (
        "LinkName=c1 Cluster=c1 Capacity=1Gbit/s Used=0Gbit/s Load=0.0% Saturated=NO "
        "Slowdown=1 ActiveFlows=0 JobIds=(null) JobBandwidth=(null) PeakUsed=1.2Gbit/s "
        f"MeanUsed={mean:g}Gbit/s SaturatedTime=00:02:06\n"  # int(126.67)
    )


def test_unknown_link_and_a_platform_without_limits() -> None:
    ctl = two_coallocated_jobs()
    result = ctl.execute(["scontrol", "show", "link", "c2,nowhere"])
    assert result.stdout.startswith("LinkName=c2 ")
    assert result.stdout.endswith("\nLink nowhere not found\n")
    assert result.exit_code == 1
    lab = Controller(load_platform(platform_path("lab")), "easy")
    assert lab.execute(["scontrol", "show", "links"]).stdout == (
        "LinkName=lab Cluster=lab\n"
        "   Capacity=UNLIMITED Used=0Gbit/s Load=0.0% Saturated=NO Slowdown=1\n"
        "   ActiveFlows=0 JobIds=(null) JobBandwidth=(null)\n"
        "   PeakUsed=0Gbit/s MeanUsed=0Gbit/s SaturatedTime=00:00:00\n"
        "\n"
    )


def test_the_usage_names_it() -> None:
    usage = Controller(load_platform(platform_path("lab")), "easy").execute(["scontrol", "-h"])
    assert "show link [CLUSTER...]" in usage.stdout and "update scheduler=SPEC" in usage.stdout
    assert usage.exit_code == 0
