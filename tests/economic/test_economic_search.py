"""ALP and AMP scans, window cutting and the multi-variant search (Toporkov et al., ICCS 2011,
§2–3; models.md §4.7), checked by hand on small slot lists and by properties on generated ones."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvers.economic.generator import Settings, job_batch, slot_list
from solvers.economic.search import Algorithm, _scan, alp, amp, find_alternatives, find_window
from solvers.economic.slots import Hold, Request, Slot, Window, cut_window


def slot(node: int, start: float, end: float, performance: float = 1.0, price: float = 1.0) -> Slot:
    return Slot(node, start, end, performance, price)


def request(nodes: int, length: float, cap: float = 10.0, floor: float = 1.0) -> Request:
    return Request(nodes=nodes, length=length, min_performance=floor, price_cap=cap)


# --- the expiry rule (ALP 4°) --------------------------------------------------------------


def test_a_slot_expires_when_the_window_start_leaves_it_too_short() -> None:
    # A covers 50 from 0 but only 40 from 60, where B moves the window start: A expires
    a, b, c = slot(0, 0, 100), slot(1, 60, 200), slot(2, 60, 150)
    window = alp([a, b, c], request(2, 50))
    assert window == Window(60, 50, (b, c))


def test_a_slot_that_still_covers_its_run_time_stays() -> None:
    a, b, c = slot(0, 0, 110), slot(1, 60, 200), slot(2, 60, 150)
    window = alp([a, b, c], request(2, 50))
    assert window == Window(60, 50, (a, b))


def test_expiry_uses_each_nodes_own_run_time() -> None:
    # t = 60: on the performance-2 node A runs 30, so from 60 its 40 left still suffice
    a, b = slot(0, 0, 100, performance=2.0), slot(1, 60, 200)
    window = alp([a, b], request(2, 60))
    assert window is not None and window.sources == (a, b)
    assert window.time == 60  # the slowest task sets the time: the rough right edge
    assert window.cost == pytest.approx(30 * 1.0 + 60 * 1.0)


def test_slots_too_short_or_too_slow_never_join() -> None:
    short, slow, ok = slot(0, 0, 40), slot(1, 0, 500, performance=1.0), slot(2, 5, 300, 2.0)
    assert alp([short, slow, ok], request(1, 50, floor=1.5)) == Window(5, 50, (ok,))
    assert alp([short, slow], request(1, 50, floor=1.5)) is None


# --- the price cap (ALP 2°c) and AMP's budget -----------------------------------------------


def test_alp_skips_a_slot_over_the_price_cap_where_amp_takes_it() -> None:
    dear, cheap_late = slot(0, 0, 100, price=3.0), slot(1, 50, 200, price=1.0)
    job = request(1, 50, cap=2.0)
    assert alp([dear, cheap_late], job) == Window(50, 50, (cheap_late,))
    # AMP's budget S = C·t·N = 100 does not cover the dear slot's 150: it waits as well
    assert amp([dear, cheap_late], job) == Window(50, 50, (cheap_late,))
    # with two nodes the budget is 200: the dear slot (150) with the cheap one (50) fits
    pair = request(2, 50, cap=2.0)
    assert alp([dear, cheap_late], pair) is None
    assert amp([dear, cheap_late], pair) == Window(50, 50, (dear, cheap_late))


def test_amp_takes_the_n_cheapest_by_cost_not_by_price() -> None:
    # cost = price × t / P: the fast node X is dearest per time unit but cheapest per task
    x = slot(0, 0, 300, performance=2.0, price=3.0)  # cost 1.5 t
    y = slot(1, 10, 300, performance=1.0, price=2.0)  # cost 2.0 t
    z = slot(2, 20, 300, performance=1.0, price=1.6)  # cost 1.6 t
    job = request(2, 100, cap=1.6)  # S = 1.6 · 100 · 2 = 320; x + z = 310
    window = amp([x, y, z], job)
    assert window == Window(20, 100, (x, z))
    assert window.cost == pytest.approx(310)
    assert alp([x, y, z], job) is None  # only z is within the cap


def test_amp_scans_on_while_the_cheapest_n_exceed_the_budget() -> None:
    dear1, dear2 = slot(0, 0, 300, price=5.0), slot(1, 10, 300, price=5.0)
    cheap1, cheap2 = slot(2, 20, 300, price=1.0), slot(3, 30, 300, price=1.0)
    job = request(2, 100, cap=2.0)  # S = 400: two dear (1000), dear + cheap (600), two cheap
    assert amp([dear1, dear2, cheap1, cheap2], job) == Window(30, 100, (cheap1, cheap2))


def test_the_budget_factor_scales_amps_budget() -> None:
    a, b = slot(0, 0, 300, price=2.0), slot(1, 0, 300, price=2.0)
    assert amp([a, b], Request(2, 100, 1.0, 2.0)) is not None
    assert amp([a, b], Request(2, 100, 1.0, 2.0, budget_factor=0.8)) is None


# --- window cutting (Fig. 1 (b)) -----------------------------------------------------------


def test_cutting_keeps_the_piece_before_in_place_and_sorts_the_piece_after() -> None:
    k, other, later = slot(0, 0, 100), slot(1, 10, 90), slot(2, 50, 60)
    window = Window(20, 30, (k,))
    assert cut_window([k, other, later], window) == [
        slot(0, 0, 20),
        other,
        later,  # starts at 50 like the piece after: the piece goes after it
        slot(0, 50, 100),
    ]


def test_cutting_drops_zero_length_pieces() -> None:
    k = slot(0, 10, 40)
    assert cut_window([k], Window(10, 30, (k,))) == []


def test_a_window_hold_cuts_every_slot_to_the_slowest_tasks_end() -> None:
    # length 30 from 20: the speed-2 slot's own task ends at 35, the speed-1 one's at 50;
    # held as one allocation, both lose [20, 50)
    fast, slow = slot(0, 0, 100, performance=2.0), slot(1, 10, 90)
    window = Window(20, 30, (fast, slow))
    assert cut_window([fast, slow], window) == [
        slot(0, 0, 20, performance=2.0),
        slot(1, 10, 20),
        slot(0, 35, 100, performance=2.0),
        slot(1, 50, 90),
    ]
    assert cut_window([fast, slow], window, Hold.WINDOW) == [
        slot(0, 0, 20, performance=2.0),
        slot(1, 10, 20),
        slot(0, 50, 100, performance=2.0),
        slot(1, 50, 90),
    ]


def test_a_window_hold_sets_aside_a_slot_too_short_for_the_slowest_task() -> None:
    # the scan's window at 0 is {fast (ends 20, its task 15), slow (its task 30)}: held to 30,
    # fast is short, so the rectangular search takes the next fast slot, at 40
    fast, slow, later = slot(0, 0, 20, performance=2.0), slot(1, 0, 100), slot(2, 40, 100)
    assert find_window([fast, slow, later], request(2, 30), Algorithm.ALP) == Window(
        0, 30, (fast, slow)
    )
    assert find_window([fast, slow, later], request(2, 30), Algorithm.ALP, Hold.WINDOW) == (
        Window(40, 30, (slow, later))
    )


def test_cutting_a_slot_that_is_not_in_the_list_is_an_error() -> None:
    with pytest.raises(ValueError, match="not in the slot list"):
        cut_window([slot(0, 0, 10)], Window(0, 5, (slot(1, 0, 10),)))


# --- the multi-variant search (§2) ----------------------------------------------------------


def test_rounds_go_over_the_batch_until_no_job_finds_a_window() -> None:
    # one long slot per node: job 0 (2 nodes) and job 1 (1 node) take turns down the time line
    slots = [slot(0, 0, 100), slot(1, 0, 100), slot(2, 0, 70)]
    found = find_alternatives(slots, [request(2, 30), request(1, 30)], Algorithm.ALP)
    assert [[(w.start, len(w.sources)) for w in job] for job in found] == [
        [(0, 2), (30, 2), (60, 2)],
        [(0, 1), (30, 1)],
    ]


@pytest.mark.parametrize("algorithm", list(Algorithm))
@given(seed=st.integers(0, 10_000))
def test_alternatives_never_share_processor_time(algorithm: Algorithm, seed: int) -> None:
    rng = random.Random(seed)
    settings = Settings(slots_min=20, slots_max=40, jobs_min=2, jobs_max=4)
    slots, batch = slot_list(settings, rng), job_batch(settings, rng)
    found = find_alternatives(slots, batch, algorithm)
    free = {s.node: s for s in slots}  # one slot per node in the paper's generator
    taken: dict[int, list[tuple[float, float]]] = {}
    for job, windows in zip(batch, found, strict=True):
        for window in windows:
            assert len(window.sources) == job.nodes
            assert all(s.performance >= job.min_performance for s in window.sources)
            if algorithm is Algorithm.ALP:
                assert all(s.price <= job.price_cap for s in window.sources)
            else:
                assert window.cost <= job.budget
            for source in window.sources:
                begin, end = window.used(source)
                assert free[source.node].start <= begin and end <= free[source.node].end
                taken.setdefault(source.node, []).append((begin, end))
    for intervals in taken.values():
        intervals.sort()
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(intervals))


@given(seed=st.integers(0, 10_000))
def test_amp_finds_a_window_wherever_alp_does(seed: int) -> None:
    rng = random.Random(seed)
    settings = Settings(slots_min=10, slots_max=40)
    slots, batch = slot_list(settings, rng), job_batch(settings, rng)
    for job in batch:
        by_alp, by_amp = alp(slots, job), amp(slots, job)
        if by_alp is not None:
            assert by_amp is not None and by_amp.start <= by_alp.start


@pytest.mark.parametrize("algorithm", list(Algorithm))
@given(seed=st.integers(0, 10_000))
def test_skipping_ended_slots_changes_no_alternative(algorithm: Algorithm, seed: int) -> None:
    # the paper's rounds done naively: every job rescans the whole list every round
    rng = random.Random(seed)
    settings = Settings(slots_min=20, slots_max=60, jobs_min=2, jobs_max=4)
    slots, batch = slot_list(settings, rng), job_batch(settings, rng)
    search = alp if algorithm is Algorithm.ALP else amp
    naive: list[list[Window]] = [[] for _ in batch]
    current, progress = list(slots), True
    while progress:
        progress = False
        for job, job_request in enumerate(batch):
            window = search(current, job_request)
            if window is not None:
                naive[job].append(window)
                current = cut_window(current, window)
                progress = True
    assert find_alternatives(slots, batch, algorithm) == naive


# --- the scans against the rules read literally ----------------------------------------------


def literal_scan(slots: list[Slot], job: Request, algorithm: Algorithm) -> Window | None:
    """§3 recomputed from scratch at every step: the alive slots are the suited ones so far
    that still cover their run time from the step's start; no heap, no sorted list."""

    def suits(s: Slot) -> bool:
        cheap = algorithm is Algorithm.AMP or s.price <= job.price_cap
        return (
            cheap
            and s.performance >= job.min_performance
            and s.end - s.start >= s.run_time(job.length)
        )

    for step, new in enumerate(slots):
        if not suits(new):
            continue
        alive = [
            (s.price * s.run_time(job.length), position)
            for position, s in enumerate(slots[: step + 1])
            if suits(s) and s.end - s.run_time(job.length) >= new.start
        ]
        if len(alive) < job.nodes:
            continue
        chosen = sorted(alive)[: job.nodes]
        if algorithm is Algorithm.ALP or sum(cost for cost, _ in chosen) <= job.budget:
            picked = sorted(position for _, position in chosen)
            return Window(new.start, job.length, tuple(slots[p] for p in picked))
    return None


