"""``sbatch -M a,b,c`` sends the job to the cluster where it would start first, by the local
policies' estimates (slurm-conventions.md §5); ``squeue -M``, ``sacct -M`` and ``scontrol show
job`` show where it went and why."""

from __future__ import annotations

from emulator.slurmctld import Controller
from solvers.brokers.platforms import sites_platform


def test_sbatch_m_takes_the_earliest_start_and_says_so() -> None:
    ctl = Controller(sites_platform([4, 4, 4], ["a", "b", "c"]), "lsf")
    run = ctl.execute
    assert run(["sbatch", "-M", "a", "-n", "4", "-t", "60", "--wrap", "sleep 3600"]).exit_code == 0
    assert run(["sbatch", "-M", "b", "-n", "2", "-t", "30", "--wrap", "sleep 1800"]).exit_code == 0
    result = run(["sbatch", "-M", "a,b,c", "-n", "4", "-t", "10", "--wrap", "sleep 60"])
    assert result.stdout == "Submitted batch job 3 on cluster c\n"
    # a is full for an hour, b half full for 30 minutes: only c starts it now
    squeue = run(["squeue", "-M", "c", "-h", "-o", "%i %P"])
    assert squeue.stdout.split() == ["CLUSTER:", "c", "3", "c"]
    show = run(["scontrol", "show", "job", "3"]).stdout
    assert (
        "Explanation=sbatch -M: expected start in a 01:00:00, b 00:30:00, c 00:00:00 -> c\n" in show
    )
    sacct = run(["sacct", "-M", "c", "-n", "-X", "-o", "JobID,Partition"])
    assert sacct.stdout.split() == ["3", "c"]
    everywhere = run(["sacct", "-M", "all", "-n", "-X", "-o", "JobID,Cluster"])
    assert everywhere.stdout.split() == ["1", "a", "2", "b", "3", "c"]


def test_sbatch_m_ties_go_to_the_first_cluster() -> None:
    ctl = Controller(sites_platform([4, 4], ["a", "b"]), "lsf")
    result = ctl.execute(["sbatch", "-M", "b,a", "-n", "1", "--wrap", "true"])
    assert result.stdout == "Submitted batch job 1 on cluster a\n"


def test_a_brokers_route_is_explained_in_scontrol_show_job() -> None:
    ctl = Controller(sites_platform([2, 4], ["north", "east"]), "mct-a")
    assert ctl.execute(["sbatch", "-n", "2", "-t", "60", "--wrap", "sleep 10"]).exit_code == 0
    ctl.advance(1)
    show = ctl.execute(["scontrol", "show", "job", "1"]).stdout
    assert (
        "Explanation=MCT-a: admissible north..east (first north, r east); "
        "ECT north 01:00:00, east 01:00:00 -> north\n"
    ) in show
    too_big = ctl.execute(["sbatch", "-n", "5", "--wrap", "true"])
    assert too_big.exit_code == 0  # within the grid's 6 cores: the broker refuses it
    ctl.advance(1)
    show = ctl.execute(["scontrol", "show", "job", "2"]).stdout
    assert "JobState=FAILED" in show
    assert "Explanation=MCT-a: job needs 5 cores, more than any site has" in show
