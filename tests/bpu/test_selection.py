"""The BPU paper's site table, best fit and co-allocation on hand-checked cases."""

from __future__ import annotations

from solvers.bpu.selection import SiteFree, best_fit, coallocate, select, site_table


def test_best_fit_takes_the_least_excess_then_the_fewest_processors() -> None:
    # 4 BPUs from 2 x 1.5 and 5 x 1.0: 2 x 1.5 + 1 x 1.0 = 4.0 exactly (3 processors); 4 x 1.0
    # is also exact but takes 4
    assert best_fit(((1.5, 2), (1.0, 5)), 4.0) == (2, 1)
    # from 2 x 2.0 and 5 x 1.0: 2 x 2.0 (2 processors) beats 4 x 1.0 and 1 x 2.0 + 2 x 1.0
    assert best_fit(((2.0, 2), (1.0, 5)), 4.0) == (2, 0)


def test_best_fit_prefers_less_excess_to_fewer_processors() -> None:
    # 3 BPUs from 1 x 4.0 and 3 x 1.0: 3 x 1.0 is exact, 1 x 4.0 wastes 1
    assert best_fit(((4.0, 1), (1.0, 3)), 3.0) == (0, 3)
    # with only 2 slow ones free, the fast one is the only fit (excess 1)
    assert best_fit(((4.0, 1), (1.0, 2)), 3.0) == (1, 0)


def test_equal_fits_go_to_the_faster_classes_and_short_sites_get_none() -> None:
    # 4 BPUs: 3.0 + 1.0 and 2.0 + 2.0 both exact with 2 processors: the 3.0 is faster
    assert best_fit(((3.0, 1), (2.0, 2), (1.0, 1)), 4.0) == (1, 0, 1)
    assert best_fit(((1.5, 1), (1.0, 2)), 4.0) is None
    # 3 x 1.1 is 3.3000000000000003 and 3.3 / 1.1 is 2.9999999999999996 in floats: still
    # exactly 3 processors, with no excess
    assert best_fit(((1.1, 3), (1.0, 0)), 3.3) == (3, 0)
    assert best_fit(((1.1, 3),), 3.3) == (3,)


def site(index: int, name: str, processors: int, *classes: tuple[float, int]) -> SiteFree:
    return SiteFree(index, name, processors, tuple(classes))


def test_the_table_orders_sites_by_average_unallocated_bpus() -> None:
    west = site(0, "west", 10, (1.0, 6))  # 6 free BPUs / 10 processors = 0.6
    east = site(1, "east", 8, (1.5, 2), (1.0, 2))  # 5 / 8 = 0.625
    north = site(2, "north", 4, (2.0, 0), (1.0, 0))  # 0
    tie = site(3, "tie", 5, (1.0, 3))  # 0.6, after west: ties keep the platform's order
    table = site_table([west, east, north, tie])
    assert [s.name for s in table] == ["east", "west", "tie", "north"]
    assert east.average == 0.625


def test_select_takes_the_first_site_in_the_table_that_suffices_alone() -> None:
    east = site(1, "east", 8, (1.5, 2), (1.0, 2))  # 5 BPUs free
    west = site(0, "west", 10, (1.0, 6))  # 6 BPUs free
    pick = select([east, west], 4.0)
    assert pick is not None and (pick.site.name, pick.counts, pick.bpus) == ("east", (2, 1), 4.0)
    pick = select([east, west], 6.0)  # east falls short: west alone suffices
    assert pick is not None and (pick.site.name, pick.counts) == ("west", (6,))
    assert select([east, west], 7.0) is None


def test_coallocation_fills_sites_in_table_order_and_best_fits_the_rest() -> None:
    east = site(1, "east", 8, (1.5, 2), (1.0, 2))  # 5 BPUs free
    west = site(0, "west", 10, (1.0, 6))  # 6 BPUs free
    picks = coallocate([east, west], 7.0)
    assert picks is not None
    assert [(p.site.name, p.counts) for p in picks] == [("east", (2, 2)), ("west", (2,))]
    assert coallocate([east, west], 11.5) is None
