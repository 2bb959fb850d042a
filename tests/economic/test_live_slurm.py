"""Economic jobs through Slurm's front ends and the replay's outputs (issue 18, deliverable 3):
``sbatch --min-speed/--price-cap/--budget``, ``scontrol show job``'s economic line, the CSV
columns, and the cost in ``jobs.csv`` and ``summary.json`` on a priced platform only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.cli import main
from emulator.model.job import Economic, JobState
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from emulator.replay import replay, result_files
from emulator.session import Session
from emulator.slurmctld import Controller
from resources import platform_path
from workloads.bsp_csv import BspCsvError, read_bsp_csv

ROOT = Path(__file__).resolve().parents[2]
TEACHING = load_platform(platform_path("teaching-3sites"))  # north 1.7, east 2.217, south 1.489


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["--min-speed=0"], "min-speed"),
        (["--min-speed=fast"], "min-speed"),
        (["--price-cap=-1"], "price-cap"),
        (["--price-cap=inf"], "price-cap"),
        (["--budget=x"], "budget"),
    ],
)
def test_bad_economic_options_are_refused_in_one_line(argv: list[str], option: str) -> None:
    result = Controller(TEACHING, "amp").execute(["sbatch", *argv, "--wrap", "true"])
    assert (result.stderr, result.exit_code) == (
        f"sbatch: error: Invalid --{option} specification\n",
        255,
    )


def test_sbatch_options_make_the_economic_request() -> None:
    ctl = Controller(TEACHING, "alp")
    argv = ["sbatch", "--min-speed=1.2", "--price-cap", "2.5", "--budget=9e4", "--wrap", "true"]
    assert ctl.execute(argv).exit_code == 0
    assert ctl.engine.jobs[1].request.economic == Economic(1.2, 2.5, 90000.0)
    assert Controller(TEACHING, "alp").execute(["sbatch", "--wrap", "true"]).exit_code == 0


def test_sbatch_help_lists_the_options_as_batchlab_extensions() -> None:
    text = Controller(TEACHING, "amp").execute(["sbatch", "--help"]).stdout
    extensions = text[text.index("batchlab extensions") :]
    for option in ("--min-speed=speed", "--price-cap=price", "--budget=cost"):
        assert option in extensions


def test_the_command_file_shows_the_window_the_request_and_the_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = ROOT / "resources/commands/economic.txt"
    argv = ["run", str(commands), "--platform", "teaching-3sites", "-s", "amp:cycle=0"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    # 8 east cores (speed 1.5, 2.217 a core-second) at 0 for 3600 / 1.5: 42566.4; six windows
    # of 8 east cores fit before the horizon 3600 / 0.75 (three at 0, three at 2400)
    assert (
        "   Explanation=AMP: 8 slots on east[01-02] at 00:00:00, cost 42566.4 within budget "
        "70000.0 (best of 6 alternatives, minimising time)\n"
    ) in out
    # after 2 s: 8 x 2.217 x 2 = 35.472; at the end (1800 / 1.5 = 1200 s): 21283.2
    assert "   MinSpeed=1.2 PriceCap=(null) Budget=70000.0 Cost=35.5\n" in out
    assert "   MinSpeed=1.2 PriceCap=(null) Budget=70000.0 Cost=21283.2\n" in out
    assert "sbatch: error: Invalid --min-speed specification\n" in out
    assert "   3  never  F \n" in out  # no node of speed 5: rejected


CSV = """job_id,submit,tasks,base_time,sigma,task_bw,time_limit,min_speed,price_cap,budget
1,0,16,1800,1,0,3600,,,
2,0,8,3000,1,0,3600,1.2,2.3,
3,30,4,900,1,0,1800,,,20000
"""


def test_a_replay_on_a_priced_platform_records_each_job_cost(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text(CSV)
    files = result_files(replay(read_bsp_csv(path), TEACHING, "amp"), {})
    rows = files["jobs.csv"].splitlines()
    assert rows[0].endswith(",state,cost")
    # 1: 16 north cores for 1800 s: 16 x 1.7 x 1800; 2: 8 east cores for 3000 / 1.5 s
    assert rows[1] == "1,0,0,1800,north,16,COMPLETED,48960"
    assert rows[2] == "2,0,0,2000,east,8,COMPLETED,35472"
    # 3 waits for the next cycle (60) and takes one east node: 4 x 2.217 x 900 / 1.5
    assert rows[3] == "3,30,60,660,east,4,COMPLETED,5320.8"
    summary = json.loads(files["summary.json"])
    assert summary["cost"] == {"total": 89752.8, "per_job": 29917.6}
    again = result_files(replay(read_bsp_csv(path), TEACHING, "amp"), {})
    assert again == files  # byte for byte


def test_an_unpriced_platform_keeps_its_outputs_without_costs(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text(CSV)
    files = result_files(replay(read_bsp_csv(path), Platform.single_cluster(32), "amp"), {})
    assert files["jobs.csv"].splitlines()[0] == "job_id,submit,start,end,cluster,cores,state"
    assert "cost" not in json.loads(files["summary.json"])


def test_the_csv_columns_make_the_economic_request(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text(CSV)
    requests = [item.request.economic for item in read_bsp_csv(path)]
    assert requests == [None, Economic(1.2, 2.3, None), Economic(0.0, None, 20000.0)]


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ("0,,", "min_speed must be > 0"),
        (",-1,", "price_cap must be >= 0"),
        (",,abc", "budget is not a number"),
    ],
)
def test_bad_economic_cells_name_the_file_and_line(
    tmp_path: Path, cells: str, message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(CSV.splitlines()[0] + "\n" + f"1,0,1,10,1,0,10,{cells}\n")
    with pytest.raises(BspCsvError, match=f"{path}:2: {message}"):
        list(read_bsp_csv(path))


def test_the_window_is_in_the_snapshot_the_gantt_draws() -> None:
    # one batch at 0: job 1 gets 8 east cores at 0, job 2 the next 8; job 3 needs all 24 east
    # cores (speed >= 1.2), free when jobs 1 and 2 reach their limit (3600 / 1.5 = 2400): it
    # is reserved there, on east[01-06], and the window's reservation is what the Gantt draws.
    # Round 2 leaves it no second window before the horizon 2400 + 3600 / 0.75 = 7200: job 1
    # takes east[05-06] at 0 and job 2 east[01-02] at 4800 first. One alternative
    session = Session(TEACHING, "amp:cycle=0")
    for cores in (8, 8, 24):
        command = f'sbatch -n {cores} -t 60 --min-speed 1.2 --wrap "sleep 1800"'
        assert session.command(command).exit_code == 0
    session.advance(1)
    jobs = session.snapshot().jobs
    row = jobs.id.tolist().index(3)
    assert jobs.state_of(row) is JobState.PENDING and jobs.planned_start[row] == 2400.0
    names = [TEACHING.nodes[n].name for n in jobs.planned_nodes[row]]
    assert names == [f"east0{i}" for i in range(1, 7)]
    assert jobs.explanation[row] == (
        "AMP: 24 slots on east[01-06] at 00:40:00, cost 127699.2 "
        "(the only alternative, minimising time)"
    )
