"""Node choice (the select plugin's rule) on hand-made free-core vectors of the lab cluster."""

from __future__ import annotations

from pathlib import Path

from emulator.model.job import Request
from emulator.model.node_choice import NodeChoice
from emulator.model.platform_file import load_platform

LAB = load_platform(Path(__file__).resolve().parents[1] / "resources/platforms/lab.toml")
CHOICE = NodeChoice(LAB.clusters[0])


def place(request: Request, free: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    return CHOICE.place(request, free, bytearray(1 if cores else 0 for cores in free))


def test_a_node_too_full_for_its_share_of_whole_node_tasks_is_passed_over() -> None:
    # -N 3 --ntasks-per-node=4 with node01 3/4 free: real Slurm ran it on node[02-04]
    request = Request(tasks=12, min_nodes=3, tasks_per_node=4)
    assert place(request, [3, 4, 4, 4]) == ((1, 2, 3), (4, 4, 4))
    assert place(request, [3, 4, 4, 3]) is None


def test_plain_tasks_stay_on_one_node_when_one_holds_them() -> None:
    # arrays.json: 2 cores used on node01, each -n 4 task on a node of its own
    assert place(Request(tasks=4), [2, 4, 4, 4]) == ((1,), (4,))
    assert place(Request(tasks=2), [2, 4, 4, 4]) == ((0,), (2,))


def test_plain_tasks_take_the_lowest_free_cores_and_refuse_what_does_not_fit() -> None:
    assert place(Request(tasks=5), [0, 2, 4, 4]) == ((1, 2), (2, 3))
    assert place(Request(tasks=11), [0, 2, 4, 4]) is None


def test_exclusive_takes_idle_nodes_whole() -> None:
    assert place(Request(tasks=1, exclusive=True), [3, 4, 4, 4]) == ((1,), (4,))
