"""Every option of sbatch 22.05 is accepted; those that change the emulation take effect, the
others show where Slurm shows them. Messages are what the real sbatch 22.05.8 printed (Debian
12) for the same command lines."""

from __future__ import annotations

import pytest

from emulator.model.platform_file import load_platform
from emulator.slurm.sbatch_options import SbatchError, parse_sbatch
from emulator.slurmctld import Controller
from resources import platform_path

# sbatch.1 of 22.05.8, OPTIONS: every long option with a sample value ("" = a flag)
MAN_PAGE_OPTIONS = {
    "account": "a", "acctg-freq": "task=30", "array": "1-3", "batch": "haswell",
    "bb": "x", "bbf": "f", "begin": "now", "chdir": "/tmp", "cluster-constraint": "x",
    "clusters": "lab", "comment": "c", "constraint": "ib", "container": "/c",
    "contiguous": "", "core-spec": "0", "cores-per-socket": "1", "cpu-freq": "high",
    "cpus-per-gpu": "1", "cpus-per-task": "1", "deadline": "now+1hour", "delay-boot": "1",
    "dependency": "singleton", "distribution": "block", "error": "e", "exclude": "node04",
    "exclusive": "", "export": "ALL", "export-file": "f", "extra-node-info": "1",
    "get-user-env": "", "gid": "0", "gpu-bind": "closest", "gpu-freq": "high", "gpus": "0",
    "gpus-per-node": "0", "gpus-per-socket": "0", "gpus-per-task": "0", "gres": "gpu:0",
    "gres-flags": "enforce-binding", "help": "", "hint": "nomultithread", "hold": "",
    "ignore-pbs": "", "input": "i", "job-name": "j", "kill-on-invalid-dep": "yes",
    "mail-type": "END,FAIL", "mail-user": "me@x", "mcs-label": "m", "mem": "1G",
    "mem-bind": "local", "mem-per-cpu": "100", "mem-per-gpu": "1G", "mincpus": "1",
    "network": "x", "nice": "5", "no-kill": "", "no-requeue": "", "nodefile": "f",
    "nodelist": "node01", "nodes": "1", "ntasks": "1", "ntasks-per-core": "1",
    "ntasks-per-gpu": "1", "ntasks-per-node": "1", "ntasks-per-socket": "1",
    "open-mode": "append", "output": "o", "overcommit": "", "oversubscribe": "",
    "parsable": "", "partition": "batch", "power": "level", "prefer": "x", "priority": "5",
    "profile": "task", "propagate": "", "qos": "normal", "quiet": "", "reboot": "",
    "requeue": "", "reservation": "r", "signal": "B:USR1@60", "sockets-per-node": "1",
    "spread-job": "", "switches": "1@10", "test-only": "", "thread-spec": "1",
    "threads-per-core": "1", "time": "10", "time-min": "5", "tmp": "10", "uid": "0",
    "usage": "", "use-min-nodes": "", "verbose": "", "version": "", "wait": "",
    "wait-all-nodes": "1", "wckey": "w", "wrap": "true", "licenses": "l",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(MAN_PAGE_OPTIONS))
def test_every_man_page_option_is_accepted(name: str) -> None:
    value = MAN_PAGE_OPTIONS[name]
    argv = [f"--{name}={value}" if value else f"--{name}"]
    if name != "wrap":
        argv += ["--wrap", "true"]
    if name.endswith("-per-gpu"):
        argv.append("--gpus=1")  # per GPU needs GPUs
    options = parse_sbatch(argv, None, {}, now=0.0, origin=0.0)
    assert name in options.given


