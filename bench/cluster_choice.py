"""What choosing a cluster at each arrival costs: a replay on two clusters against the same
trace on one cluster of as many cores; writes bench/results/cluster_choice.json.

    BATCHLAB_TRACES=/work/shared/traces .venv/bin/python -m bench.cluster_choice

KTH-SP2 (its jobs of at most 50 processors: 27,817 of 28,476) on one cluster of 100 single-core
nodes, and on two clusters of 50 with no grid policy, so that each arriving job goes where its
local policy estimates it starts first (``Queues._earliest_cluster``). CPU seconds of the replay
alone, best of three; the target is a ratio of at most 1.5.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from bench.replays import timed
from emulator.model.platform import Platform
from emulator.model.platform_file import load_platform
from experiments.local_policies import find_trace
from workloads.swf import Dropped, SwfTrace, submissions

RESULTS = Path(__file__).resolve().parent / "results"
POLICIES = ("fcfs", "easy", "cbf", "lsf")


def two_clusters(cores: int) -> Platform:
    """Two clusters of ``cores`` single-core nodes each, no link limits (read from TOML, as a
    user would write it)."""
    text = f"""name = "two"
[[clusters]]
name = "a"
[[clusters.nodes]]
names = "a[001-{cores:03d}]"
cores = 1
[[clusters]]
name = "b"
[[clusters.nodes]]
names = "b[001-{cores:03d}]"
cores = 1
"""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "two.toml"
        path.write_text(text, encoding="utf-8")
        return load_platform(path)


def main() -> None:
    jobs = list(submissions(SwfTrace(find_trace("KTH-SP2-1996-2.1-cln")), 50, Dropped()))
    one, two = Platform.single_cluster(100), two_clusters(50)
    rows = []
    for policy in POLICIES:
        single, _ = timed(3, jobs, one, policy)
        double, _ = timed(3, jobs, two, policy)
        rows.append(
            {
                "policy": policy,
                "jobs": len(jobs),
                "one_cluster_s": round(single, 3),
                "two_clusters_s": round(double, 3),
                "ratio": round(double / single, 2),
            }
        )
        print(f"{policy:5} one {single:6.3f} s  two {double:6.3f} s  ratio {double / single:5.2f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cluster_choice.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
