"""The broker paper's selection rules (Tchernykh et al. §2.2, §3; models.md §4.5) on hand-checked
instances: sites sorted by size, first(j), the available and admissible sets (the half-of-processors
boundary), the four rules and their ties to the lowest index."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvers.brokers.rules import (
    Rule,
    admissible,
    available,
    candidates,
    counter_increment,
    earliest_completion,
    first,
    least_per_processor,
    select,
    sort_sites,
)


def test_sites_sorted_by_size_ties_to_the_lowest_index() -> None:
    sites = sort_sites([8, 2, 8, 4])
    assert sites.order == (1, 3, 0, 2)
    assert sites.sizes == (2, 4, 8, 8)
    # first 0: total 22, cumulative 2, 6, 14 >= 11 -> r = 2; first 1: total 20, 4, 12 >= 10 -> 2;
    # first 2: total 16, 8 >= 8 -> 2 (the half itself is enough); first 3: alone
    assert sites.admissible_end == (3, 3, 3, 4)
    assert len(sites) == 4


def test_a_job_fitting_one_site_only() -> None:
    sites = sort_sites([4, 16, 8])
    assert first(sites, 10) == 2 and sites.order[2] == 1
    assert available(sites, 10) == range(2, 3)
    assert admissible(sites, 10) == range(2, 3)
    for rule in Rule:
        assert select(rule, sites, admissible(sites, 10), [0.0, 0.0, 99.0]) == 2


def test_first_is_the_smallest_site_that_fits_exactly_or_more() -> None:
    sites = sort_sites([4, 16, 8])
    assert [first(sites, c) for c in (1, 4, 5, 8, 9, 16)] == [0, 0, 1, 1, 2, 2]


def test_equal_size_sites() -> None:
    sites = sort_sites([8, 8, 8, 8])
    assert sites.order == (0, 1, 2, 3)
    assert available(sites, 3) == range(0, 4)
    assert admissible(sites, 3) == range(0, 2)  # 8 + 8 = 16 = half of 32
    assert least_per_processor(sites, range(0, 4), [0.0, 0.0, 0.0, 0.0]) == 0
    assert least_per_processor(sites, range(0, 4), [1.0, 1.0, 0.0, 0.0]) == 2
    assert earliest_completion(range(0, 4), [5.0, 5.0, 5.0, 5.0]) == 0


@pytest.mark.parametrize(
    ("sizes", "cores", "expected"),
    [
        ([4, 4], 1, range(0, 1)),  # 4 is exactly half of 8: the boundary is inclusive
        ([3, 4], 1, range(0, 2)),  # 3 < 3.5: one short of half, the next site is needed
        ([2, 2, 4], 1, range(0, 2)),  # 2 + 2 = 4 = half of 8
        ([2, 2, 5], 1, range(0, 3)),  # 2 + 2 = 4 < 4.5
        ([1, 2, 4], 2, range(1, 3)),  # from first = 1: 2 < 3, then 2 + 4 >= 3
        ([1, 1, 1, 1, 1, 1], 1, range(0, 3)),
        ([1, 1, 1, 1, 1, 1, 1], 1, range(0, 4)),  # 3 < 3.5, 4 >= 3.5
        ([10], 10, range(0, 1)),
    ],
)
def test_the_half_of_processors_boundary(sizes: list[int], cores: int, expected: range) -> None:
    assert admissible(sort_sites(sizes), cores) == expected


def test_a_job_too_large_for_all() -> None:
    sites = sort_sites([4, 16, 8])
    assert first(sites, 17) is None
    assert available(sites, 17) == range(0)
    assert admissible(sites, 17) == range(0)
    assert candidates(sites, 17, admissible_only=True) == range(0)


def test_candidates_choose_the_variant() -> None:
    sites = sort_sites([2, 2, 2, 2])
    assert candidates(sites, 1, admissible_only=False) == range(0, 4)
    assert candidates(sites, 1, admissible_only=True) == range(0, 2)


def test_counter_increments() -> None:
    assert counter_increment(Rule.ML, 4, 10.0) == 1.0
    assert counter_increment(Rule.MPL, 4, 10.0) == 4.0
    assert counter_increment(Rule.MLB, 4, 10.0) == 40.0
    with pytest.raises(ValueError, match="MCT keeps no counter"):
        counter_increment(Rule.MCT, 4, 10.0)
    assert not Rule.MCT.counted and Rule.MLB.counted


def test_least_per_processor_divides_by_the_site_size() -> None:
    sites = sort_sites([2, 4])
    assert least_per_processor(sites, range(0, 2), [1.0, 1.0]) == 1  # 1/2 against 1/4
    assert least_per_processor(sites, range(0, 2), [1.0, 2.0]) == 0  # 1/2 ties 2/4: lowest
    assert least_per_processor(sites, range(1, 2), [0.0, 9.0]) == 1  # only the candidates count


def test_mct_takes_the_earliest_completion_ties_to_the_lowest() -> None:
    sites = sort_sites([2, 4, 8])
    assert select(Rule.MCT, sites, range(0, 3), [30.0, 20.0, 20.0]) == 1
    assert select(Rule.MCT, sites, range(0, 3), [float("inf"), float("inf"), 5.0]) == 2


def test_section_3_1_family_sends_every_long_job_to_the_last_site() -> None:
    """m sites of width 1; rounds of m - 1 jobs (1, eps) then one (1, E): ML and MPL route each
    round one job per site, and the long one always lands on the last site (C = r E)."""
    m, rounds = 5, 4
    sites = sort_sites([1] * m)
    for rule in (Rule.ML, Rule.MPL):
        counters = [0.0] * m
        long_sites = []
        for _ in range(rounds):
            for index in range(m):
                position = select(rule, sites, available(sites, 1), counters)
                counters[position] += counter_increment(rule, 1, 1.0)
                if index == m - 1:
                    long_sites.append(position)
        assert long_sites == [m - 1] * rounds


@given(st.lists(st.integers(1, 64), min_size=1, max_size=12), st.integers(1, 64))
def test_admissible_is_the_smallest_prefix_reaching_half(sizes: list[int], cores: int) -> None:
    sites = sort_sites(sizes)
    assert list(sites.sizes) == sorted(sizes)
    chosen = admissible(sites, cores)
    if max(sizes) < cores:
        assert chosen == range(0)
        return
    f = chosen.start
    assert sites.sizes[f] >= cores and (f == 0 or sites.sizes[f - 1] < cores)
    total = sum(sites.sizes[f:])
    assert 2 * sum(sites.sizes[f : chosen.stop]) >= total
    assert 2 * sum(sites.sizes[f : chosen.stop - 1]) < total
    assert set(chosen) <= set(available(sites, cores))
