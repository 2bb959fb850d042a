"""The event kernel (emulator/kernel.py): order by (time, kind, sequence), the end-of-instant
settle hook (the engine's scheduling pass), cancel, run limits, determinism.

Handlers record ``(now, kind, payload)`` in a list, as SimPy's own tests do; the settle hook
records ``(now, "SETTLE", None)``.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from emulator.kernel import EventKind, Kernel

KINDS = list(EventKind)
Trace = list[tuple[float, str, Any]]


def recording_kernel(start: float = 0.0, settle: bool = True) -> tuple[Kernel, Trace]:
    """A kernel whose handlers record their event and (if ``settle``) ask for the settle hook,
    as the engine asks for a scheduling pass after every completion, arrival and timer."""
    trace: Trace = []

    def make(kind: EventKind) -> Any:
        def handler(payload: Any) -> None:
            trace.append((kernel.now, kind.name, payload))
            if settle:
                kernel.request_settle()

        return handler

    def on_settle() -> None:
        trace.append((kernel.now, "SETTLE", None))

    kernel = Kernel({kind: make(kind) for kind in KINDS}, settle=on_settle, start=start)
    return kernel, trace


def payloads(trace: Trace) -> list[Any]:
    return [payload for _, name, payload in trace if name != "SETTLE"]


def test_kind_priorities() -> None:
    assert [kind.name for kind in sorted(KINDS)] == ["JOB_END", "ARRIVAL", "TIMER"]


# --- order at one instant --------------------------------------------------------------------


@pytest.mark.parametrize("order", list(itertools.permutations(KINDS)))
def test_one_instant_runs_end_arrival_timer_then_settle(order: tuple[EventKind, ...]) -> None:
    kernel, trace = recording_kernel()
    for kind in order:
        kernel.at(7.0, kind, kind.value)
    assert kernel.run() == 3  # the settle hook is not an event
    assert trace == [
        (7.0, "JOB_END", 0),
        (7.0, "ARRIVAL", 1),
        (7.0, "TIMER", 2),
        (7.0, "SETTLE", None),
    ]


def test_time_comes_before_kind() -> None:
    kernel, trace = recording_kernel()
    kernel.at(2.0, EventKind.JOB_END, "end")
    kernel.at(1.0, EventKind.TIMER, "timer")
    kernel.at(1.5, EventKind.ARRIVAL, "arrival")
    assert kernel.run() == 3
    assert trace == [
        (1.0, "TIMER", "timer"),
        (1.0, "SETTLE", None),
        (1.5, "ARRIVAL", "arrival"),
        (1.5, "SETTLE", None),
        (2.0, "JOB_END", "end"),
        (2.0, "SETTLE", None),
    ]


def test_ties_run_in_insertion_order() -> None:
    kernel, trace = recording_kernel()
    for payload in ["c", "a", "b", "d"]:
        kernel.at(3.0, EventKind.ARRIVAL, payload)
    kernel.at(3.0, EventKind.JOB_END, "x")
    kernel.at(3.0, EventKind.JOB_END, "y")
    kernel.run()
    assert payloads(trace) == ["x", "y", "c", "a", "b", "d"]
    assert trace[-1] == (3.0, "SETTLE", None)
    assert [name for _, name, _ in trace].count("SETTLE") == 1  # once per instant


def test_payloads_are_never_compared() -> None:
    kernel, trace = recording_kernel(settle=False)
    kernel.at(1.0, EventKind.ARRIVAL, {"job": 1})  # dicts do not order: a compare would raise
    kernel.at(1.0, EventKind.ARRIVAL, {"job": 2})
    kernel.run()
    assert payloads(trace) == [{"job": 1}, {"job": 2}]


def test_settle_runs_only_when_requested() -> None:
    kernel, trace = recording_kernel(settle=False)
    kernel.at(1.0, EventKind.ARRIVAL, "a")
    kernel.at(2.0, EventKind.ARRIVAL, "b")
    kernel.run()
    assert trace == [(1.0, "ARRIVAL", "a"), (2.0, "ARRIVAL", "b")]
    assert kernel.settle_pending is False


def test_events_added_at_the_current_instant_take_their_place() -> None:
    """A completion's handler adds an arrival now: it runs before the timer already queued. The
    settle hook adds a completion now: it runs next, and the hook settles the instant again."""
    trace: Trace = []

    def on_end(payload: Any) -> None:
        trace.append((kernel.now, "JOB_END", payload))
        if payload == "first":
            kernel.at(kernel.now, EventKind.ARRIVAL, "spawned")
        kernel.request_settle()

    def on_arrival(payload: Any) -> None:
        trace.append((kernel.now, "ARRIVAL", payload))
        kernel.request_settle()

    def on_timer(payload: Any) -> None:
        trace.append((kernel.now, "TIMER", payload))
        kernel.request_settle()

    def on_settle() -> None:
        trace.append((kernel.now, "SETTLE", None))
        if not any(payload == "zero-length" for _, _, payload in trace):
            kernel.at(kernel.now, EventKind.JOB_END, "zero-length")

    kernel = Kernel(
        {EventKind.JOB_END: on_end, EventKind.ARRIVAL: on_arrival, EventKind.TIMER: on_timer},
        settle=on_settle,
    )
    kernel.at(5.0, EventKind.TIMER, "timer")
    kernel.at(5.0, EventKind.JOB_END, "first")
    kernel.at(6.0, EventKind.ARRIVAL, "later")
    assert kernel.run() == 5
    assert trace == [
        (5.0, "JOB_END", "first"),
        (5.0, "ARRIVAL", "spawned"),
        (5.0, "TIMER", "timer"),
        (5.0, "SETTLE", None),
        (5.0, "JOB_END", "zero-length"),
        (5.0, "SETTLE", None),
        (6.0, "ARRIVAL", "later"),
        (6.0, "SETTLE", None),
    ]


def test_event_ids_increase() -> None:
    kernel, _ = recording_kernel()
    ids = [kernel.at(float(t), EventKind.TIMER) for t in (3, 1, 2)]
    assert ids == [1, 2, 3]


# --- cancel ----------------------------------------------------------------------------------


def test_cancelled_event_does_not_run() -> None:
    kernel, trace = recording_kernel()
    kernel.at(1.0, EventKind.ARRIVAL, "a")
    doomed = kernel.at(2.0, EventKind.JOB_END, "b")
    kernel.at(3.0, EventKind.ARRIVAL, "c")
    kernel.cancel(doomed)
    assert len(kernel) == 2
    assert kernel.run() == 2  # cancelled events are not counted
    assert trace == [
        (1.0, "ARRIVAL", "a"),
        (1.0, "SETTLE", None),
        (3.0, "ARRIVAL", "c"),
        (3.0, "SETTLE", None),
    ]
    assert kernel.now == 3.0
    assert len(kernel) == 0


def test_cancelling_the_head_moves_next_time() -> None:
    kernel, trace = recording_kernel(settle=False)
    head = kernel.at(1.0, EventKind.JOB_END, "head")
    kernel.at(4.0, EventKind.TIMER, "later")
    assert kernel.next_time() == 1.0
    kernel.cancel(head)
    assert kernel.next_time() == 4.0
    assert kernel.step() is True
    assert trace == [(4.0, "TIMER", "later")]


def test_cancel_inside_a_handler() -> None:
    trace: list[Any] = []
    ids: dict[str, int] = {}

    def on_end(payload: Any) -> None:
        trace.append(payload)
        kernel.cancel(ids["timer"])  # the job ended before its time limit

    kernel = Kernel({EventKind.JOB_END: on_end, EventKind.TIMER: trace.append})
    ids["timer"] = kernel.at(10.0, EventKind.TIMER, "time limit")
    kernel.at(6.0, EventKind.JOB_END, "done")
    assert kernel.run() == 1
    assert trace == ["done"]
    assert kernel.now == 6.0


def test_step_is_false_when_only_cancelled_events_remain() -> None:
    kernel, trace = recording_kernel()
    kernel.cancel(kernel.at(1.0, EventKind.ARRIVAL))
    assert kernel.step() is False
    assert kernel.next_time() == math.inf
    assert trace == []
    assert kernel.now == 0.0


def test_cancelled_event_at_the_same_instant_does_not_delay_settle() -> None:
    kernel, trace = recording_kernel()
    kernel.at(1.0, EventKind.ARRIVAL, "a")
    kernel.cancel(kernel.at(1.0, EventKind.TIMER, "cancelled"))
    kernel.at(5.0, EventKind.ARRIVAL, "b")
    kernel.run()
    assert trace == [
        (1.0, "ARRIVAL", "a"),
        (1.0, "SETTLE", None),
        (5.0, "ARRIVAL", "b"),
        (5.0, "SETTLE", None),
    ]


def test_settle_runs_when_the_last_event_is_cancelled() -> None:
    kernel, trace = recording_kernel()
    kernel.at(1.0, EventKind.ARRIVAL, "a")
    kernel.cancel(kernel.at(1.0, EventKind.TIMER, "cancelled"))
    kernel.run()
    assert trace == [(1.0, "ARRIVAL", "a"), (1.0, "SETTLE", None)]
    assert kernel.settle_pending is False


def test_len_ignores_cancels_of_events_already_run() -> None:
    kernel, _ = recording_kernel()
    first = kernel.at(1.0, EventKind.ARRIVAL)
    kernel.at(2.0, EventKind.ARRIVAL)
    kernel.step()
    kernel.cancel(first)  # too late: it ran
    assert len(kernel) == 1


# --- step and run ----------------------------------------------------------------------------


def test_step_returns_false_when_empty() -> None:
    kernel, trace = recording_kernel()
    assert kernel.step() is False
    assert kernel.next_time() == math.inf
    assert kernel.run() == 0
    assert kernel.now == 0.0
    assert trace == []


def test_step_processes_one_event_and_settles_its_instant() -> None:
    kernel, trace = recording_kernel()
    kernel.at(2.0, EventKind.ARRIVAL, 1)
    kernel.at(2.0, EventKind.ARRIVAL, 2)
    kernel.at(3.0, EventKind.ARRIVAL, 3)
    assert kernel.step() is True
    assert trace == [(2.0, "ARRIVAL", 1)]  # the instant is not over: no settle yet
    assert len(kernel) == 2
    assert kernel.step() is True
    assert trace[1:] == [(2.0, "ARRIVAL", 2), (2.0, "SETTLE", None)]
    assert kernel.step() is True
    assert kernel.step() is False
    assert trace[3:] == [(3.0, "ARRIVAL", 3), (3.0, "SETTLE", None)]


def test_step_runs_a_pending_settle() -> None:
    kernel, trace = recording_kernel()
    kernel.request_settle()  # e.g. the scheduler was switched: a pass is due now
    kernel.step()
    assert trace == [(0.0, "SETTLE", None)]
    assert kernel.settle_pending is False
    assert kernel.step() is False


def test_step_reports_a_settle_run_alone() -> None:
    kernel, trace = recording_kernel()
    kernel.request_settle()
    assert kernel.step() is True
    assert trace == [(0.0, "SETTLE", None)]


def test_run_starts_with_a_pending_settle() -> None:
    kernel, trace = recording_kernel()
    kernel.at(4.0, EventKind.ARRIVAL, "a")
    kernel.request_settle()
    kernel.request_settle()  # asking twice settles once
    assert kernel.run() == 1
    assert trace == [(0.0, "SETTLE", None), (4.0, "ARRIVAL", "a"), (4.0, "SETTLE", None)]


def test_run_until_stops_at_and_sets_the_clock_to_until() -> None:
    kernel, trace = recording_kernel(settle=False)
    for t in (1.0, 2.0, 3.0, 5.0):
        kernel.at(t, EventKind.TIMER, t)
    assert kernel.run(until=3.0) == 3  # an event exactly at `until` runs
    assert kernel.now == 3.0
    assert kernel.run(until=4.0) == 0
    assert kernel.now == 4.0  # the clock moves to `until` though nothing happened
    assert kernel.run(until=4.5) == 0
    assert kernel.now == 4.5
    assert kernel.next_time() == 5.0
    assert kernel.run() == 1
    assert kernel.now == 5.0  # unbounded run: the clock stays at the last event
    assert payloads(trace) == [1.0, 2.0, 3.0, 5.0]


def test_run_until_settles_the_instant_at_until() -> None:
    kernel, trace = recording_kernel()
    kernel.at(3.0, EventKind.ARRIVAL, "a")
    kernel.at(3.0, EventKind.ARRIVAL, "b")
    kernel.at(8.0, EventKind.ARRIVAL, "c")
    assert kernel.run(until=3.0) == 2
    assert trace == [(3.0, "ARRIVAL", "a"), (3.0, "ARRIVAL", "b"), (3.0, "SETTLE", None)]


def test_run_until_between_events() -> None:
    kernel, trace = recording_kernel(settle=False)
    kernel.at(1.0, EventKind.ARRIVAL, "a")
    kernel.at(10.0, EventKind.ARRIVAL, "b")
    assert kernel.run(until=2.5) == 1
    assert kernel.now == 2.5
    with pytest.raises(ValueError, match="before now"):
        kernel.at(2.0, EventKind.TIMER)
    kernel.at(2.5, EventKind.TIMER, "now")  # the present is fine
    kernel.run()
    assert trace == [(1.0, "ARRIVAL", "a"), (2.5, "TIMER", "now"), (10.0, "ARRIVAL", "b")]


def test_run_until_on_an_empty_kernel_moves_the_clock() -> None:
    kernel, _ = recording_kernel()
    assert kernel.run(until=60.0) == 0
    assert kernel.now == 60.0


def test_run_max_events() -> None:
    kernel, trace = recording_kernel(settle=False)
    for t in (1.0, 2.0, 3.0, 4.0):
        kernel.at(t, EventKind.ARRIVAL, t)
    assert kernel.run(max_events=2) == 2
    assert kernel.now == 2.0
    assert kernel.run(until=10.0, max_events=1) == 1
    assert kernel.now == 3.0  # stopped by max_events: the clock does not jump to `until`
    assert kernel.run(max_events=0) == 0
    assert kernel.now == 3.0
    assert kernel.run(until=10.0, max_events=5) == 1
    assert kernel.now == 10.0
    assert payloads(trace) == [1.0, 2.0, 3.0, 4.0]


def test_run_counts_events_added_by_handlers() -> None:
    count = {"n": 0}

    def on_timer(payload: Any) -> None:
        count["n"] += 1
        if payload > 0:
            kernel.at(kernel.now + 1.0, EventKind.TIMER, payload - 1)

    kernel = Kernel({EventKind.TIMER: on_timer})
    kernel.at(0.0, EventKind.TIMER, 4)
    assert kernel.run() == 5
    assert (count["n"], kernel.now) == (5, 4.0)


def test_scheduling_in_the_past_raises() -> None:
    kernel, _ = recording_kernel(start=100.0)
    assert kernel.now == 100.0
    with pytest.raises(ValueError, match=r"cannot schedule ARRIVAL at 99\.0 before now \(100\.0\)"):
        kernel.at(99.0, EventKind.ARRIVAL)
    assert len(kernel) == 0
    kernel.at(100.0, EventKind.ARRIVAL)
    assert len(kernel) == 1


def test_event_kind_without_handler_is_consumed() -> None:
    trace: list[Any] = []
    kernel = Kernel({EventKind.ARRIVAL: trace.append})
    kernel.at(1.0, EventKind.TIMER, "nobody listens")
    kernel.at(2.0, EventKind.ARRIVAL, "heard")
    assert kernel.run() == 2
    assert trace == ["heard"]
    assert kernel.now == 2.0


def test_kernel_without_settle_hook_clears_requests() -> None:
    kernel = Kernel({EventKind.ARRIVAL: lambda _: kernel.request_settle()})
    kernel.at(1.0, EventKind.ARRIVAL)
    assert kernel.run() == 1
    assert kernel.settle_pending is False


# --- determinism -----------------------------------------------------------------------------


def scenario(seed: int) -> Trace:
    """A busy little world: arrivals spawn completions and time-limit timers, even jobs cancel
    their timer when they end, and every event asks for the settle hook."""
    rng = random.Random(seed)
    trace: Trace = []
    timers: dict[int, int] = {}

    def on_arrival(job: int) -> None:
        trace.append((kernel.now, "ARRIVAL", job))
        kernel.at(kernel.now + rng.choice([1.0, 2.0, 3.0]), EventKind.JOB_END, job)
        timers[job] = kernel.at(kernel.now + 2.0, EventKind.TIMER, job)
        kernel.request_settle()

    def on_end(job: int) -> None:
        trace.append((kernel.now, "JOB_END", job))
        if job % 2 == 0:
            kernel.cancel(timers[job])
        kernel.request_settle()

    def on_timer(job: int) -> None:
        trace.append((kernel.now, "TIMER", job))
        kernel.request_settle()

    def on_settle() -> None:
        trace.append((kernel.now, "SETTLE", None))

    kernel = Kernel(
        {EventKind.JOB_END: on_end, EventKind.ARRIVAL: on_arrival, EventKind.TIMER: on_timer},
        settle=on_settle,
    )
    for job in range(40):
        kernel.at(float(rng.randrange(0, 20)), EventKind.ARRIVAL, job)
    kernel.run()
    return trace


def test_two_identical_runs_give_identical_traces() -> None:
    first, second = scenario(7), scenario(7)
    assert first == second
    assert scenario(8) != first
    times = [t for t, _, _ in first]
    assert times == sorted(times)
    by_kind: dict[str, dict[int, float]] = {kind.name: {} for kind in KINDS}
    for t, name, job in first:
        if name != "SETTLE":
            assert job not in by_kind[name]
            by_kind[name][job] = t
    arrivals, ends = by_kind["ARRIVAL"], by_kind["JOB_END"]
    assert sorted(arrivals) == sorted(ends) == list(range(40))
    assert {ends[j] - arrivals[j] for j in range(40)} <= {1.0, 2.0, 3.0}
    # An even job cancels its timer when it ends; a timer due at the same instant loses
    # (JOB_END comes first), so only timers of odd jobs and of even jobs running 3 s fire.
    fired = {j for j in range(40) if j % 2 or ends[j] - arrivals[j] == 3.0}
    assert set(by_kind["TIMER"]) == fired
    assert all(by_kind["TIMER"][j] == arrivals[j] + 2.0 for j in fired)
