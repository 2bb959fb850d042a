"""srun and salloc as emulated interactive jobs; sshare, sdiag, sacctmgr show, sstat; the
commands batchlab does not emulate."""

from __future__ import annotations

import pytest

from emulator.model.platform_file import load_platform
from emulator.slurm.not_emulated import NOT_EMULATED
from emulator.slurmctld import Controller
from emulator.slurmctld.commands import COMMANDS
from resources import platform_path


def lab() -> Controller:
    return Controller(load_platform(platform_path("lab")), "easy")


def run(ctl: Controller, *argv: str, user: str = "alice") -> tuple[int, str, str]:
    result = ctl.execute(list(argv), user=user, cwd="/home/a")
    return result.exit_code, result.stdout, result.stderr


def test_srun_returns_when_its_job_ends_in_simulated_time() -> None:
    ctl = lab()
    assert run(ctl, "srun", "-n", "16", "sleep", "100") == (0, "", "")
    assert ctl.now == 100.0
    # srun's own options change nothing; the job is named after the command
    assert run(ctl, "srun", "--pty", "-l", "-u", "-n", "2", "sleep", "30") == (0, "", "")
    assert ctl.now == 130.0
    assert run(ctl, "srun", "hostname") == (0, "", "")  # an instant command takes no time
    assert ctl.now == 130.0
    out = run(ctl, "sacct", "-X", "-n", "-o", "JobID,JobName,AllocCPUS,State,Elapsed")[1]
    assert out.split("\n")[:3] == [
        "1                 sleep         16  COMPLETED   00:01:40 ",
        "2                 sleep          2  COMPLETED   00:00:30 ",
        "3              hostname          1  COMPLETED   00:00:00 ",
    ]


def test_srun_and_salloc_read_their_own_environment() -> None:
    ctl = lab()
    env = {"SBATCH_PARTITION": "short", "SBATCH_JOB_NAME": "batch-default"}
    assert ctl.execute(["srun", "true"], user="a", env=env, cwd="/").exit_code == 0
    env = {"SLURM_PARTITION": "short", "SALLOC_TIMELIMIT": "5"}
    assert ctl.execute(["srun", "true"], user="a", env=env, cwd="/").exit_code == 0
    env = {"SALLOC_PARTITION": "short", "SLURM_JOB_NAME": "x"}
    assert ctl.execute(["salloc", "true"], user="a", env=env, cwd="/").exit_code == 0
    out = ctl.execute(["sacct", "-X", "-n", "-o", "JobName,Partition"], user="a").stdout
    # salloc names its job "interactive" (sacct shows 10 characters and a +)
    assert out == "      true      batch \n      true      short \ninteracti+      short \n"


def test_srun_exit_code_is_the_commands() -> None:
    assert run(lab(), "srun", "false")[0] == 1
    assert run(lab(), "srun", "true")[0] == 0


def test_salloc_with_a_command_and_without() -> None:
    ctl = lab()
    assert run(ctl, "salloc", "-N", "1", "sleep", "50") == (
        0,
        "",
        "salloc: Granted job allocation 1\nsalloc: Relinquishing job allocation 1\n",
    )
    assert ctl.now == 50.0
    code, _, err = run(ctl, "salloc", "-N", "1")
    assert code == 1 and err.startswith("salloc: error: batchlab runs salloc with a command only")


