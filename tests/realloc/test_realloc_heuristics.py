"""The reallocation paper's heuristics and rules on hand-checked instances (§2.2, models.md 4.6)."""

from __future__ import annotations

import math

import pytest

from solvers.realloc.heuristics import (
    Candidate,
    Heuristic,
    best_cluster,
    choose,
    gain,
    move_to,
    resubmit_to,
    sufferage,
)

INF = math.inf
RANK = (0, 1, 2)  # clusters 0, 1, 2 from the smallest

# name: (order, cores, ECTs on clusters 0..2, current cluster); the reference is the current ECT
#   best ECT | target, gain, per processor | sufferage
ROWS = {
    "F": ((0.0, 1), 2, (300.0, 300.0, 300.0), 0),  # 300 | 1: 0, 0       | 0
    "B": ((1.0, 2), 1, (400.0, 250.0, 260.0), 0),  # 250 | 1: 150, 150  | 10
    "A": ((1.0, 3), 4, (100.0, 300.0, 500.0), 1),  # 100 | 0: 200, 50   | 200
    "C": ((2.0, 4), 3, (INF, 600.0, 900.0), 2),  # 600   | 1: 300, 100  | 300
    "D": ((3.0, 5), 8, (150.0, 700.0, 700.0), 0),  # 150 | 1: -550, ... | 550
    "E": ((4.0, 6), 1, (700.0, 710.0, INF), 0),  # 700   | 1: -10, -10  | 10
}
NAMES = list(ROWS)
TABLE = [Candidate(order, cores, ects, k, ects[k]) for order, cores, ects, k in ROWS.values()]


@pytest.mark.parametrize(
    ("heuristic", "expected"),
    [
        (Heuristic.MCT, "F"),  # the first submitted
        (Heuristic.MINMIN, "A"),  # best ECT 100
        (Heuristic.MAXMIN, "E"),  # best ECT 700
        (Heuristic.MAXGAIN, "C"),  # 900 - 600
        (Heuristic.MAXRELGAIN, "B"),  # 150 / 1 beats C's 300 / 3 and A's 200 / 4
        (Heuristic.SUFFERAGE, "D"),  # 700 - 150
    ],
)
def test_each_heuristic_picks_its_job(heuristic: Heuristic, expected: str) -> None:
    assert NAMES[choose(heuristic, TABLE, RANK)] == expected


def test_the_measures_by_hand() -> None:
    by_name = dict(zip(NAMES, TABLE, strict=True))
    assert [gain(by_name[n], RANK) for n in "FBACDE"] == [0, 150, 200, 300, -550, -10]
    assert [sufferage(by_name[n]) for n in "FBACDE"] == [0, 10, 200, 300, 550, 10]


def test_ties_between_jobs_go_to_the_earlier_submission() -> None:
    late = Candidate((5.0, 9), 1, (100.0, 200.0), 0, 300.0)
    early = Candidate((5.0, 7), 1, (100.0, 200.0), 0, 300.0)
    for heuristic in Heuristic:
        assert choose(heuristic, [late, early], (0, 1)) == 1


def test_ties_between_clusters_go_to_the_smaller_then_the_first() -> None:
    assert best_cluster((5.0, 5.0, 5.0), (2, 0, 1)) == 1
    assert best_cluster((5.0, 5.0, 4.0), (2, 0, 1)) == 2
    assert best_cluster((INF, INF), (0, 1)) == 0
    assert best_cluster((1.0,), (0,), skip=0) == -1
    assert best_cluster((1.0, 2.0), (0, 1), skip=0) == 1


def test_a_job_only_one_cluster_takes_suffers_without_bound() -> None:
    alone = Candidate((0.0, 1), 1, (INF, 50.0), 1, 50.0)
    assert sufferage(alone) == INF
    nowhere = Candidate((0.0, 2), 1, (INF, INF), 1, INF)
    assert sufferage(nowhere) == 0.0
    assert choose(Heuristic.MINMIN, [nowhere, alone], (0, 1)) == 1
    assert choose(Heuristic.MAXMIN, [nowhere, alone], (0, 1)) == 1


def test_algorithm_1_moves_only_past_the_threshold() -> None:
    def waiting(there: float) -> Candidate:
        return Candidate((0.0, 1), 1, (1000.0, there, 2000.0), 0, 1000.0)

    assert move_to(waiting(940.0), RANK, 60.0) is None  # exactly 60 s better: stays
    assert move_to(waiting(939.0), RANK, 60.0) == 1
    assert move_to(waiting(999.0), RANK, 0.0) == 1
    assert move_to(waiting(1000.0), RANK, 0.0) is None
    assert move_to(Candidate((0.0, 1), 1, (10.0, INF), 0, 10.0), (0, 1), 60.0) is None


def test_algorithm_2_resubmits_to_the_best_or_back_home() -> None:
    withdrawn = Candidate((0.0, 1), 1, (300.0, 200.0, 200.0), None, 300.0)
    assert resubmit_to(withdrawn, RANK, origin=0) == 1  # ties to the smaller cluster
    assert gain(withdrawn, RANK) == 100.0
    stuck = Candidate((0.0, 1), 1, (INF, INF, INF), None, INF)
    assert resubmit_to(stuck, RANK, origin=2) == 2
