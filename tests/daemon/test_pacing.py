"""The pacing adapter, on a clock the test turns by hand."""

from __future__ import annotations

import math

import pytest

from emulator.pacing import Pacer


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_paced_time_follows_the_wall_clock_at_the_speed() -> None:
    clock = FakeClock()
    pacer = Pacer(clock, speed=60.0)
    assert pacer.target() == 0.0
    clock.t += 2.5
    assert pacer.target() == 150.0
    assert pacer.delay(300.0) == pytest.approx(2.5)  # 150 s to go at 60x
    assert pacer.delay(100.0) == 0.0  # already due
    assert pacer.delay(math.inf) is None
    assert pacer.mode == "running at 60x"


def test_pause_freezes_and_resume_continues_without_a_leap() -> None:
    clock = FakeClock()
    pacer = Pacer(clock, speed=10.0)
    clock.t += 1
    pacer.pause(sim_now=10.0)
    clock.t += 100
    assert pacer.target() == 10.0
    assert pacer.delay(20.0) is None
    assert pacer.mode == "paused"
    pacer.resume(sim_now=10.0)
    assert pacer.target() == 10.0
    clock.t += 1
    assert pacer.target() == 20.0


def test_speed_changes_and_jumps_re_anchor() -> None:
    clock = FakeClock()
    pacer = Pacer(clock, speed=1.0)
    clock.t += 5
    pacer.set_speed(100.0, sim_now=5.0)
    clock.t += 1
    assert pacer.target() == 105.0
    pacer.anchor(5000.0)  # clock advance took the simulation ahead
    clock.t += 0.5
    assert pacer.target() == 5050.0


def test_as_fast_as_possible() -> None:
    clock = FakeClock()
    pacer = Pacer(clock, speed=math.inf)
    assert pacer.target() == math.inf
    assert pacer.delay(1e9) == 0.0
    assert pacer.mode == "as fast as possible"
    pacer.pause(3.0)
    assert pacer.target() == 3.0


def test_started_paused_and_bad_speeds() -> None:
    pacer = Pacer(FakeClock(), paused=True, start=7.0)
    assert pacer.target() == 7.0
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError):
            Pacer(FakeClock(), speed=bad)
        with pytest.raises(ValueError):
            pacer.set_speed(bad, 7.0)


def test_only_the_pacer_reads_a_monotonic_clock() -> None:
    """No simulation reads a clock; the pacer maps wall time to simulated time for live runs.
    The sweep's runner and its progress line time whole cells from outside the simulation."""
    import re
    from pathlib import Path

    import emulator

    root = Path(emulator.__file__).parent
    reads = re.compile(r"time\.monotonic|perf_counter|from time import|time\.time\(")
    readers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if reads.search(path.read_text(encoding="utf-8"))
    )
    assert readers == ["pacing.py", "sweep/cli.py", "sweep/runner.py"]
