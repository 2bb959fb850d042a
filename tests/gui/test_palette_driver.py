"""The GUI's Qt-free parts: job colours, and the driver that steers a lone daemon's clock."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from emulator.session import Pacer
from gui import palette
from gui.driver import Driver
from tests.gui.helpers import FakeClock, daemon, single_cluster_file


def test_a_job_keeps_its_colour_and_idle_is_distinct() -> None:
    ids = np.arange(1, 2001)
    first = palette.colours(ids)
    assert np.array_equal(first, palette.colours(ids))  # the same in every view and run
    assert tuple(palette.colours([-1])[0]) == tuple(palette.IDLE)
    assert not (first == palette.IDLE).all(axis=1).any()
    # consecutive ids (a job and the next one) get different colours, and all are used
    assert (palette.index(ids[1:]) != palette.index(ids[:-1])).all()
    assert set(palette.index(ids).tolist()) == set(range(palette.SIZE))
    assert palette.colour(7) == tuple(int(v) for v in first[6][:3])


def test_a_lone_daemon_s_clock_rules_and_the_driver_follows_it(tmp_path: Path) -> None:
    session = daemon(single_cluster_file(tmp_path, 2), "fcfs")
    try:
        driver = Driver((session,), Pacer(FakeClock()))
        assert not driver.playing and driver.speed == 60.0  # the daemon's (open_child's) speed
        driver.set_speed(600.0)
        driver.play()
        clock = session.steer("show")["clock"]
        assert driver.playing and clock["paused"] is False and clock["speed"] == 600.0
        driver.pause()
        assert not driver.playing and session.steer("show")["clock"]["paused"] is True
        # steered elsewhere (batchlab clock): the driver follows at its next tick
        session.steer("speed", None)
        session.steer("resume")
        driver.tick()
        assert driver.playing and math.isinf(driver.speed)
        assert driver.trouble is None
    finally:
        session.close()


def test_stop_at_runs_the_daemon_there_and_pauses(tmp_path: Path) -> None:
    line = 'sbatch -n 1 -t 10 --wrap "sleep 100"'
    session = daemon(single_cluster_file(tmp_path, 2), "fcfs", line, line, line)
    try:
        driver = Driver((session,), Pacer(FakeClock()))
        driver.stop_at = 155.0
        driver.play()
        assert driver.playing
        driver.settle()
        driver.tick()
        assert session.now == 155.0 and not driver.playing
        assert session.steer("show")["clock"]["paused"] is True
    finally:
        session.close()


def test_a_window_s_own_daemon_stops_when_the_workload_is_done(tmp_path: Path) -> None:
    line = 'sbatch -n 1 -t 10 --wrap "sleep 100"'
    session = daemon(single_cluster_file(tmp_path, 2), "fcfs", line)
    try:
        driver = Driver((session,), Pacer(FakeClock()))
        driver.stop_when_idle = True
        driver.set_speed(math.inf)
        driver.play()
        deadline = time.monotonic() + 30.0
        while driver.playing and time.monotonic() < deadline:
            time.sleep(0.02)
            session.snapshot()  # (the window's refresh asks for it)
            driver.tick()
        # the job ended at 100 s: nothing is left, the clock stopped there, not days later
        assert not driver.playing and session.idle
        assert session.steer("show")["clock"]["paused"] is True
        assert session.steer("show")["clock"]["now"] < 3600.0
    finally:
        session.close()
