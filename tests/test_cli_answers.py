"""Every input gets an answer (issue 24 items 1-3): a one-line error and a non-zero exit, never a
traceback or a Qt abort; every job replayed or counted as dropped; ``batchlab run``'s status and
header; shipped files by name from anywhere; extended SWF and ``--place trace``.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.cli import main
from resources import workload_path

SHIPPED_TRACE = workload_path("kth-sp2-first-2000")
TWO_CLUSTERS = """\
name = "two"
[[clusters]]
name = "left"
[[clusters.nodes]]
names = "l[1-4]"
cores = 1
[[clusters]]
name = "right"
[[clusters.nodes]]
names = "r[1-2]"
cores = 1
"""


def batchlab(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([*map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def child(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``batchlab ARGV`` in a child process whose stdout is a pipe the reader closed at once,
    as ``| head`` does when it has read enough; returns the status and stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    return process.wait(timeout=120), err


def one_line_error(err: str, *needles: str) -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    for needle in needles:
        assert needle in err


# --- item 1: no traceback ------------------------------------------------------------------------
def test_truncated_gzip_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(SHIPPED_TRACE.read_bytes()[:3000])
    code, _, err = batchlab(capsys, "replay", cut, "-o", tmp_path / "out", "-q")
    assert code == 1
    one_line_error(err, str(cut), "truncated or corrupt gzip")
    assert not (tmp_path / "out").exists()


def test_out_naming_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine\n")
    code, _, err = batchlab(capsys, "replay", SHIPPED_TRACE, "-o", taken, "-q")
    assert code == 1
    one_line_error(err, f"--out {taken}: exists and is not a directory")
    code, _, err = batchlab(capsys, "replay", SHIPPED_TRACE, "-o", taken / "sub" / "dir", "-q")
    assert code == 1
    one_line_error(err, f"{taken} is not a directory")
    assert taken.read_text() == "mine\n"


@pytest.mark.parametrize(
    "argv",
    [
        ("schedulers",),
        ("replay", str(SHIPPED_TRACE), "-o", "{out}"),
        ("daemon", "status", "--socket", "{out}/nobody.sock"),
    ],
    ids=["schedulers", "replay", "daemon-status"],
)
def test_a_reader_that_stops_early(tmp_path: Path, argv: tuple[str, ...]) -> None:
    code, err = child(*(word.format(out=tmp_path) for word in argv))
    assert code != 0
    assert "Traceback" not in err
    assert "Broken pipe" not in err


def test_gui_without_a_display(tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    code, err = child("gui", "--demo", env=env)
    assert code == 1
    one_line_error(err, "no window can open here", "DISPLAY")


# --- item 2: every job accounted for -------------------------------------------------------------
BSP_HEADER = "job_id,submit,tasks,base_time,sigma,task_bw,time_limit\n"


@pytest.mark.parametrize(
    ("scheduler", "never_ran"),
    [("fcfs", [2, 4]), ("easy", [2, 4]), ("coalloc", [4])],
)
def test_bsp_jobs_that_can_never_run_are_dropped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scheduler: str, never_ran: list[int]
) -> None:
    """On two clusters of 4 and 2 cores: job 2 (5 tasks) fits no single cluster, so only a
    co-allocating policy runs it; job 4 (7 tasks) is larger than the whole platform."""
    platform = tmp_path / "two.toml"
    platform.write_text(TWO_CLUSTERS)
    workload = tmp_path / "w.csv"
    workload.write_text(
        BSP_HEADER + "1,0,2,60,1,0,100\n2,0,5,60,1,0,100\n3,1,1,60,1,0,100\n4,2,7,60,1,0,100\n"
    )
    out = tmp_path / "out"
    code, _, err = batchlab(capsys, "replay", workload, "-p", platform, "-s", scheduler, "-o", out)
    assert (code, err) == (0, "")
    with (out / "jobs.csv").open() as table:
        replayed = [int(row["job_id"]) for row in csv.DictReader(table)]
    assert sorted(replayed + never_ran) == [1, 2, 3, 4]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dropped"] == len(never_ran)
    assert summary["dropped_pending_partition_config"] == len(never_ran)


def test_run_fails_when_a_command_fails(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    commands = tmp_path / "c.txt"
    commands.write_text("sinfo\nsbatch -M nowhere --wrap true\nsqueue\n")
    code, out, err = batchlab(capsys, "run", commands)
    assert code == 1
    assert "$ squeue" in out  # the whole file ran
    one_line_error(err, "1 of 3 commands failed (line 2;")
    code, _, err = batchlab(capsys, "run", commands, "--allow-failures")
    assert (code, err) == (0, "")
    commands.write_text("# failing on purpose\n# allow-failures: yes\n" + commands.read_text())
    code, _, err = batchlab(capsys, "run", commands)
    assert (code, err) == (0, "")
    commands.write_text(commands.read_text().replace("failures: yes", "failures: maybe"))
    code, _, err = batchlab(capsys, "run", commands)
    assert code != 0
    one_line_error(err, "# allow-failures: maybe: say yes or no")


def test_run_reads_the_platform_from_the_header(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    commands = tmp_path / "c.txt"
    commands.write_text("# on the grid\n# platform: teaching-3sites\n\nsinfo -M east\n")
    code, out, err = batchlab(capsys, "run", commands)
    assert (code, err) == (0, "")
    assert "east" in out and "east[01-06]" in out
    code, _, err = batchlab(capsys, "run", commands, "--platform", "lab")  # the flag wins
    assert code == 1
    assert "failed" in err


def test_wait_with_an_argument_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    commands = tmp_path / "c.txt"
    commands.write_text("sinfo\nwait 1\n")
    code, _, err = batchlab(capsys, "run", commands)
    assert code == 1
    one_line_error(err, f"{commands}:2: wait takes no argument")


def test_run_help_documents_the_syntax(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    for word in ("# platform:", "@ 01:35:56", "sleep 90", "wait", "as alice", "<<EOF", "[exit N]"):
        assert word in text
    assert "commandfile.py" not in text


# --- item 3: shipped files by name, from anywhere; one default scheduler -------------------------
def test_shipped_files_by_name_from_anywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = batchlab(capsys, "run", "multi-cluster")  # its header: allow-failures
    assert (code, err) == (0, "")
    assert "north" in out
    code, _, err = batchlab(capsys, "run", "resources/commands/teaching-scenario.txt")
    assert (code, err) == (0, "")
    code, _, err = batchlab(capsys, "replay", "kth-sp2-first-2000", "-p", "kth-sp2", "-o", "o")
    assert (code, err) == (0, "")
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert (summary["platform"], summary["scheduler"]) == ("kth-sp2", "easy")


def test_unknown_names_list_what_is_shipped(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = batchlab(capsys, "run", "no-such-scenario")
    assert code == 1
    one_line_error(err, "no shipped command file 'no-such-scenario'", "teaching-scenario")


def test_replay_help_states_the_default_scheduler(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    assert "else easy" in " ".join(capsys.readouterr().out.split())


# --- item 4: extended SWF, jobs placed where the trace says --------------------------------------
def swf_line(job_id: int, size: int, partition: int, extra: str = "") -> str:
    fields = [job_id, job_id, -1, 50, size, -1, -1, size, 100, -1, 1, 1, 1, -1, 1, partition]
    fields += [-1, -1]
    return " ".join(map(str, fields)) + extra + "\n"


def test_extended_swf_placed_by_the_trace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Job 1 names right in its node specification, job 2 partition 1 (left), job 3 partition
    2 (right) but 3 cores, more than right has, job 4 a cluster the platform lacks."""
    platform = tmp_path / "two.toml"
    platform.write_text(TWO_CLUSTERS)
    trace = tmp_path / "alea.swf.gz"
    with gzip.open(trace, "wt") as out:
        out.write(swf_line(1, 1, -1, " -1 normal 1:ppn=1:cl_right"))
        out.write(swf_line(2, 2, 1, " -1 normal 1:ppn=2"))
        out.write(swf_line(3, 3, 2, " -1 long 1:ppn=3"))
        out.write(swf_line(4, 1, -1, " -1 long 1:ppn=1:cl_elsewhere"))
    out_dir = tmp_path / "out"
    code, _, err = batchlab(
        capsys, "replay", trace, "-p", platform, "--place", "trace", "-o", out_dir, "-q"
    )
    assert code == 0
    assert err == (
        "batchlab: alea.swf.gz: 21 fields per job (extended SWF): fields 19-21 are ignored, "
        "but for the cluster (cl_NAME in field 21), and copied to schedule.swf\n"
    )
    with (out_dir / "jobs.csv").open() as table:
        placed = {int(row["job_id"]): row["cluster"] for row in csv.DictReader(table)}
    assert placed == {1: "right", 2: "left"}
    summary = json.loads((out_dir / "summary.json").read_text())
    assert (summary["dropped_too_large"], summary["dropped_no_cluster"]) == (1, 1)
    schedule = (out_dir / "schedule.swf").read_text().splitlines()
    assert [line.split()[18:] for line in schedule] == [  # the replayed jobs' extended fields
        ["-1", "normal", "1:ppn=1:cl_right"],
        ["-1", "normal", "1:ppn=2"],
    ]


