"""A submission slurmctld records and then refuses ("Requested node configuration is not
available") stays as a FAILED job, reason BadConstraints (real Slurm 22.05.8: the differential
capture nodes-exclusive, job 7; the samples' job 22); refusals made before the record exist
leave none."""

from __future__ import annotations

from pathlib import Path

from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller

LAB = load_platform(Path(__file__).resolve().parents[2] / "resources/platforms/lab.toml")


def test_a_job_no_node_configuration_can_run_is_kept_failed() -> None:
    ctl = Controller(LAB, "backfill")
    refused = ctl.execute(["sbatch", "-N", "1", "-n", "8", "--wrap", "sleep 300"])
    assert refused.exit_code == 1
    assert refused.stderr == (
        "sbatch: error: Batch job submission failed: "
        "Requested node configuration is not available\n"
    )
    memory = ctl.execute(["sbatch", "--mem=100G", "--wrap", "x"])
    assert memory.exit_code == 1
    ctl.execute(["sbatch", "-p", "nosuch", "--wrap", "x"])  # refused before any record
    assert ctl.execute(["sbatch", "--wrap", "sleep 10"]).stdout == "Submitted batch job 3\n"
    ctl.advance(5)
    assert ctl.execute(["squeue", "-h"]).stdout.split() == (
        ["3", "batch", "wrap", "root", "R", "0:05", "1", "node01"]
    )
    everything = ctl.execute(["squeue", "-h", "-t", "all", "-o", "%i %t %D %R"]).stdout
    assert everything == "1 F 2 (BadConstraints)\n2 F 1 (BadConstraints)\n3 R 1 node01\n"
    accounted = ctl.execute(["sacct", "-X", "-n", "-o", "JobID,State,ExitCode"]).stdout
    assert accounted.split("\n")[:2] == [
        "1                FAILED      1:0 ",
        "2                FAILED      1:0 ",
    ]