def tied_slot_lists() -> st.SearchStrategy[list[Slot]]:
    """Short lists of whole-numbered slots: equal starts, costs and expiries abound."""
    one = st.tuples(
        st.integers(0, 6), st.integers(1, 8), st.sampled_from([1.0, 2.0]), st.integers(1, 3)
    )
    return st.lists(one, max_size=14).map(
        lambda rows: [
            Slot(node, float(start), float(start + length), performance, float(price))
            for node, (start, length, performance, price) in enumerate(
                sorted(rows, key=lambda row: row[0])
            )
        ]
    )


@pytest.mark.parametrize("algorithm", list(Algorithm))
@given(
    slots=tied_slot_lists(),
    nodes=st.integers(1, 4),
    length=st.sampled_from([1.0, 2.0, 4.0]),
    cap=st.sampled_from([1.0, 2.0, 3.0]),
)
def test_the_scans_find_what_the_rules_read_literally_find(
    algorithm: Algorithm, slots: list[Slot], nodes: int, length: float, cap: float
) -> None:
    job = Request(nodes, length, 1.0, cap)
    search = alp if algorithm is Algorithm.ALP else amp
    assert search(slots, job) == literal_scan(slots, job, algorithm)


@pytest.mark.parametrize("algorithm", list(Algorithm))
@given(slots=tied_slot_lists(), seed=st.integers(0, 1000))
def test_rounds_with_ties_find_what_naive_rounds_find(
    algorithm: Algorithm, slots: list[Slot], seed: int
) -> None:
    rng = random.Random(seed)
    batch = [
        Request(rng.randint(1, 3), rng.choice([1.0, 2.0]), 1.0, rng.choice([1.0, 2.0, 3.0]))
        for _ in range(rng.randint(1, 3))
    ]
    naive: list[list[Window]] = [[] for _ in batch]
    current, progress = list(slots), True
    while progress:
        progress = False
        for job, job_request in enumerate(batch):
            window = literal_scan(current, job_request, algorithm)
            if window is not None:
                naive[job].append(window)
                current = cut_window(current, window)
                progress = True
    assert find_alternatives(slots, batch, algorithm) == naive