def test_what_srun_and_salloc_print_when_they_waited_or_failed() -> None:
    """The lines real srun and salloc 22.05.8 printed on the lab cluster (stderr)."""
    ctl = lab()
    ctl.execute(["sbatch", "-N", "4", "--exclusive", "--wrap", "sleep 8"], user="alice")
    assert run(ctl, "srun", "-n", "1", "hostname") == (
        0,
        "",
        "srun: job 2 queued and waiting for resources\nsrun: job 2 has been allocated resources\n",
    )
    ctl.execute(["sbatch", "-N", "4", "--exclusive", "--wrap", "sleep 8"], user="alice")
    assert run(ctl, "salloc", "-n", "1", "true") == (
        0,
        "",
        "salloc: Pending job allocation 4\n"
        "salloc: job 4 queued and waiting for resources\n"
        "salloc: job 4 has been allocated resources\n"
        "salloc: Granted job allocation 4\n"
        "salloc: Relinquishing job allocation 4\n",
    )
    # (real srun printed this for sh -c "exit 3", with 3; batchlab knows false's status)
    assert run(ctl, "srun", "-n", "1", "-t", "1", "false") == (
        1,
        "",
        "srun: error: node01: task 0: Exited with exit code 1\n",
    )


@pytest.mark.parametrize(
    ("argv", "stderr", "code"),
    [
        (["srun"], "srun: fatal: No command given to execute.\n", 1),
        (
            ["srun", "--bogus", "x"],
            "srun: unrecognized option '--bogus'\nTry \"srun --help\" for more information\n",
            255,
        ),
        (
            ["srun", "-p", "nosuch", "true"],
            "srun: error: invalid partition specified: nosuch\n"
            "srun: error: Unable to allocate resources: Invalid partition name specified\n",
            1,
        ),
        (
            ["salloc", "--qos=x", "true"],
            "salloc: error: Job submit/allocate failed: Invalid qos specification\n",
            1,
        ),
        (["srun", "--array=1-2", "true"], None, 255),  # sbatch's own option
        (  # never runs (EnforcePartLimits=NO accepts it): the in-process wait says so
            ["srun", "-N", "99", "true"],
            "srun: job 1 queued and waiting for resources\n"
            "srun: error: Job 1 can never end: nothing is left to run\n",
            1,
        ),
    ],
)
def test_srun_and_salloc_refusals(argv: list[str], stderr: str | None, code: int) -> None:
    got = run(lab(), *argv)
    assert got[0] == code and got[1] == ""
    if stderr is not None:
        assert got[2] == stderr


def test_sacctmgr_shows_the_samples_database() -> None:
    ctl = lab()
    # /work/shared/reference/slurm-samples/extra-sacctmgr-show-assoc.txt, byte for byte
    assert run(ctl, "sacctmgr", "show", "assoc", "format=cluster,account,user,share,qos")[1] == (
        "   Cluster    Account       User     Share                  QOS \n"
        "---------- ---------- ---------- --------- -------------------- \n"
        "       lab       root                    1               normal \n"
        "       lab       root       root         1               normal \n"
    )
    assert run(ctl, "sacctmgr", "-P", "-n", "list", "users")[1] == "root|root|Administrator\n"
    assert run(ctl, "sacctmgr", "-p", "show", "qos", "format=Name,Priority%4")[1] == (
        "Name|Priority|\nnormal|0|\n"
    )
    assert run(ctl, "sacctmgr", "show", "user", "format=user,admin%5")[1] == (
        "      User Admin \n---------- ----- \n      root Admi+ \n"
    )
    assert run(ctl, "sacctmgr", "show", "assoc", "format=")[1].startswith(
        "   Cluster    Account       User  Partition     Share   Priority GrpJobs "
    )  # an empty format keeps the default columns
    assert run(ctl, "sacctmgr", "add", "user", "bob")[0] == 1
    assert (
        run(ctl, "sacctmgr", "show", "nothing")[2] == "sacctmgr: error: Unknown object 'nothing'\n"
    )


def test_sshare_shows_no_usage_under_priority_basic() -> None:
    ctl = lab()
    run(ctl, "srun", "-n", "4", "sleep", "100")
    head = (
        "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  "
        "FairShare \n"
        "-------------------- ---------- ---------- ----------- ----------- ------------- "
        "---------- \n"
        "root                                          0.000000           0      0.000000"
        "            \n"
    )
    assert run(ctl, "sshare")[1] == head
    assert run(ctl, "sshare", user="root")[1] == head + (
        " root                      root          1    1.000000           0      0.000000"
        "   1.000000 \n"
    )
    assert run(ctl, "sshare", "-P", "-n", "-a", "-o", "Account,User,FairShare")[1] == (
        "root||\n root|root|1.000000\n"
    )