@pytest.mark.parametrize(
    ("option", "message"),
    [  # what sbatch 22.05.8 printed for `sbatch OPTION --wrap true`
        ("--mem-per-cpu=abc", "sbatch: error: Invalid --mem-per-cpu specification"),
        ("--time-min=abc", "sbatch: error: Invalid --time-min specification"),
        ("--gpus=abc", "sbatch: error: Invalid generic resource (gres) specification"),
        ("--gres=x", "sbatch: error: Invalid generic resource (gres) specification"),
        ("--open-mode=x", "sbatch: error: Invalid --open-mode specification"),
        ("--signal=x", "sbatch: error: Invalid --signal specification"),
        ("--kill-on-invalid-dep=x", "sbatch: error: Invalid --kill-on-invalid-dep specification"),
        ("--tmp=x", "sbatch: error: Invalid --tmp specification"),
        ("--mail-type=x", "sbatch: error: Invalid --mail-type specification"),
        ("--hint=x", 'sbatch: error: unrecognized --hint argument "x", see --hint=help'),
        ("--exclusive=foo", "sbatch: error: Invalid --exclusive specification"),
        ("--cpus-per-gpu=x", 'sbatch: error: Invalid numeric value "x" for --cpus-per-gpu.'),
        ("--switches=x", 'sbatch: error: Invalid numeric value "x" for --switches.'),
        ("-Sx", 'sbatch: error: Invalid numeric value "x" for --core-spec.'),
        ("--profile=x", "sbatch: error: invalid --profile=x option"),
        ("--gres-flags=x", "sbatch: error: Invalid --gres-flags specification"),
        (
            "--nice=99999999999",
            "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)",
        ),
    ],
)
def test_bad_values_get_sbatchs_message(option: str, message: str) -> None:
    with pytest.raises(SbatchError) as info:
        parse_sbatch([option, "--wrap", "true"], None, {})
    assert info.value.lines == [message]
    assert info.value.exit_code == 255


@pytest.mark.parametrize(
    "option",  # what sbatch 22.05.8 accepted
    ["--exclusive=exclusive", "--exclusive=USER", "--exclusive=", "--hint=Compute_bound",
     "--open-mode=Append", "--mail-type=end,fail", "--signal=10", "--nice=abc"],
)  # fmt: skip
def test_values_sbatch_accepts(option: str) -> None:
    parse_sbatch([option, "--wrap", "true"], None, {})


def test_exclusive_as_sbatch_reads_it() -> None:
    def exclusive(*argv: str, env: dict[str, str] | None = None) -> bool:
        return parse_sbatch([*argv, "--wrap", "x"], None, env or {}).exclusive

    assert exclusive("--exclusive") and exclusive("--exclusive=user")
    assert not exclusive("--exclusive=oversubscribe") and not exclusive()
    with pytest.raises(SbatchError, match="Invalid --exclusive specification"):
        exclusive(env={"SBATCH_EXCLUSIVE": "1"})  # as sbatch 22.05.8 refused it


def test_values_as_sbatch_reads_them() -> None:
    options = parse_sbatch(
        ["--nice", "--gres=gpu:a100:2", "--time-min=1:30", "--mem-per-cpu=1G", "--wrap", "x"],
        None,
        {"SBATCH_REQUEUE": "1", "SBATCH_COMMENT": "not an sbatch variable"},
    )
    # 1:30 is M:SS, rounded up to whole minutes as Slurm's time_str2mins does
    assert (options.nice, options.gpus_per_node, options.time_min) == (100, 2, 120.0)
    assert (options.mem_per_cpu, options.requeue, options.comment) == (1024, True, None)
    # as C's strtol reads them: sbatch 22.05.8 accepted --nice=abc and --priority=abc
    assert parse_sbatch(["--nice=abc", "--priority=7x", "--wrap", "x"], None, {}).nice == 0


def lab(name: str = "lab-gpu") -> Controller:
    return Controller(load_platform(platform_path(name)), "easy")


def submit(ctl: Controller, *argv: str, user: str = "alice") -> tuple[int, str, str]:
    result = ctl.execute(["sbatch", *argv, "--wrap", "sleep 100"], user=user, cwd="/home/a")
    return result.exit_code, result.stdout, result.stderr


def nodes_of(ctl: Controller) -> dict[str, str]:
    out = ctl.execute(["squeue", "-h", "-o", "%i %N"], user="root").stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def test_constraint_and_gpus_choose_the_nodes() -> None:
    ctl = lab()
    assert submit(ctl, "-C", "cpu")[0] == 0  # 1: node03, the first with the feature
    assert submit(ctl, "--gres=gpu:2", "-n", "2")[0] == 0  # 2: node01
    assert submit(ctl, "--gpus-per-node=1")[0] == 0  # 3: node02, node01's GPUs are taken
    assert submit(ctl, "-C", "gpu&ib", "-n", "4")[0] == 0  # 4: node01's 2 free cores, node02's 2
    assert submit(ctl, "-C", "a100|cpu", "-n", "4")[0] == 0  # 5: node02's last core, node03's 3
    assert submit(ctl, "-C", "gpu")[0] == 0  # 6: waits, though node04 has 4 free cores
    assert submit(ctl, "-C", "cpu")[0] == 0  # 7: node04
    ctl.advance(1)
    assert nodes_of(ctl) == {
        "1": "node03",
        "2": "node01",
        "3": "node02",
        "4": "node[01-02]",
        "5": "node[02-03]",
        "6": "",
        "7": "node04",
    }


