"""The controller's own rules: never raising, permissions, ids, accounting, the runner's syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli import main
from emulator.commandfile import CommandFile, CommandFileError
from emulator.model.platform_file import load_platform
from emulator.shell import parse_sleep
from emulator.slurmctld import Accounting, Controller

ROOT = Path(__file__).resolve().parents[2]
LAB = load_platform(ROOT / "resources/platforms/lab.toml")


def controller(**kwargs: object) -> Controller:
    return Controller(LAB, "easy", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "argv",
    [
        ["sbatch"],
        ["sbatch", "--frobnicate"],
        ["sbatch", "nosuch.sh"],
        ["sbatch", "-a", "5-2", "--wrap", "x"],
        ["squeue", "-t", "WHAT"],
        ["squeue", "-j", "abc"],
        ["scancel"],
        ["scancel", "12_[x]"],
        ["scontrol"],
        ["scontrol", "show"],
        ["scontrol", "update", "JobId=1", "Frob=2"],
        ["scontrol", "hold", "77"],
        ["sacct", "-o", "Nope"],
        ["sacct", "-S", "garbage"],
        ["sinfo", "-M", "nowhere"],
        ["nosuchcommand"],
    ],
)
def test_bad_input_is_a_message_not_an_exception(argv: list[str]) -> None:
    result = controller().execute(argv, user="root", env={}, stdin=None, cwd="/tmp")
    assert result.exit_code != 0
    assert result.stderr or result.stdout


def test_users_may_only_touch_their_own_jobs() -> None:
    ctl = controller()
    ctl.execute(["sbatch", "--wrap", "sleep 100"], user="alice", cwd="/home/alice")
    denied = ctl.execute(["scancel", "1"], user="bob")
    assert denied.exit_code == 1
    assert "Access/permission denied" in denied.stderr
    assert ctl.execute(["scontrol", "hold", "1"], user="bob").exit_code == 1
    assert ctl.execute(["scontrol", "hold", "1"], user="alice").exit_code == 0
    squeue = ctl.execute(["squeue", "-h", "-o", "%i %r"], user="alice")
    assert squeue.stdout == "1 JobHeldUser\n"
    assert ctl.execute(["scontrol", "release", "1"], user="root").exit_code == 0
    assert ctl.execute(["scancel", "1"], user="root").exit_code == 0


def test_array_tasks_take_ids_when_they_start() -> None:
    ctl = controller()
    ctl.execute(["sbatch", "--array=0-3%2", "--wrap", "sleep 60"])
    ctl.execute(["sbatch", "--wrap", "sleep 60"])
    ctl.advance(1)
    ids = ctl.execute(["squeue", "-h", "-O", "jobid:6,jobarrayid:10"]).stdout.split()
    assert ids == ["1", "1_[2-3%2]", "3", "1_0", "4", "1_1", "2", "2"]
    assert ctl.execute(["sbatch", "--parsable", "--wrap", "true"]).stdout == "5\n"


def test_wait_option_returns_the_exit_code() -> None:
    ctl = controller()
    result = ctl.execute(["sbatch", "-W", "--wrap", "sleep 30\nexit 3"])
    assert result.exit_code == 3
    assert ctl.now == 30


def test_sacct_reads_without_writing_and_close_writes_everything() -> None:
    ctl = controller()
    ctl.execute(["sbatch", "--wrap", "sleep 5"])
    ctl.execute(["sbatch", "--wrap", "sleep 50"])
    ctl.execute(["sbatch", "-n", "64", "--wrap", "sleep 5"])  # pends
    ctl.advance(10)
    rows = "SELECT job_id, state FROM jobs ORDER BY job_id"
    changes = ctl.accounting.db.total_changes
    shown = ctl.execute(["sacct", "-X", "-n", "-P", "-o", "JobID,State"]).stdout
    assert shown == "1|COMPLETED\n2|RUNNING\n3|PENDING\n"
    assert ctl.accounting.db.total_changes == changes  # a read writes nothing
    assert ctl.accounting.db.execute(rows).fetchall() == []
    ctl.sync()
    stored = [(1, "COMPLETED"), (2, "RUNNING"), (3, "PENDING")]
    assert ctl.accounting.db.execute(rows).fetchall() == stored
    ctl.advance(100)  # job 2 ends: its stored row is stale, the record is read instead
    shown = ctl.execute(["sacct", "-X", "-n", "-P", "-o", "JobID,State"]).stdout
    assert shown.splitlines()[:2] == ["1|COMPLETED", "2|COMPLETED"]


def test_accounting_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "acct.db"
    ctl = controller(accounting=Accounting(path))
    ctl.execute(["sbatch", "--wrap", "sleep 10"])
    ctl.execute(["sbatch", "--wrap", "exit 4"])
    ctl.wait()
    expected = ctl.execute(["sacct", "-X", "-P"]).stdout
    ctl.execute(["sbatch", "--wrap", "sleep 20"])
    ctl.wait()  # ended after the last read: close() writes it
    ctl.close()
    again = controller(accounting=Accounting(path))
    assert again.execute(["sacct", "-X", "-P"]).stdout == expected
    assert "FAILED|4:0" in expected
    states = again.accounting.db.execute("SELECT job_id, state FROM jobs ORDER BY job_id")
    assert states.fetchall() == [(1, "COMPLETED"), (2, "FAILED"), (3, "COMPLETED")]
    assert again.execute(["sbatch", "--parsable", "--wrap", "true"]).stdout == "4\n"


def test_command_file_syntax() -> None:
    text = """# comment
cd /work
cat > job.sh <<'EOF'
#!/bin/sh
#SBATCH -J fromfile
sleep 60
EOF
export SBATCH_PARTITION=short
as alice sbatch job.sh
sbatch <<EOF
#!/bin/sh
sleep 5
EOF
unset SBATCH_PARTITION
@ 00:00:10
as bob
squeue -t all -o "%i %j %u %P %t"
wait
"""
    session = CommandFile(controller())
    out = session.run(text)
    assert "alice$ sbatch job.sh\nSubmitted batch job 1\n" in out
    assert "$ sbatch <<EOF\n> #!/bin/sh\n> sleep 5\n> EOF\nSubmitted batch job 2\n" in out
    assert "bob$ squeue" in out
    assert "1 fromfile alice short R\n" in out
    assert "2 sbatch root short CD\n" in out  # ended at 5 s, shown for MinJobAge
    assert session.controller.now == 60
    assert [s.user for s in session.steps] == ["alice", "root", "bob"]


def test_command_file_errors() -> None:
    with pytest.raises(CommandFileError, match="here-document"):
        CommandFile(controller()).run("sbatch <<EOF\n#!/bin/sh\n")
    with pytest.raises(CommandFileError, match="before the current time"):
        CommandFile(controller()).run("@ 01:00:00\n@ 00:30:00\n")
    assert parse_sleep("5m") == 300
    assert parse_sleep("1:00:00") == 3600


def test_cli_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "session.txt"
    script.write_text('sbatch --wrap "sleep 5"\nsleep 1\nsqueue -h -o "%i %t"\n')
    assert main(["run", str(script)]) == 0
    assert capsys.readouterr().out.endswith('$ squeue -h -o "%i %t"\n1 R\n')
    assert main(["run", str(script), "--platform", "teaching-3sites", "-s", "fcfs"]) == 0
    assert main(["run", str(tmp_path / "missing.txt")]) == 1
