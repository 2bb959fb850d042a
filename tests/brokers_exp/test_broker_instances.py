"""The broker paper's instances and bounds, checked by hand and by brute force (no engine)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvers.brokers.bounds import group_makespan, harmonic, instance_bound, lower_bound
from solvers.brokers.instances import (
    BatchShape,
    Rigid,
    group_instance,
    group_scale,
    min_load_family,
    min_load_optimum,
    random_batch,
)


def brute_force_optimum(sites: int, times: list[int]) -> int:
    """Best makespan of unit-width jobs on ``sites`` unit-width sites, by trying every split."""
    best = sum(times)
    for assignment in itertools.product(range(sites), repeat=len(times)):
        loads = [0] * sites
        for site, time in zip(assignment, times, strict=True):
            loads[site] += time
        best = min(best, max(loads))
    return best


def test_min_load_family_is_rounds_of_short_jobs_then_one_long() -> None:
    instance = min_load_family(sites=3, rounds=2, long=10)
    assert instance.sites == (1, 1, 1)
    assert [job.time for job in instance.jobs] == [1, 1, 10, 1, 1, 10]
    assert all(job.cores == 1 for job in instance.jobs)


@pytest.mark.parametrize(
    ("sites", "rounds", "long"), [(2, 1, 3), (2, 3, 4), (3, 2, 5), (3, 4, 2), (4, 2, 6), (2, 5, 1)]
)
def test_min_load_optimum_matches_brute_force(sites: int, rounds: int, long: int) -> None:
    instance = min_load_family(sites, rounds, long)
    times = [job.time for job in instance.jobs]
    assert instance.optimum == brute_force_optimum(sites, times)


def test_min_load_optimum_within_the_papers_upper_bound() -> None:
    for sites, rounds, long in itertools.product(range(2, 9), range(1, 20), (1, 7, 1000)):
        paper = -(-(sites - 1) * rounds // sites) + -(-rounds // sites) * long
        assert min_load_optimum(sites, rounds, long, 1) <= paper


def test_min_load_optimum_in_units_of_short() -> None:
    assert min_load_optimum(4, 8, 30, 3) == 3 * min_load_optimum(4, 8, 10, 1)
    with pytest.raises(ValueError, match="multiple"):
        min_load_optimum(4, 8, 10, 3)


@pytest.mark.parametrize("k", range(8))
def test_group_instance_has_the_papers_groups(k: int) -> None:
    instance = group_instance(k)
    scale = group_scale(k)
    assert len(instance.sites) == 2 ** (k + 1) - 1  # 255 sites at k = 7
    for i in range(k + 1):
        size = 2 ** (k - i)
        assert instance.sites.count(size) == 2**i
        jobs = [job for job in instance.jobs if job.cores == size]
        assert len(jobs) == (i + 1) * 2**i
        assert {job.time for job in jobs} == {scale // (i + 1)}
        # each set fills exactly one layer of its available sites
        layer = sum(m for m in instance.sites if m >= size)
        assert sum(job.cores for job in jobs) == layer
    sizes = [job.cores for job in instance.jobs]
    assert sizes == sorted(sizes)  # increasing order of size, as in the proof
    assert instance.optimum == scale == lower_bound(instance.sites, instance.jobs)


def test_group_instance_at_k_7_has_255_sites_and_1793_jobs() -> None:
    instance = group_instance(7)
    assert len(instance.sites) == 255
    assert len(instance.jobs) == sum((i + 1) * 2**i for i in range(8)) == 1793
    assert sum(instance.sites) == 8 * 2**7


def test_harmonic_and_group_makespan_closed_forms() -> None:
    assert harmonic(1) == 1
    assert harmonic(2) == Fraction(3, 2)
    assert harmonic(8) == Fraction(761, 280)
    for k in range(8):
        assert Fraction(group_makespan(k), group_scale(k)) == harmonic(k + 1)
    assert group_makespan(1) == 3  # L = 2: layers of 2 and 1


def test_lower_bound_by_hand() -> None:
    # sites 2 and 4: two 3-wide jobs need the 4-site, area 12 over 4 processors = 3
    assert lower_bound([4, 2], [Rigid(3, 2), Rigid(3, 2), Rigid(1, 2)]) == 3
    # the longest job dominates
    assert lower_bound([4, 4], [Rigid(1, 9), Rigid(1, 1)]) == 9
    # all jobs fit everywhere: total area over all processors
    assert lower_bound([2, 4], [Rigid(1, 3)] * 6) == 3
    assert lower_bound([2, 4], [Rigid(1, 3)] * 7) == Fraction(21, 6)
    # equal-size sites share first(j): the bound is their joint area
    assert lower_bound([4, 4], [Rigid(4, 2)] * 3) == 3


def test_lower_bound_refuses_a_job_larger_than_every_site() -> None:
    with pytest.raises(ValueError, match="5 processors is larger than every site"):
        lower_bound([4, 2], [Rigid(5, 1)])


def test_instance_bound_prefers_the_known_optimum() -> None:
    family = min_load_family(4, 4, 100)
    assert instance_bound(family) == family.optimum
    assert lower_bound(family.sites, family.jobs) <= instance_bound(family)


@given(st.integers(min_value=0, max_value=2**32))
def test_random_batch_is_reproducible_and_within_its_shape(seed: int) -> None:
    shape = BatchShape()
    batch = random_batch(seed, shape)
    assert batch == random_batch(seed, shape)
    assert shape.min_sites <= len(batch.sites) <= shape.max_sites
    assert set(batch.sites) <= set(shape.site_sizes)
    low, high = shape.jobs_per_site
    assert low * len(batch.sites) <= len(batch.jobs) <= high * len(batch.sites)
    assert all(1 <= job.cores <= max(batch.sites) for job in batch.jobs)
    assert all(1 <= job.time <= shape.max_time for job in batch.jobs)
    assert batch.optimum is None
    bound = lower_bound(batch.sites, batch.jobs)
    assert max(job.time for job in batch.jobs) <= bound


def test_random_batches_differ_and_use_every_order() -> None:
    batches = [random_batch(seed) for seed in range(60)]
    assert len({batch.jobs for batch in batches}) == 60
    increasing = decreasing = 0
    for batch in batches:
        sizes = [job.cores for job in batch.jobs]
        increasing += sizes == sorted(sizes) and sizes != sorted(sizes, reverse=True)
        decreasing += sizes == sorted(sizes, reverse=True) and sizes != sorted(sizes)
    assert increasing >= 5 and decreasing >= 5