def test_a_constraint_with_counts_is_refused() -> None:
    code, _, err = submit(lab(), "-C", "[gpu*2]")
    assert (code, err) == (
        1,
        "sbatch: error: Batch job submission failed: Invalid feature specification\n",
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-C", "nosuch"], "Batch job submission failed: Invalid feature specification"),
        (
            ["--gres=gpu:3"],
            "Batch job submission failed: Requested node configuration is not available",
        ),
        (
            ["-C", "cpu", "--gpus-per-node=1"],
            "Batch job submission failed: Requested node configuration is not available",
        ),
        (["--qos=high"], "Batch job submission failed: Invalid qos specification"),
        (["--reservation=r"], "Batch job submission failed: Requested reservation is invalid"),
        (["-L", "matlab"], "Batch job submission failed: Invalid license specification"),
        (["--priority=10"], "Batch job submission failed: Access/permission denied"),
        (["--nice=-5"], "Batch job submission failed: Access/permission denied"),
    ],
)
def test_what_the_cluster_cannot_give_is_refused(argv: list[str], message: str) -> None:
    ctl = lab()
    code, out, err = submit(ctl, *argv)
    assert (code, out, err) == (1, "", f"sbatch: error: {message}\n")
    assert submit(ctl)[1] == "Submitted batch job 2\n"  # the refused one used an id


@pytest.mark.parametrize(
    "argv",  # sbatch 22.05.8 on the samples' cluster (no GresTypes): refused, no id used
    [["--gres=gpu:1"], ["--gpus=1"], ["--gpus-per-node=1"], ["--gpus-per-task=1"],
     ["--cpus-per-gpu=1"], ["--mem-per-gpu=1G"], ["--cpus-per-gpu=1", "--gpus=1"]],
)  # fmt: skip
def test_gpus_on_a_cluster_without_gpus(argv: list[str]) -> None:
    ctl = lab("lab")
    message = "sbatch: error: Invalid generic resource (gres) specification\n"
    assert submit(ctl, *argv) == (1, "", message)
    assert submit(ctl, "--gres=gpu:0")[1] == "Submitted batch job 1\n"


def test_mem_per_cpu_beyond_a_node_is_refused_like_mem() -> None:
    ctl = lab("lab")
    code, _, err = submit(ctl, "--mem-per-cpu=1000", "-c", "5")
    assert code == 1 and "Memory specification can not be satisfied" in err
    assert submit(ctl, "--mem-per-cpu=1000", "-c", "4")[0] == 0


def test_nice_and_priority_set_the_priority() -> None:
    ctl = lab("lab")
    submit(ctl, "-n", "16")
    submit(ctl, "--nice=10")
    submit(ctl)  # below job 2 (slurmctld's lowest_prio): the nice changed no job's place
    submit(ctl, "--priority=5", user="root")
    submit(ctl, "--nice=-3", user="root")
    out = ctl.execute(["squeue", "-h", "-o", "%i %Q"], user="root").stdout
    rows = dict(line.split() for line in out.splitlines())
    first = int(rows["1"])
    assert rows == {
        "1": str(first),
        "2": str(first - 1 - 10),
        "3": str(first - 12),
        "4": "5",
        "5": str(first - 13 + 3),
    }