def test_daemon_and_window_feeds_take_shipped_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from emulator.daemon.emulation import Feed
    from resources import command_path

    feed = Feed.given(False, "kth-sp2-first-2000", "teaching-scenario")
    assert (feed.workload, feed.commands) == (SHIPPED_TRACE, command_path("teaching-scenario"))
    missing = tmp_path / "mine.swf"  # neither a file nor a shipped name: said when read
    assert Feed.given(False, str(missing), None).workload == missing
    # a relative path is made absolute before a detached daemon moves to /
    monkeypatch.chdir(tmp_path)
    assert Feed.given(False, "mine.swf", "c.txt") == Feed(False, missing, tmp_path / "c.txt")


# --- a newcomer's pass (issue 24, last loose ends) -------------------------------------------
def test_workload_generate_into_a_missing_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An OSError is main's to say, as file and reason (it was ``[Errno 2] ...``)."""
    out = tmp_path / "missing" / "jobs.csv"
    code, _, err = batchlab(capsys, "workload", "generate", "-n", "3", "-p", "lab", "-o", out)
    assert code == 1
    assert err == f"batchlab: error: {out}: No such file or directory\n"


def test_unknown_command_file_is_named_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = batchlab(capsys, "run", "no-such-scenario")
    assert code == 1
    one_line_error(err, "batchlab: error: no such command file: no-such-scenario (no shipped")


