"""The broker paper's platform: ``m`` sites of identical processors (§2.1), as an emulator platform.

Each site is a cluster of single-core nodes of speed 1 in one partition, so a job of size ``s``
takes ``s`` processors anywhere on its site, as the paper's strip model has it.
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.model.platform import Cluster, Node, Partition, Platform


def sites_platform(sizes: Sequence[int], names: Sequence[str] | None = None) -> Platform:
    """Clusters of ``sizes[i]`` processors named ``names[i]`` (default ``s0``, ``s1``...)."""
    if not sizes or min(sizes) < 1:
        raise ValueError(f"every site needs at least one processor, got sizes {list(sizes)}")
    labels = list(names) if names is not None else [f"s{i}" for i in range(len(sizes))]
    if len(labels) != len(sizes) or len(set(labels)) != len(labels):
        raise ValueError("one distinct name per site is needed")
    clusters = []
    next_id = 0
    for index, (size, label) in enumerate(zip(sizes, labels, strict=True)):
        nodes = tuple(
            Node(id=next_id + local, name=f"{label}n{local}", cluster=index, local=local, cores=1)
            for local in range(size)
        )
        next_id += size
        partition = Partition(label, tuple(range(size)), default=True)
        clusters.append(Cluster(label, index, nodes, (partition,)))
    return Platform("sites-" + "-".join(map(str, sizes)), tuple(clusters))
