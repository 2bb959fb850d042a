"""Partitions in a platform file: the nodes they name, their defaults and time limits, and the
errors naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.model.platform_file import PlatformError, load_platform
from tests.test_platform import assert_field, base, write


def test_partition_naming_an_unknown_node(tmp_path: Path) -> None:
    text = base(partition='nodes = "a[1-5]"')
    assert_field(tmp_path, text, "clusters[0].partitions[0].nodes", "unknown node 'a5'")


def test_partition_naming_a_node_of_another_cluster(tmp_path: Path) -> None:
    text = base() + (
        '\n[[clusters]]\nname = "b"\n\n[[clusters.nodes]]\nnames = "b1"\ncores = 1\n'
        '\n[[clusters.partitions]]\nname = "q"\nnodes = "b1,a1"\n'
    )
    assert_field(tmp_path, text, "clusters[1].partitions[0].nodes", "unknown node 'a1'")


def test_partition_naming_a_node_twice(tmp_path: Path) -> None:
    path = write(tmp_path, base(partition='nodes = "a[1-3],a1"'))
    try:
        part = load_platform(path).clusters[0].partitions[0]
    except PlatformError as error:
        assert str(error).startswith(f"{path}: clusters[0].partitions[0].nodes: ")
    else:
        assert part.nodes == (0, 1, 2)


def test_duplicate_partition_name(tmp_path: Path) -> None:
    text = base() + '\n[[clusters.partitions]]\nname = "batch"\nmax_time = "10"\n'
    assert_field(tmp_path, text, "clusters[0].partitions[1].name", "'batch'")


def test_two_default_partitions(tmp_path: Path) -> None:
    text = base() + '\n[[clusters.partitions]]\nname = "short"\ndefault = true\n'
    assert_field(tmp_path, text, "clusters[0].partitions", "more than one", "default")


def test_default_must_be_boolean(tmp_path: Path) -> None:
    text = base().replace("default = true", 'default = "yes"', 1)
    assert_field(tmp_path, text, "clusters[0].partitions[0].default", "true or false")


@pytest.mark.parametrize("value", ['"2 days"', '"1:2:3:4"', '"1-"', '"abc"', "1.5", '""'])
def test_bad_max_time(tmp_path: Path, value: str) -> None:
    text = base(partition=f"max_time = {value}")
    assert_field(
        tmp_path, text, "clusters[0].partitions[0].max_time", "Invalid time limit specification"
    )


def test_bad_default_time(tmp_path: Path) -> None:
    text = base(partition='default_time = "soon"')
    assert_field(tmp_path, text, "clusters[0].partitions[0].default_time", "'soon'")