def test_sweep_specs_by_name_or_repository_path_from_anywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/experiments.md's ``batchlab sweep resources/experiments/oas-slot-size.toml`` works
    outside the repository, as every shipped file named with its folders does."""
    from emulator.sweep.cli import _load

    monkeypatch.chdir(tmp_path)
    for text in ("resources/experiments/oas-slot-size.toml", "oas-slot-size.toml", "oas-slot-size"):
        assert _load(text).experiment == "oas-slot-size"
    code, _, err = batchlab(capsys, "sweep", "mine.toml", "--out", "o")
    assert code == 1
    one_line_error(err, "no such sweep spec file: mine.toml (no shipped sweep spec 'mine.toml'")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert (done.value.code, capsys.readouterr().out) == (0, f"batchlab {version('batchlab')}\n")


def test_a_replay_that_drops_every_job(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Every job larger than the platform: an empty schedule and all of them counted (was an
    IndexError while writing schedule.swf)."""
    trace = tmp_path / "wide.swf"
    trace.write_text(swf_line(1, 8, -1) + swf_line(2, 9, -1))
    code, out, err = batchlab(capsys, "replay", trace, "--cores", "4", "-o", tmp_path / "o")
    assert (code, err) == (0, "")
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["dropped_too_large"] == 2
    table = out.splitlines()  # the reason under "dropped", its count in the values' column
    assert table[2:4] == [f"  dropped{2:>31}", f"    too large{2:>27}"]
    assert (tmp_path / "o" / "schedule.swf").read_text() == ""


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["replay", "kth-sp2-first-2000", "-p", "{bin}", "-o", "o"], "{bin}"),
        (["replay", "{bin}.csv", "-p", "lab", "-o", "o"], "{bin}.csv"),
        (["sweep", "{bin}", "--out", "o"], "{bin}"),
        (["run", "{bin}.txt"], "{bin}.txt"),
    ],
    ids=["platform", "bsp-csv", "sweep-spec", "command-file"],
)
def test_a_binary_file_where_text_is_expected(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    named: str,
) -> None:
    """Was a UnicodeDecodeError traceback for each."""
    monkeypatch.chdir(tmp_path)
    junk = bytes(range(128, 256)) * 3
    for name in ("junk.toml", "junk.toml.csv", "junk.toml.txt"):
        (tmp_path / name).write_bytes(junk)
    code, _, err = batchlab(capsys, *(arg.format(bin="junk.toml") for arg in argv))
    assert code == 1
    one_line_error(err, f"batchlab: error: {named.format(bin='junk.toml')}: not UTF-8 text (")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("# platform: nosuch", "no such platform file: nosuch (no shipped platform"),
        ("# scheduler: nosuch", "unknown scheduler 'nosuch'"),
    ],
)
def test_a_bad_header_line_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, said: str
) -> None:
    """The reader learns the value came from the file's header, not the command line."""
    commands = tmp_path / "lesson.txt"
    commands.write_text(f"{line}\nsinfo\n")
    code, _, err = batchlab(capsys, "run", commands)
    assert code == 1
    one_line_error(err, f"batchlab: error: {commands}: its '{line}' line: {said}")
    key = line.split()[1].rstrip(":")
    code, _, err = batchlab(capsys, "run", commands, f"--{key}", "nosuch")  # given: no header
    assert code == 1 and "its '#" not in err and said in err


def test_shims_into_a_file_names_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    code, _, err = batchlab(capsys, "shims", not_a_directory)
    assert code == 1
    one_line_error(err, f"batchlab: error: {not_a_directory}: File exists")