def test_slots_joined_without_steps_are_checked_at_the_first_step() -> None:
    # the caller knows no window starts before position 2: slots 0 and 1 join unchecked, and
    # the first step must check them even though its own, dear slot is not among the cheapest
    cheap1, cheap2, dear = slot(0, 0, 300), slot(1, 10, 300), slot(2, 20, 300, price=9.0)
    found = _scan([cheap1, cheap2, dear], request(2, 100, cap=1.0), amp=True, begin=2)
    assert found is not None and found.window == Window(20, 100, (cheap1, cheap2))
    assert found.left_out_from == 20  # the dear slot was alive there and left out


@pytest.mark.parametrize("algorithm", list(Algorithm))
@given(seed=st.integers(0, 10_000), rounds=st.integers(0, 4))
def test_resumed_rectangular_rounds_find_what_whole_scans_find(
    algorithm: Algorithm, seed: int, rounds: int
) -> None:
    # several slots per node (gaps before reservations), speeds 1-3, two node filters: the
    # rounds as the rule reads (every scan over the whole filtered list) against the driver
    rng = random.Random(seed)
    slots = []
    for node in range(8):
        speed, price, time = rng.choice((1.0, 2.0, 3.0)), rng.uniform(1, 5), 0.0
        for _ in range(rng.randint(1, 4)):
            start = time + rng.choice((0.0, rng.uniform(0, 40)))
            time = start + rng.uniform(5, 80)
            slots.append(Slot(node, start, time, speed, price))
    slots.sort(key=lambda s: (s.start, s.node))
    batch = [
        Request(rng.randint(1, 3), rng.uniform(5, 60), rng.choice((0.0, 2.0)), rng.uniform(2, 6))
        for _ in range(rng.randint(1, 4))
    ]
    filters = [None if rng.random() < 0.5 else (lambda s: s.node % 2 == 0) for _ in batch]
    naive: list[list[Window]] = [[] for _ in batch]
    current, searching, done = list(slots), list(range(len(batch))), 0
    while searching and (not rounds or done < rounds):
        still = []
        for job in searching:
            accept = filters[job]
            mine = [s for s in current if accept is None or accept(s)]
            window = find_window(mine, batch[job], algorithm, Hold.WINDOW)
            if window is not None:
                naive[job].append(window)
                current = cut_window(current, window, Hold.WINDOW)
                still.append(job)
        searching, done = still, done + 1
    found = find_alternatives(
        slots, batch, algorithm, hold=Hold.WINDOW, rounds=rounds, usable=filters
    )
    assert found == naive
