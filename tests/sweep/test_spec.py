"""Sweep specs: grid expansion, the quick subset, and FILE:LINE errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.sweep.model import PlotKind
from emulator.sweep.spec import SweepSpecError, load_spec, parse_spec

SPECS = Path(__file__).resolve().parents[2] / "resources" / "experiments"

GOOD = """\
experiment = "sleep"
title = "A test sweep"
seeds = { first = 10, count = 2 }

[grid]
policy = ["fcfs", "easy"]
load = [0.5, 1]
fixed = "yes"

[[grid.zip]]
trace = ["kth", "nasa"]
nodes = [100, 128]

[quick]
policy = "easy"
seeds = [11]

[[table]]
title = "Waits"
rows = ["policy"]
metrics = ["wait"]

[[plot]]
file = "waits.png"
title = "Waits"
x = "load"
y = ["wait"]
series = "policy"

[paper]
citation = "Someone, 2012"
claims = ["EASY wins."]

[[paper.figure]]
where = { policy = "easy", trace = "kth" }
metric = "wait"
value = 12.5
"""


def parse(text: str) -> object:
    return parse_spec(text, Path("spec.toml"))


def test_the_grid_is_the_product_of_axes_and_zipped_groups() -> None:
    spec = parse_spec(GOOD, Path("spec.toml"))
    cells = spec.cells()
    assert len(cells) == 2 * 2 * 2 * 2  # policy × load × (trace, nodes) zipped × seeds
    first = cells[0]
    assert first.param_dict() == {
        "fixed": "yes",
        "load": 0.5,
        "nodes": 100,
        "policy": "fcfs",
        "trace": "kth",
    }
    assert [c.seed for c in cells[:2]] == [10, 11]
    zipped = {(c.param_dict()["trace"], c.param_dict()["nodes"]) for c in cells}
    assert zipped == {("kth", 100), ("nasa", 128)}
    assert len({c.key for c in cells}) == len(cells)
    assert spec.parameters() == ("fixed", "load", "nodes", "policy", "trace")


def test_the_quick_subset_filters_the_full_grid() -> None:
    spec = parse_spec(GOOD, Path("spec.toml"))
    quick = spec.cells(quick=True)
    assert len(quick) == 4
    assert all(c.param_dict()["policy"] == "easy" and c.seed == 11 for c in quick)
    assert {c.key for c in quick} <= {c.key for c in spec.cells()}


def test_report_sections_are_parsed() -> None:
    spec = parse_spec(GOOD, Path("spec.toml"))
    assert spec.tables[0].rows == ("policy",)
    plot = spec.plots[0]
    assert (plot.kind, plot.x, plot.y, plot.series) == (
        PlotKind.LINE,
        "load",
        ("wait",),
        ("policy",),
    )
    assert spec.paper is not None
    assert spec.paper.figures[0].value == 12.5
    assert spec.paper.figures[0].where.matches({"policy": "easy", "trace": "kth"})
    assert not spec.paper.figures[0].where.matches({"policy": "fcfs", "trace": "kth"})


def test_grid_blocks_are_a_union() -> None:
    text = """experiment = "sleep"
title = "t"
[[grid]]
model = "fast"
eta = [1, 2, 3]
[[grid]]
model = "paper"
eta = [3]
"""
    cells = parse_spec(text, Path("s.toml")).cells()
    assert [(c.param_dict()["model"], c.param_dict()["eta"]) for c in cells] == [
        ("fast", 1),
        ("fast", 2),
        ("fast", 3),
        ("paper", 3),
    ]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('experiment = "x"\ntitle = "t"\n[grid]\na = 1 2\nb = 3\n', 4, "invalid TOML"),
        ('title = "t"\n[grid]\na = 1\n', 1, "missing required key 'experiment'"),
        ('experiment = "x"\ntitle = "t"\nsedes = [1]\n[grid]\na = 1\n', 3, "unknown key 'sedes'"),
        ('experiment = "x"\ntitle = "t"\n\n[grid]\na = 1\nb = []\n', 6, "empty list"),
        ('experiment = "x"\ntitle = "t"\n[grid]\nseed = [1]\n', 4, "reserved"),
        ('experiment = "x"\ntitle = "t"\n[grid]\na = [1, "x"]\n', 4, "mixes types"),
        (
            'experiment = "x"\ntitle = "t"\n[grid]\na = 1\n[[grid.zip]]\nb = [1, 2]\nc = [1]\n',
            5,
            "differ in length",
        ),
        ('experiment = "x"\ntitle = "t"\nseeds = [1, 1]\n[grid]\na = 1\n', 3, "seed twice"),
        ('experiment = "x"\ntitle = "t"\n[grid]\na = [1, 2]\n[quick]\nb = 1\n', 6, "'b' is not"),
        ('experiment = "x"\ntitle = "t"\n[grid]\na = [1, 2]\n[quick]\na = 3\n', 6, "never occur"),
        (
            'experiment = "x"\ntitle = "t"\n[grid]\na = [1, 2]\n\n[[table]]\ntitle = "T"\n'
            'rows = ["z"]\nmetrics = ["m"]\n',
            8,
            "'z' is not a parameter",
        ),
        (
            'experiment = "x"\ntitle = "t"\n[grid]\na = [1]\n[[plot]]\nfile = "p.png"\n'
            'title = "P"\nx = "a"\ny = ["m"]\nkind = "pie"\n',
            10,
            "kind must be",
        ),
        (
            'experiment = "x"\ntitle = "t"\n[grid]\na = [1]\n[[plot]]\nfile = "../p.png"\n'
            'title = "P"\nx = "a"\ny = ["m"]\n',
            6,
            "plain NAME.png",
        ),
        (
            'experiment = "x"\ntitle = "t"\n[[grid]]\na = [1]\n[[grid]]\na = 1\n',
            5,
            "cell",
        ),
        (
            'experiment = "x"\ntitle = "t"\n[grid]\na = 1\n[paper]\ncitation = "c"\n'
            '[[paper.figure]]\nmetric = "m"\nvalue = "high"\n',
            9,
            "value must be",
        ),
    ],
)
def test_malformed_specs_name_file_and_line(text: str, line: int, words: str) -> None:
    with pytest.raises(SweepSpecError) as caught:
        parse(text)
    message = str(caught.value)
    assert message.startswith(f"spec.toml:{line}: "), message
    assert words in message
    assert "\n" not in message


def test_an_unreadable_spec_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SweepSpecError, match=r"missing\.toml: cannot read"):
        load_spec(tmp_path / "missing.toml")


@pytest.mark.parametrize("path", sorted(SPECS.glob("*.toml")), ids=lambda p: p.stem)
def test_shipped_specs_load(path: Path) -> None:
    spec = load_spec(path)
    assert spec.cells() and spec.cells(quick=True)


def test_the_example_spec_of_the_docs_parses() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "experiments.md").read_text()
    example = docs.split("```toml\n")[2].split("```")[0]  # the first block is the entry point
    spec = parse_spec(example, Path("docs-example.toml"))
    assert spec.experiment == "oas-slot-size"
    assert len(spec.cells()) == 2 * 5 * 2  # model × eta_percent × the zipped (workload, nodes)
    assert spec.paper is not None and spec.paper.figures[0].value == 70.0
