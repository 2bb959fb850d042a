"""Nodes that declare GPUs and features (``sbatch --gres``/``--gpus``, ``-C``): what the
platform file gives each node, what a node offers, and the errors naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.model.platform_file import PlatformError, load_platform
from resources import platform_path


def test_nodes_declare_gpus_and_features() -> None:
    nodes = load_platform(platform_path("lab-gpu")).nodes
    assert [(n.gpus, n.features) for n in nodes] == [
        (2, ("gpu", "a100", "ib")),
        (2, ("gpu", "a100", "ib")),
        (0, ("cpu", "ib")),
        (0, ("cpu", "ib")),
    ]
    gpu, cpu = nodes[0], nodes[3]
    assert gpu.offers("", 2) and not gpu.offers("", 3) and not cpu.offers("", 1)
    assert gpu.offers("gpu&ib", 0) and not cpu.offers("gpu&ib", 0)
    assert cpu.offers("gpu|cpu", 0) and cpu.offers("a100&gpu|ib", 0)
    assert not cpu.offers("a100&gpu|nosuch", 0)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("gpus = -1", "clusters[0].nodes[0].gpus: must be a non-negative integer, got -1"),
        ("gpus = 1.5", "clusters[0].nodes[0].gpus: must be a non-negative integer, got 1.5"),
        ('features = "gpu"', "clusters[0].nodes[0].features: must be a list of names"),
        ('features = ["a b"]', "clusters[0].nodes[0].features: must be a list of names"),
    ],
)
def test_bad_gpus_or_features_name_the_field(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        f'name = "p"\n[[clusters]]\nname = "c"\n[[clusters.nodes]]\n'
        f'names = "n1"\ncores = 1\n{line}\n'
    )
    with pytest.raises(PlatformError) as info:
        load_platform(path)
    assert str(info.value).startswith(f"{path}: {message}")