def test_sdiag_counts_the_jobs() -> None:
    ctl = lab()
    run(ctl, "sbatch", "--wrap", "sleep 10")
    run(ctl, "sbatch", "--wrap", "sleep 10\nexit 2")
    run(ctl, "sbatch", "-n", "16", "--wrap", "sleep 10")
    ctl.advance(15)
    run(ctl, "sbatch", "-n", "16", "--wrap", "sleep 10")  # waits for job 3
    run(ctl, "scancel", "4")
    out = run(ctl, "sdiag")[1]
    for line in (
        "Jobs submitted: 4\nJobs started:   3\nJobs completed: 1\nJobs canceled:  1\n"
        "Jobs failed:    1\n",
        "Jobs pending:   0\nJobs running:   1\n",
    ):
        assert line in out
    assert out.startswith("*" * 55 + "\nsdiag output at Sun Nov 22 00:00:15 2026 (")


def test_sstat_shows_a_running_jobs_batch_step() -> None:
    ctl = lab()
    run(ctl, "sbatch", "--wrap", "sleep 100")
    run(ctl, "sbatch", "-n", "16", "--wrap", "sleep 100")
    ctl.advance(30)
    code, out, err = run(ctl, "sstat", "-j", "1,2,9", "-o", "JobID,NTasks,AveCPU,MinCPUNode")
    assert code == 0
    assert out == (
        "       JobID   NTasks     AveCPU MinCPUNode \n"
        "------------ -------- ---------- ---------- \n"
        "     1.batch        1   00:00:30     node01 \n"
    )
    assert err == (
        "sstat: error: No steps running for job 2\nsstat: error: couldn't get steps for job 9\n"
    )
    assert run(ctl, "sstat")[2] == "sstat: error: You didn't give me any jobs to stat.\n"
    assert run(ctl, "sstat", "-P", "-n", "-j", "1.0", "-o", "JobID")[2] == (
        "sstat: error: StepId=1.0 not found running.\n"
    )


@pytest.mark.parametrize("command", NOT_EMULATED)
def test_commands_not_emulated_say_so(command: str) -> None:
    assert run(lab(), command, "-h") == (
        1,
        "",
        f"{command}: error: {command} is not emulated by batchlab\n",
    )


def test_the_client_knows_every_command_the_controller_answers() -> None:
    from emulator.daemon.commands import CLIENT_COMMANDS, is_mutating

    assert set(CLIENT_COMMANDS) == set(COMMANDS) - {"date"}
    read_only = ("sprio", "sshare", "sdiag", "sacctmgr", "sstat", *NOT_EMULATED)
    assert not any(is_mutating([name]) for name in read_only)
    assert is_mutating(["srun", "true"]) and is_mutating(["salloc", "true"])


def test_srun_and_salloc_help_list_their_own_options() -> None:
    srun_help = run(lab(), "srun", "--help")[1]
    assert srun_help.startswith(  # as srun 22.05.8 prints its usage line
        "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
        "executable(N) [args(N)...]\n\nParallel run options:\n"
    )
    for line in (
        "      --pty                   run task zero in pseudo terminal\n",
        "  -W, --wait=sec              seconds to wait after first task exits\n",
        "  -C, --constraint=list       specify a list of constraints\n",
    ):
        assert line in srun_help
    assert "--array" not in srun_help and "--wrap" not in srun_help
    salloc_help = run(lab(), "salloc", "--help")[1]
    assert "      --no-bell               do NOT ring the terminal bell\n" in salloc_help
    assert run(lab(), "salloc", "--usage")[1] == (
        "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]\n"
    )
