"""Platform files: the shipped platforms load with their documented numbers (models.md §1), and
every validation error names the file and the field (emulator/model/platform_file.py)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from emulator.model.platform import Platform
from emulator.model.platform_file import PlatformError, load_platform
from resources import platform_path

PLATFORMS = Path(__file__).resolve().parent.parent / "resources" / "platforms"

# name -> (bandwidth unit, [(cluster, nodes, cores per node, speed, link capacity, first, last)])
# cluster, nodes, cores per node, speed (or the speeds of a mixed site), link, first, last node
ClusterRow = tuple[str, int, int, float | tuple[float, ...], float, str, str]
SHIPPED: dict[str, tuple[str, list[ClusterRow]]] = {
    "oas-testbed": (
        "Gbit/s",
        [
            ("c0", 2, 1, 1.0, 1.0, "c0n0", "c0n1"),
            ("c1", 2, 1, 0.75, 1.0, "c1n0", "c1n1"),
            ("c2", 2, 1, 0.5, 1.0, "c2n0", "c2n1"),
        ],
    ),
    "g5k-3sites": (
        "Gbit/s",
        [
            ("bordeaux", 640, 1, 1.0, math.inf, "bordeaux-001", "bordeaux-640"),
            ("lyon", 270, 1, 1.2, math.inf, "lyon-001", "lyon-270"),
            ("toulouse", 434, 1, 1.4, math.inf, "toulouse-001", "toulouse-434"),
        ],
    ),
    "g5k-3sites-homogeneous": (
        "Gbit/s",
        [
            ("bordeaux", 640, 1, 1.0, math.inf, "bordeaux-001", "bordeaux-640"),
            ("lyon", 270, 1, 1.0, math.inf, "lyon-001", "lyon-270"),
            ("toulouse", 434, 1, 1.0, math.inf, "toulouse-001", "toulouse-434"),
        ],
    ),
    "pwa-g5k": (
        "Gbit/s",
        [
            ("bordeaux", 640, 1, 1.0, math.inf, "bordeaux-001", "bordeaux-640"),
            ("ctc", 430, 1, 1.2, math.inf, "ctc-001", "ctc-430"),
            ("sdsc", 128, 1, 1.4, math.inf, "sdsc-001", "sdsc-128"),
        ],
    ),
    "pwa-g5k-homogeneous": (
        "Gbit/s",
        [
            ("bordeaux", 640, 1, 1.0, math.inf, "bordeaux-001", "bordeaux-640"),
            ("ctc", 430, 1, 1.0, math.inf, "ctc-001", "ctc-430"),
            ("sdsc", 128, 1, 1.0, math.inf, "sdsc-001", "sdsc-128"),
        ],
    ),
    "kth-sp2": ("Gbit/s", [("kth-sp2", 100, 1, 1.0, math.inf, "n001", "n100")]),
    "lab": ("Gbit/s", [("lab", 4, 4, 1.0, math.inf, "node01", "node04")]),
    "lab-gpu": ("Gbit/s", [("lab", 4, 4, 1.0, math.inf, "node01", "node04")]),
    "teaching-3sites": (
        "Gbit/s",
        [
            ("north", 8, 4, 1.0, 10.0, "north01", "north08"),
            ("east", 6, 4, 1.5, 10.0, "east01", "east06"),
            ("south", 4, 4, 0.75, 5.0, "south01", "south04"),
        ],
    ),
    "bpu-3sites": (  # mixed speeds inside each site: the set of its speeds
        "Gbit/s",
        [
            ("north", 20, 1, (2.0, 1.5, 1.0), math.inf, "north01", "north20"),
            ("south", 24, 1, (2.5, 1.5, 1.0), math.inf, "south01", "south24"),
            ("east", 24, 1, (2.0, 1.25, 1.0), math.inf, "east01", "east24"),
        ],
    ),
}


# --- shipped platforms -----------------------------------------------------------------------


def test_every_shipped_file_is_listed_here_and_in_the_readme() -> None:
    stems = sorted(path.stem for path in PLATFORMS.glob("*.toml"))
    assert stems == sorted(SHIPPED)
    readme = (PLATFORMS / "README.md").read_text(encoding="utf-8")
    for stem in stems:
        assert f"`{stem}.toml`" in readme


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_platform_loads_with_documented_numbers(name: str) -> None:
    path = platform_path(name)
    assert path == PLATFORMS / f"{name}.toml"
    assert path.read_text(encoding="utf-8").startswith("# ")  # says where it comes from
    platform = load_platform(path)
    unit, expected = SHIPPED[name]
    assert platform.name == name
    assert platform.bandwidth_unit == unit
    got = [
        (
            c.name,
            len(c.nodes),
            {n.cores for n in c.nodes},
            {n.speed for n in c.nodes},
            c.link_capacity,
            c.nodes[0].name,
            c.nodes[-1].name,
        )
        for c in platform.clusters
    ]
    want = [
        (c, n, {k}, set(s) if isinstance(s, tuple) else {s}, link, first, last)
        for c, n, k, s, link, first, last in expected
    ]
    assert got == want
    assert platform.cores == sum(n * k for _, n, k, *_ in expected)
    assert [node.id for node in platform.nodes] == list(range(len(platform.nodes)))


@pytest.mark.parametrize(
    ("name", "cores"),
    [
        ("oas-testbed", 6),
        ("g5k-3sites", 1344),
        ("g5k-3sites-homogeneous", 1344),
        ("pwa-g5k", 1198),
        ("pwa-g5k-homogeneous", 1198),
        ("kth-sp2", 100),
        ("lab", 16),
        ("lab-gpu", 16),
        ("teaching-3sites", 72),
        ("bpu-3sites", 68),
    ],
)
def test_shipped_platform_total_cores(name: str, cores: int) -> None:
    assert load_platform(platform_path(name)).cores == cores


def test_lab_mirrors_the_reference_slurm_conf() -> None:
    lab = load_platform(platform_path("lab"))
    (cluster,) = lab.clusters
    assert [(n.name, n.cores, n.memory_mb, n.speed) for n in cluster.nodes] == [
        (f"node0{i}", 4, 4000, 1.0) for i in range(1, 5)
    ]
    batch, short = cluster.partitions
    assert (batch.name, batch.nodes, batch.default, batch.max_time, batch.default_time) == (
        "batch",
        (0, 1, 2, 3),
        True,
        172800.0,
        3600.0,
    )
    assert (short.name, short.nodes, short.default, short.max_time, short.default_time) == (
        "short",
        (0, 1, 2, 3),
        False,
        3600.0,
        None,
    )
    assert cluster.default_partition is batch
    assert cluster.partition("short") is short
    assert cluster.partition("debug") is None


def test_teaching_platform_prices_follow_the_list_price() -> None:
    platform = load_platform(platform_path("teaching-3sites"))
    for cluster in platform.clusters:
        for node in cluster.nodes:
            assert node.price == pytest.approx(1.7**node.speed, abs=5e-4)
            assert node.memory_mb > 0
        assert cluster.default_partition.name == "batch"
        assert cluster.default_partition.max_time == 86400.0


def test_kth_platform_matches_single_cluster_trace_platform() -> None:
    shipped = load_platform(platform_path("kth-sp2"))
    built = Platform.single_cluster(100)
    assert [(n.name, n.cores, n.speed) for n in shipped.nodes] == [
        (n.name, n.cores, n.speed) for n in built.nodes
    ]


def test_platform_path_unknown_name_lists_available() -> None:
    with pytest.raises(FileNotFoundError) as info:
        platform_path("g5k")
    message = str(info.value)
    assert "'g5k'" in message
    for stem in SHIPPED:
        assert stem in message


# --- defaults of the format ------------------------------------------------------------------

MINIMAL = """
name = "tiny"