def test_recorded_options_show_in_scontrol_show_job() -> None:
    ctl = lab()
    code, _, _ = submit(
        ctl,
        "--no-requeue",
        "--nice=3",
        "--time-min=10",
        "--mem-per-cpu=500",
        "--tmp=2G",
        "-C",
        "gpu",
        "--gpus-per-node=1",
        "--comment=my run",
        "--mail-type=end,fail",
        "--contiguous",
        "--open-mode=append",
        "--signal=USR1@60",
    )
    assert code == 0
    text = ctl.execute(["scontrol", "show", "job", "1"], user="alice").stdout
    for field in (
        "Priority=",
        "Nice=3 Account=alice QOS=normal\n",
        "Requeue=0 Restarts=0",
        "TimeMin=00:10:00\n",
        "MinCPUsNode=1 MinMemoryCPU=500M MinTmpDiskNode=2G\n",
        "Features=gpu DelayBoot=00:00:00\n",
        "OverSubscribe=OK Contiguous=1 Licenses=(null) Network=(null)\n",
        "WorkDir=/home/a\n   Comment=my run \n   StdErr=",
        "Power=\n   TresPerNode=gres:gpu:1\n   MailUser=alice MailType=END,FAIL\n",
    ):
        assert field in text
    plain = ctl.execute(["sbatch", "--wrap", "x"], user="bob")
    assert plain.exit_code == 0
    text = ctl.execute(["scontrol", "show", "job", "2"], user="bob").stdout
    assert "Nice=0 " in text and "Requeue=1 " in text and "TimeMin=N/A" in text
    assert "MinMemoryNode=0 MinTmpDiskNode=0" in text and "Features=(null)" in text
    assert text.endswith("   Power=\n   \n\n")


def test_version_and_help() -> None:
    ctl = lab()
    assert ctl.execute(["sbatch", "-V"], user="a").stdout == "slurm-wlm 22.05.8\n"
    text = ctl.execute(["sbatch", "--help"], user="a").stdout
    for line in ("      --mail-type=type", "  -C, --constraint=list", "  -G, --gpus=n"):
        assert line in text


def test_requeue_and_no_requeue() -> None:
    ctl = lab("lab")
    submit(ctl, "--requeue", "-w", "node01")
    submit(ctl, "-w", "node01")
    submit(ctl, "--no-requeue", "-w", "node02")
    ctl.advance(10)
    down = ["scontrol", "update", "NodeName=node01", "State=DOWN", "Reason=broken"]
    assert ctl.execute(down, user="root").exit_code == 0
    out = ctl.execute(["squeue", "-h", "-t", "all", "-o", "%i %T"], user="root").stdout
    # the --requeue job waits again (node01 is down), the other one failed with its node
    assert sorted(out.splitlines()) == ["1 PENDING", "2 NODE_FAIL", "3 RUNNING"]
    requeue = ctl.execute(["scontrol", "requeue", "3"], user="alice")
    assert requeue.exit_code == 1
    assert "Requested operation is presently disabled" in requeue.stderr
    assert ctl.execute(["scontrol", "requeue", "2"], user="alice").exit_code == 0


def test_gpus_are_held_until_the_job_ends() -> None:
    ctl = lab()  # node01 and node02 have 2 GPUs each
    for _ in range(3):
        submit(ctl, "--gres=gpu:2")  # 100 s each
    submit(ctl, "--gpus-per-node=1", "-t", "1")  # 4: backfills once a GPU is free
    ctl.advance(1)
    assert nodes_of(ctl) == {"1": "node01", "2": "node02", "3": "", "4": ""}
    ctl.advance(100)  # 1 and 2 end at 100: 3 takes node01's GPUs, 4 one of node02's
    assert nodes_of(ctl) == {"3": "node01", "4": "node02"}
    out = ctl.execute(["squeue", "-h", "-t", "all", "-o", "%i %T"], user="root").stdout
    assert sorted(out.split("\n")[:-1]) == ["1 COMPLETED", "2 COMPLETED", "3 RUNNING", "4 RUNNING"]


def test_squeue_shows_gres_and_features() -> None:
    ctl = lab()
    submit(ctl, "--gres=gpu:1", "-C", "gpu", "--comment=hi there")
    submit(ctl)
    out = ctl.execute(["squeue", "-o", "%i %b %f %k"], user="root").stdout
    assert out == (
        "JOBID TRES_PER_NODE FEATURES COMMENT\n1 gres:gpu:1 gpu hi there\n2 N/A (null) (null)\n"
    )


def test_core_and_thread_spec_are_ignored_with_sbatchs_warning() -> None:
    code, out, err = submit(lab("lab"), "-S", "1", "--thread-spec=1")
    assert (code, out) == (0, "Submitted batch job 1\n")
    assert err == (  # as sbatch 22.05.8 printed them (AllowSpecResourcesUsage=No)
        "sbatch: error: Ignoring -S since it's not allowed by configuration "
        "(AllowSpecResourcesUsage = No)\n"
        "sbatch: error: Ignoring --thread-spec since it's not allowed by configuration "
        "(AllowSpecResourcesUsage = No)\n"
    )
