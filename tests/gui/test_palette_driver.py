"""The GUI's Qt-free parts: job colours and the driver that paces the session."""

from __future__ import annotations

import math

import numpy as np

from emulator.model.job import Request, Submission
from emulator.model.platform import Platform
from emulator.session import Pacer, Session
from gui import palette
from gui.driver import Driver


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


def session_with_work() -> Session:
    session = Session(Platform.single_cluster(2), "fcfs")
    session.submit_workload(
        Submission(i, 10.0 * i, Request(tasks=1, time_limit=600, name=f"j{i}"), 100.0)
        for i in range(1, 21)
    )
    return session


def test_driver_follows_the_pacer_and_pause_stops_the_clock() -> None:
    wall = [0.0]
    session = session_with_work()
    driver = Driver(session, Pacer(lambda: wall[0], speed=10.0))
    assert not driver.playing and driver.tick() == 0
    wall[0] = 5.0
    driver.tick()
    assert session.now == 0.0  # paused: wall time passing changes nothing
    driver.play()
    wall[0] = 7.0
    driver.tick()
    assert session.now == 20.0  # 2 wall seconds at 10x
    driver.pause()
    wall[0] = 100.0
    driver.tick()
    driver.tick()
    assert session.now == 20.0


def test_driver_ticks_are_bounded_and_stop_when_idle() -> None:
    wall = [0.0]
    session = session_with_work()
    driver = Driver(session, Pacer(lambda: wall[0]), chunk=3, budget=0.0)
    driver.set_speed(math.inf)
    driver.play()
    # no wall time to spend: each tick processes one chunk of events, then gives up
    events = driver.tick()
    assert events == 3 and driver.behind and driver.playing
    driver.budget = 1e9
    while driver.playing:
        driver.tick()
    assert session.idle and session.now == 1020.0  # 20 jobs of 100 s, 2 at a time, from 10 s


def test_stop_at_pauses_there() -> None:
    session = session_with_work()
    driver = Driver(session, Pacer(lambda: 0.0))
    driver.stop_at = 55.0
    driver.set_speed(math.inf)
    driver.play()
    driver.budget = 1e9
    driver.tick()
    assert session.now == 55.0 and not driver.playing