[[clusters]]
name = "a"

[[clusters.nodes]]
names = "a[1-2]"
cores = 2

[[clusters.nodes]]
names = "big"
cores = 8
speed = 2.5
memory_mb = 64000
price = 0.5

[[clusters]]
name = "b"
link_capacity = 0.5

[[clusters.nodes]]
names = "b01"
cores = 1
"""


def write(tmp_path: Path, text: str, name: str = "platform.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_minimal_file_gets_documented_defaults(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path, MINIMAL))
    assert platform.name == "tiny"
    assert platform.bandwidth_unit == "Gbit/s"
    a, b = platform.clusters
    assert [
        (n.id, n.name, n.cluster, n.local, n.cores, n.speed, n.memory_mb, n.price)
        for n in platform.nodes
    ] == [
        (0, "a1", 0, 0, 2, 1.0, 0, 0.0),
        (1, "a2", 0, 1, 2, 1.0, 0, 0.0),
        (2, "big", 0, 2, 8, 2.5, 64000, 0.5),
        (3, "b01", 1, 0, 1, 1.0, 0, 0.0),
    ]
    assert (a.link_capacity, b.link_capacity) == (math.inf, 0.5)
    assert (a.cores, b.cores, platform.cores) == (12, 1, 13)
    assert a.min_speed == 1.0
    (part,) = a.partitions
    assert (part.name, part.nodes, part.default, part.max_time, part.default_time) == (
        "batch",
        (0, 1, 2),
        True,
        math.inf,
        None,
    )
    assert platform.node_by_name["b01"].cluster == 1
    assert platform.cluster("b") is b
    assert platform.cluster("c") is None


def test_partition_without_nodes_takes_all_and_durations_parse(tmp_path: Path) -> None:
    text = (
        MINIMAL
        + """
