"""sbatch option parsing and conversion to model requests."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.model.job import ArrayTask, Communication, Dependencies, Dependency, DependencyKind
from emulator.model.platform_file import load_platform
from emulator.slurm.sbatch_options import (
    ArraySpec,
    SbatchError,
    SbatchOptions,
    array_requests,
    communication,
    emulated_runtime,
    parse_array,
    parse_dependency,
    parse_memory,
    parse_sbatch,
    split_command_line,
    to_request,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path("/work/shared/reference/slurm-samples/raw")
LAB = load_platform(ROOT / "resources/platforms/lab.toml").clusters[0]
SCRIPT = "#!/bin/bash\n#SBATCH -J fromscript\n#SBATCH --time=10\necho hi\nsleep 30\n"


def wrap(*argv: str, env: dict[str, str] | None = None) -> SbatchOptions:
    return parse_sbatch([*argv, "--wrap", "sleep 3000"], None, env or {})


def sample_stderr(name: str) -> str:
    path = SAMPLES / f"{name}.stderr"
    if not path.exists():
        pytest.skip("samples not available")
    return path.read_text()


def test_every_option_short_and_long() -> None:
    short = wrap(
        *("-N", "2-3", "-n", "8", "-c", "2", "-t", "1:30:00", "-p", "short,batch"),
        *("-M", "east,west", "-J", "name", "-o", "out", "-e", "err", "-b", "now+60"),
        *("-d", "afterok:3", "-a", "1-3", "-w", "node[01-02]", "-x", "node04", "-H", "-W"),
        *("-A", "acct", "-D", "/tmp"),
    )
    long = wrap(
        *("--nodes=2-3", "--ntasks", "8", "--cpus-per-task=2", "--time=1:30:00"),
        *("--partition=short,batch", "--clusters", "east,west", "--job-name=name"),
        *("--output=out", "--error", "err", "--begin=now+60", "--dependency=afterok:3"),
        *("--array=1-3", "--nodelist=node[01-02]", "--exclude=node04", "--hold", "--wait"),
        *("--account=acct", "--chdir=/tmp"),
    )
    assert short == long
    assert (short.nodes_min, short.nodes_max, short.ntasks, short.cpus_per_task) == (2, 3, 8, 2)
    assert short.time_limit == 5400
    assert short.partitions == ("short", "batch")
    assert short.clusters == ("east", "west")
    assert (short.job_name, short.output, short.error) == ("name", "out", "err")
    assert short.begin == 60
    assert short.dependency == Dependencies((Dependency(DependencyKind.AFTER_OK, 3),))
    assert short.array == ArraySpec((1, 2, 3), 0, "1-3")
    assert short.include == ("node01", "node02")
    assert short.exclude == ("node04",)
    assert short.hold and short.wait
    assert (short.account, short.work_dir) == ("acct", "/tmp")


def test_flags_and_misc_options() -> None:
    options = wrap("--ntasks-per-node=4", "--mem=2G", "--exclusive", "--test-only", "--parsable")
    assert options.ntasks_per_node == 4
    assert options.memory_mb == 2048
    assert options.exclusive and options.test_only and options.parsable
    assert wrap("--tasks-per-node", "3").ntasks_per_node == 3
    assert wrap("--exclusive=user").exclusive
    assert wrap("--deadline=now+1hour").deadline == 3600
    assert wrap("-n4").ntasks == 4  # value attached to a short option
    assert wrap("-HW").hold  # clustered flags
    assert wrap("--out=x").output == "x"  # unique prefix
    assert wrap("--emulate-runtime", "1:00").emulate_runtime == 60


def test_name_defaults() -> None:
    assert wrap().default_name == "wrap"
    script = parse_sbatch(["dir/job.sh", "a1"], "#!/bin/sh\ntrue\n", {})
    assert script.default_name == "job.sh"
    assert script.script_args == ("a1",)
    assert parse_sbatch([], "#!/bin/sh\ntrue\n", {}).default_name == "sbatch"
    assert wrap().default_output == "slurm-%j.out"
    assert wrap("-a", "0-3").default_output == "slurm-%A_%a.out"


def test_directives_and_precedence() -> None:
    options = parse_sbatch(["job.sh"], SCRIPT, {})
    assert options.job_name == "fromscript"
    assert options.time_limit == 600
    env = parse_sbatch(["job.sh"], SCRIPT, {"SBATCH_TIMELIMIT": "20", "SBATCH_PARTITION": "short"})
    assert env.time_limit == 1200
    assert env.partitions == ("short",)
    cli = parse_sbatch(["-t", "30", "job.sh"], SCRIPT, {"SBATCH_TIMELIMIT": "20"})
    assert cli.time_limit == 1800
    assert cli.job_name == "fromscript"


def test_directive_scanning_rules() -> None:
    script = (
        "#!/bin/sh\n\n# a comment\n# SBATCH -J ignored\n  #SBATCH -J indented\n"
        "#SBATCH -n 2 -c 3 # trailing comment\n#SBATCH --job-name='a b'\n"
        "echo start\n#SBATCH -J late\n"
    )
    options = parse_sbatch(["x.sh"], script, {})
    assert (options.ntasks, options.cpus_per_task, options.job_name) == (2, 3, "a b")


def test_wrap_ignores_directives_and_builds_script() -> None:
    options = wrap()
    assert options.script.startswith("#!/bin/sh\n")
    assert "sleep 3000" in options.script


def test_emulated_runtime() -> None:
    assert emulated_runtime(wrap(), 3600) == 3000
    assert emulated_runtime(wrap("--emulate-runtime=5"), 3600) == 300
    assert emulated_runtime(parse_sbatch(["x"], SCRIPT, {}), 600) == 30
    script = "#!/bin/sh\nsleep 1m\nsleep 2 # nap\nsleep $X\n"
    assert emulated_runtime(parse_sbatch(["x"], script, {}), 10) == 62
    assert emulated_runtime(parse_sbatch(["x"], "#!/bin/sh\ntrue\n", {}), 10) == 10


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("afterok:3", Dependencies((Dependency(DependencyKind.AFTER_OK, 3),))),
        (
            "after:1:2+5,afterany:3",
            Dependencies(
                (
                    Dependency(DependencyKind.AFTER, 1),
                    Dependency(DependencyKind.AFTER, 2, 300.0),
                    Dependency(DependencyKind.AFTER_ANY, 3),
                )
            ),
        ),
        (
            "afternotok:4?aftercorr:5",
            Dependencies(
                (
                    Dependency(DependencyKind.AFTER_NOT_OK, 4),
                    Dependency(DependencyKind.AFTER_CORR, 5),
                ),
                any_of=True,
            ),
        ),
        ("singleton", Dependencies((Dependency(DependencyKind.SINGLETON),))),
        ("123", Dependencies((Dependency(DependencyKind.AFTER_ANY, 123),))),
        ("afterany:1_1", Dependencies((Dependency(DependencyKind.AFTER_ANY, 1, task_id=1),))),
        (
            "after:1_0+2:2_*",
            Dependencies(
                (
                    Dependency(DependencyKind.AFTER, 1, 120.0, task_id=0),
                    Dependency(DependencyKind.AFTER, 2, whole_array=True),
                )
            ),
        ),
    ],
)
def test_dependency(text: str, expected: Dependencies) -> None:
    assert parse_dependency(text) == expected


@pytest.mark.parametrize(
    "text",
    ["afterok:abc", "afterok:1,afterany:2?afterok:3", "bogus:1", "afterok:1+5", "", "afterok:1_x"],
)
def test_dependency_errors(text: str) -> None:
    with pytest.raises(SbatchError) as info:
        parse_dependency(text)
    assert info.value.lines == [
        "sbatch: error: Batch job submission failed: Job dependency problem"
    ]
    assert info.value.exit_code == 1


def test_array() -> None:
    assert parse_array("0-15,20,0-15:4%4") == ArraySpec((*range(16), 20), 4, "0-15,20,0-15:4%4")
    assert parse_array("0-9%2").max_running == 2
    assert parse_array("1000").indexes == (1000,)


@pytest.mark.parametrize("text", ["5-2", "0-5000", "1001", "a", "1-3%", "0-4:0", ""])
def test_array_errors(text: str) -> None:
    with pytest.raises(SbatchError) as info:
        parse_array(text)
    assert str(info.value) == (
        "sbatch: error: Batch job submission failed: Invalid job array specification"
    )


def test_array_too_big_sample() -> None:
    with pytest.raises(SbatchError) as info:
        wrap("--array=0-5000")
    assert info.value.stderr == sample_stderr("extra-sbatch--array-too-big")


@pytest.mark.parametrize(
    ("text", "mib"),
    [("100", 100), ("2048K", 2), ("1k", 1), ("32gb", 32768), ("50GB", 51200), ("1T", 1048576)],
)
def test_memory(text: str, mib: int) -> None:
    assert parse_memory(text) == mib


def test_memory_error() -> None:
    with pytest.raises(SbatchError, match="Invalid --mem specification"):
        wrap("--mem=lots")


def test_time_sample_error() -> None:
    with pytest.raises(SbatchError) as info:
        parse_sbatch(["--wrap", "x", "--time=abc"], None, {})
    assert info.value.stderr == sample_stderr("sbatch---time=abc")
    assert info.value.exit_code == 255


def test_begin_sample_error() -> None:
    with pytest.raises(SbatchError) as info:
        parse_sbatch(["--begin=garbage", "--wrap", "x"], None, {})
    assert info.value.stderr == sample_stderr("extra-sbatch--begin-garbage")
    assert info.value.exit_code == 255


def test_partition_sample_error() -> None:
    options = parse_sbatch(["-p", "nosuch", "--wrap", "x"], None, {})
    with pytest.raises(SbatchError) as info:
        to_request(options, "root", LAB)
    assert info.value.stderr == sample_stderr("sbatch--p-nosuch")
    assert info.value.exit_code == 1


def test_nodes_zero_rejected() -> None:
    with pytest.raises(SbatchError) as info:
        to_request(wrap("-N", "0"), "nobody", LAB)
    assert info.value.stderr == sample_stderr("extra-nobody-sbatch--N-0")


@pytest.mark.parametrize(
    ("argv", "lines"),
    [
        (["--frobnicate"], ["sbatch: unrecognized option '--frobnicate'"]),
        (["-z"], ["sbatch: invalid option -- 'z'"]),
        (["--hold=1"], ["sbatch: option '--hold' doesn't allow an argument"]),
        (
            ["--ex=a"],
            [
                # what the real sbatch 22.05.8 printed (Debian 12, glibc 2.36)
                "sbatch: option '--ex=a' is ambiguous; possibilities: '--exclude' "
                "'--exclusive' '--export' '--export-file' '--extra-node-info'"
            ],
        ),
    ],
)
def test_usage_errors(argv: list[str], lines: list[str]) -> None:
    with pytest.raises(SbatchError) as info:
        parse_sbatch([*argv, "--wrap", "x"], None, {})
    assert info.value.lines == [*lines, 'Try "sbatch --help" for more information']
    assert info.value.exit_code == 255


def test_missing_arguments() -> None:
    with pytest.raises(SbatchError, match="option '--nodes' requires an argument"):
        parse_sbatch(["--wrap", "x", "--nodes"], None, {})
    with pytest.raises(SbatchError, match="option requires an argument -- 'N'"):
        parse_sbatch(["--wrap", "x", "-N"], None, {})


def test_directive_errors() -> None:
    with pytest.raises(SbatchError) as info:
        parse_sbatch(["x"], "#!/bin/sh\n#SBATCH \u2014constraint=pascal\n", {})
    assert info.value.lines == [
        "sbatch: error: Invalid directive found in batch script: \u2014constraint=pascal"
    ]
    with pytest.raises(SbatchError) as info:
        parse_sbatch(["x"], "#!/bin/sh\n#SBATCH --frobnicate\n", {})
    assert info.value.lines[0] == "sbatch: unrecognized option '--frobnicate'"


@pytest.mark.parametrize(
    ("script", "first"),
    [
        ("", "sbatch: error: Batch script is empty!"),
        ("  \n\n", "sbatch: error: Batch script contains only whitespace!"),
        ("echo hi\n", "sbatch: error: This does not look like a batch script.  The first"),
        ("#!/bin/sh\r\ntrue\r\n", "sbatch: error: Batch script contains DOS line breaks (\\r\\n)"),
    ],
)
def test_script_errors(script: str, first: str) -> None:
    with pytest.raises(SbatchError) as info:
        parse_sbatch(["x"], script, {})
    assert info.value.lines[0] == first
    assert info.value.exit_code == 1


def test_wrap_with_script_rejected() -> None:
    with pytest.raises(SbatchError, match="script argument not permitted with --wrap option"):
        parse_sbatch(["--wrap", "x", "job.sh"], None, {})


def test_to_request_defaults() -> None:
    request = to_request(wrap(), "root", LAB)
    assert (request.tasks, request.cpus_per_task, request.time_limit) == (1, 1, 3600)
    assert (request.name, request.user, request.partition) == ("wrap", "root", "")
    short = to_request(wrap("-p", "short"), "root", LAB)
    assert short.partition == "short"
    assert short.time_limit == 3600  # no DefaultTime: MaxTime
    multi = to_request(wrap("-N", "2", "--ntasks-per-node=4"), "root", LAB)
    assert (multi.tasks, multi.min_nodes, multi.tasks_per_node) == (8, 2, 4)
    assert to_request(wrap("-N", "99"), "root", LAB).tasks == 99  # accepted, pends
    held = to_request(wrap("-H", "-t", "0", "--begin=now+10"), "root", LAB)
    assert held.held and held.time_limit == math.inf and held.begin == 10
    assert to_request(wrap("--deadline=now+1"), "u", LAB).deadline == 1
    assert to_request(wrap(), "u", LAB).deadline == math.inf


def test_array_requests() -> None:
    options = wrap("--array=0-9%2")
    assert options.array is not None
    requests = array_requests(to_request(options, "root", LAB), options.array, 4)
    assert [r.array for r in requests[:2]] == [ArrayTask(4, 0, 2), ArrayTask(4, 1, 2)]
    assert len(requests) == 10


def test_bsp_options() -> None:
    options = wrap("-n", "4", "--bsp-sigma=0.3", "--bsp-task-bw", "1.5e-1")
    assert (options.bsp_sigma, options.bsp_task_bw) == (0.3, 0.15)
    assert communication(options, 600.0) == Communication(600.0, 0.3, 0.15)
    assert communication(wrap("--bsp-task-bw=2"), 60.0) == Communication(60.0, 1.0, 2.0)
    assert communication(wrap("--bsp-sigma=0"), 60.0) == Communication(60.0, 0.0, 0.0)
    assert communication(wrap("-n", "4"), 60.0) is None
    script = "#!/bin/sh\n#SBATCH --bsp-sigma=1 --bsp-task-bw=0\nrun\n"
    from_script = parse_sbatch(["x.sh"], script, {})
    assert (from_script.bsp_sigma, from_script.bsp_task_bw) == (1.0, 0.0)
    assert parse_sbatch(["--bsp-sigma=0.5", "x.sh"], script, {}).bsp_sigma == 0.5  # CLI wins
    for bad in ("--bsp-sigma=1.01", "--bsp-sigma=", "--bsp-task-bw=-0.5", "--bsp-task-bw=1e999"):
        with pytest.raises(SbatchError) as caught:
            wrap(bad)
        option = bad.partition("=")[0]
        assert caught.value.stderr == f"sbatch: error: Invalid {option} specification\n"
        assert caught.value.exit_code == 255


def test_help_and_usage() -> None:
    def help_text(argv: list[str]) -> str | None:
        return split_command_line(argv).help

    text = help_text(["--help"])
    assert text is not None and text.startswith("Usage: sbatch [OPTIONS...] [script [args...]]\n")
    assert "  -n, --ntasks=ntasks         number of tasks to run\n" in text
    assert "      --bsp-task-bw=bw        BSP job: bandwidth each task draws" in text
    assert help_text(["-h", "job.sh"]) == text
    assert help_text(["--usage"]) == "Usage: sbatch [OPTIONS...] [script [args...]]\n"
    assert help_text(["-n", "2", "job.sh", "--help"]) is None  # an argument of the script
    assert help_text(["--he"]) == text  # a unique prefix
    with pytest.raises(SbatchError):
        help_text(["--h"])  # ambiguous: --help, --hold
    line = split_command_line(["-n", "2", "job.sh", "--help"])
    assert (line.script_path, line.rest) == ("job.sh", ("job.sh", "--help"))
    assert split_command_line(["--wrap", "true"]).script_path is None


_WORDS = st.sampled_from(
    ["-N", "-n", "-t", "--mem", "--array", "-d", "--begin", "1", "x", "0-3%1", "--hold", "-H"]
)


@given(st.lists(_WORDS | st.text(max_size=6), max_size=6))
def test_parser_raises_only_sbatch_errors(argv: list[str]) -> None:
    try:
        parse_sbatch([*argv], "#!/bin/sh\ntrue\n", {})
    except SbatchError as error:
        assert error.lines
        assert error.exit_code in (1, 255)


@pytest.mark.parametrize("argv", [["-N", "¹"], ["-N", "1-²"], ["-n", "³"], ["--array", "1-³"]])
def test_digits_that_are_not_ascii_are_sbatch_errors(argv: list[str]) -> None:
    with pytest.raises(SbatchError):
        parse_sbatch(argv, "#!/bin/sh\ntrue\n", {})