[[clusters.partitions]]
name = "all"
max_time = "30"

[[clusters.partitions]]
name = "one"
nodes = "b01"
default = true
max_time = "1-12"
default_time = "UNLIMITED"
"""
    )
    b = load_platform(write(tmp_path, text)).clusters[1]
    everything, one = b.partitions
    assert (everything.nodes, everything.default, everything.max_time) == ((0,), False, 1800.0)
    assert (one.nodes, one.default, one.max_time, one.default_time) == (
        (0,),
        True,
        129600.0,
        math.inf,
    )
    assert b.default_partition is one


# --- validation errors: file and field -------------------------------------------------------

BASE = """
name = "p"
bandwidth_unit = "Gbit/s"

[[clusters]]
name = "a"
link_capacity = 1.0

[[clusters.nodes]]
names = "a[1-2]"
cores = 2
speed = 1.0
memory_mb = 1000

[[clusters.nodes]]
names = "a[3-4]"
{second}

[[clusters.partitions]]
name = "batch"
default = true
{partition}
"""


def base(second: str = "cores = 4", partition: str = "") -> str:
    return BASE.format(second=second, partition=partition)


def error_of(tmp_path: Path, text: str) -> tuple[Path, str]:
    path = write(tmp_path, text)
    with pytest.raises(PlatformError) as info:
        load_platform(path)
    return path, str(info.value)


def assert_field(tmp_path: Path, text: str, field: str, *fragments: str) -> None:
    path, message = error_of(tmp_path, text)
    assert message.startswith(f"{path}: {field}: "), message
    for fragment in fragments:
        assert fragment in message, message


def test_base_document_is_valid(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path, base()))
    assert [n.cores for n in platform.nodes] == [2, 2, 4, 4]


def test_unreadable_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.toml"
    with pytest.raises(PlatformError, match=re.escape(f"{path}: cannot read")):
        load_platform(path)


def test_bad_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    path, message = error_of(tmp_path, 'name = "p"\n[[clusters]\nname = "a"\n')
    assert message.startswith(f"{path}: not valid TOML: "), message
    assert "line 2" in message


def test_missing_name(tmp_path: Path) -> None:
    text = base().replace('name = "p"\n', "", 1)
    assert_field(tmp_path, text, "name", "non-empty string", "None")


def test_empty_name(tmp_path: Path) -> None:
    assert_field(tmp_path, base().replace('name = "p"', 'name = ""', 1), "name", "non-empty")


def test_missing_cluster_name(tmp_path: Path) -> None:
    assert_field(tmp_path, base().replace('name = "a"\n', "", 1), "clusters[0].name")


def test_no_clusters(tmp_path: Path) -> None:
    assert_field(tmp_path, 'name = "p"\n', "clusters", "at least one")


def test_cluster_without_nodes(tmp_path: Path) -> None:
    assert_field(tmp_path, 'name = "p"\n[[clusters]]\nname = "a"\n', "clusters[0].nodes")


@pytest.mark.parametrize(
    ("old", "new", "field", "key"),
    [
        ('bandwidth_unit = "Gbit/s"', 'bandwith_unit = "Gbit/s"', "(top level)", "bandwith_unit"),
        ("link_capacity = 1.0", "link_capacty = 1.0", "clusters[0]", "link_capacty"),
        ("speed = 1.0", "spead = 1.0", "clusters[0].nodes[0]", "spead"),
        ("memory_mb = 1000", "memory = 1000", "clusters[0].nodes[0]", "memory"),
        ("default = true", "defualt = true", "clusters[0].partitions[0]", "defualt"),
    ],
)
def test_unknown_key_is_a_typo(tmp_path: Path, old: str, new: str, field: str, key: str) -> None:
    assert_field(tmp_path, base().replace(old, new, 1), field, f"unknown key {key!r}", "allowed:")


def test_unknown_partition_key(tmp_path: Path) -> None:
    text = base(partition='maxtime = "1:00:00"')
    assert_field(tmp_path, text, "clusters[0].partitions[0]", "unknown key 'maxtime'")


@pytest.mark.parametrize("value", ["0", "-2", "1.5", '"4"', "true"])
def test_cores_must_be_a_positive_integer(tmp_path: Path, value: str) -> None:
    assert_field(
        tmp_path, base(second=f"cores = {value}"), "clusters[0].nodes[1].cores", "positive integer"
    )


def test_missing_cores(tmp_path: Path) -> None:
    assert_field(tmp_path, base(second=""), "clusters[0].nodes[1].cores", "got None")


@pytest.mark.parametrize("value", ["0", "0.0", "-1.0", "nan", '"fast"', "true"])
def test_speed_must_be_positive(tmp_path: Path, value: str) -> None:
    text = base(second=f"cores = 4\nspeed = {value}")
    assert_field(tmp_path, text, "clusters[0].nodes[1].speed")


@pytest.mark.parametrize("value", ["0", "-1.0"])
def test_link_capacity_must_be_positive(tmp_path: Path, value: str) -> None:
    text = base().replace("link_capacity = 1.0", f"link_capacity = {value}", 1)
    assert_field(tmp_path, text, "clusters[0].link_capacity", "> 0")


@pytest.mark.parametrize("value", ["-1", "1.5", '"4G"'])
def test_memory_must_be_a_non_negative_integer(tmp_path: Path, value: str) -> None:
    text = base(second=f"cores = 4\nmemory_mb = {value}")
    assert_field(tmp_path, text, "clusters[0].nodes[1].memory_mb", "non-negative integer")


def test_memory_rejects_booleans(tmp_path: Path) -> None:
    text = base(second="cores = 4\nmemory_mb = true")
    assert_field(tmp_path, text, "clusters[0].nodes[1].memory_mb", "non-negative integer")


def test_price_may_be_zero_but_not_negative(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path, base(second="cores = 4\nprice = 0")))
    assert platform.nodes[3].price == 0.0
    text = base(second="cores = 4\nprice = -0.5")
    assert_field(tmp_path, text, "clusters[0].nodes[1].price", ">= 0")


def test_duplicate_cluster_name(tmp_path: Path) -> None:
    text = base() + '\n[[clusters]]\nname = "a"\n\n[[clusters.nodes]]\nnames = "z1"\ncores = 1\n'
    assert_field(tmp_path, text, "clusters[1].name", "duplicate 'a'")


def test_duplicate_node_name_across_clusters(tmp_path: Path) -> None:
    text = base() + '\n[[clusters]]\nname = "b"\n\n[[clusters.nodes]]\nnames = "a2"\ncores = 1\n'
    assert_field(tmp_path, text, "clusters", "'a2' is used twice")


def test_duplicate_node_name_within_a_cluster(tmp_path: Path) -> None:
    assert_field(tmp_path, base().replace('"a[3-4]"', '"a[2-3]"', 1), "clusters", "'a2'")


@pytest.mark.parametrize("names", ["a[3-", "a[4-3]", "a[x-y]", "a[]", "a[3]b[4]"])
def test_bad_node_hostlist(tmp_path: Path, names: str) -> None:
    text = base().replace('"a[3-4]"', f'"{names}"', 1)
    assert_field(tmp_path, text, "clusters[0].nodes[1].names", "hostlist")


def test_bad_partition_hostlist(tmp_path: Path) -> None:
    text = base(partition='nodes = "a[2-1]"')
    assert_field(tmp_path, text, "clusters[0].partitions[0].nodes", "descending range")


def test_node_names_must_be_a_string(tmp_path: Path) -> None:
    text = base().replace('"a[3-4]"', '["a3", "a4"]', 1)
    assert_field(tmp_path, text, "clusters[0].nodes[1].names", "non-empty string")


def test_clusters_must_be_tables(tmp_path: Path) -> None:
    assert_field(tmp_path, 'name = "p"\nclusters = [1]\n', "clusters[0]", "must be a table")
