"""The nodes drawn between full snapshots: :meth:`Session.nodes_snapshot` equals the clusters
of a snapshot taken instead, a snapshot after several of them equals one taken at once, and the
nodes view draws the same pixels from either (offscreen)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pyqtgraph")

from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from emulator.model.job import JobState, Request, Submission
from emulator.session import ClusterSnapshot, JobTable, Session, Snapshot
from gui.selection import Selection
from gui.views.nodes import CELL, NodesView
from tests.gui.helpers import platform


def session() -> Session:
    """EASY on two clusters of two-core nodes: jobs of 1-5 tasks arriving over time, some
    longer than their limit, so that starts, ends, timeouts and reservations interleave."""
    made = Session(platform(5, 3, cores=2), "easy")
    made.submit_workload(
        Submission(
            i,
            10.0 * (i // 3),
            Request(tasks=1 + i % 5, time_limit=60 + 20 * (i % 4), name=f"j{i}"),
            30.0 + 17 * (i % 7),
        )
        for i in range(1, 61)
    )
    return made


def same_clusters(a: tuple[ClusterSnapshot, ...], b: tuple[ClusterSnapshot, ...]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.name, x.first_node, x.node_names) == (y.name, y.first_node, y.node_names)
        for field in ("speeds", "cores", "free", "job"):
            assert np.array_equal(getattr(x, field), getattr(y, field)), field


def same_table(a: JobTable, b: JobTable) -> None:
    for field in dataclasses.fields(JobTable):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), field.name
        else:
            assert x == y, field.name


def live_segments(snapshot: Snapshot) -> list[tuple[float, ...]]:
    """The Gantt segments of the rows' current runs (in the order their rows were read)."""
    seg = snapshot.segments
    table = np.stack([seg.row, seg.lo, seg.hi, seg.start]).T[seg.row >= 0]
    return sorted(map(tuple, table.tolist()))


def running(snapshot: Snapshot) -> list[int]:
    jobs = snapshot.jobs
    return [int(i) for i in jobs.id[jobs.state == jobs.code(JobState.RUNNING)]]


def placed_as_running(session: Session, clusters: tuple[ClusterSnapshot, ...]) -> None:
    """Each node shows the latest started of the jobs running on it, or none."""
    jobs = session.engine.jobs.values()
    for cluster in clusters:
        for local, shown in enumerate(cluster.job.tolist()):
            node = cluster.first_node + local
            here = [j for j in jobs if j.state is JobState.RUNNING and node in j.nodes]
            assert shown == (max(here, key=lambda j: (j.start, j.id)).id if here else -1), node


def test_nodes_snapshots_equal_full_ones_and_leave_the_same_rows() -> None:
    incremental, full, once = session(), session(), session()
    moved = 0
    for step in range(40):
        for each in (incremental, full, once):
            each.run_until(math.inf, max_events=3)
        if step == 12:  # commands re-read every row: a requeue moves a job without a hook
            victim = running(full.snapshot())[0]
            for each in (incremental, full, once):
                assert each.command(f"scontrol requeue {victim}").exit_code == 0
                assert each.command("scancel 40").exit_code == 0
        nodes = incremental.nodes_snapshot()
        assert incremental.nodes_snapshot() is nodes  # made once per version
        placed_as_running(incremental, nodes)
        same_clusters(nodes, full.snapshot().clusters)
        moved += int((nodes[0].job >= 0).sum())
    assert moved  # jobs ran on the nodes drawn
    last = incremental.snapshot()
    assert last.clusters is incremental.nodes_snapshot()  # the same version: shared
    for other in (full.snapshot(), once.snapshot()):
        same_clusters(last.clusters, other.clusters)
        same_table(last.jobs, other.jobs)
        assert live_segments(last) == live_segments(other)
        assert [entry.text for entry in last.events] == [entry.text for entry in other.events]


def test_the_nodes_view_draws_the_same_from_either_snapshot(qtbot: QtBot) -> None:
    between, full = session(), session()
    views = NodesView(Selection()), NodesView(Selection())
    for view in views:
        qtbot.addWidget(view)
    views[0].show_snapshot(between.snapshot())
    views[1].show_snapshot(full.snapshot())
    started = set(running(between.snapshot()))
    for _ in range(15):
        between.run_until(math.inf, max_events=4)
        full.run_until(math.inf, max_events=4)
        views[1].show_snapshot(full.snapshot())
        # the jobs sharing a node come with full snapshots only: the same known to both
        views[0].others = views[1].others
        views[0].show_clusters(between.nodes_snapshot())
        for k in range(2):
            assert np.array_equal(views[0].image(k), views[1].image(k))
    assert views[0].snapshot is not None and views[0].snapshot.now == 0.0  # its last full one
    # a node whose job started since: its id, the name waits for the next full snapshot
    cluster = views[0].clusters[0]
    local = next(i for i, job in enumerate(cluster.job) if job >= 0 and job not in started)
    assert views[0].describe(0, local).endswith(f"\njob {int(cluster.job[local])}")
    assert "\njob " in views[1].describe(0, local) and "(" in views[1].describe(0, local)


def test_the_image_is_opaque_and_shows_the_array_without_a_copy(qtbot: QtBot) -> None:
    made = session()
    view = NodesView(Selection())
    qtbot.addWidget(view)
    view.show_snapshot(made.snapshot())
    view.show()
    qtbot.waitExposed(view)
    item = view.images[0]
    qtbot.waitUntil(lambda: item.qimage is not None)  # painted once
    assert item.qimage.format() == QImage.Format.Format_RGBX8888
    before = view.image(0).copy()
    made.run_until(math.inf, max_events=6)
    view.show_clusters(made.nodes_snapshot())  # cells redrawn in the array, not painted yet
    assert not np.array_equal(before, view.image(0))
    cluster = view.clusters[0]
    width = view.columns(0)
    for local in range(len(cluster.node_names)):  # what Qt paints is the array's pixel
        x, y = (local % width) * CELL + 4, (local // width) * CELL + 5
        colour = item.qimage.pixelColor(x, y)
        red, green, blue, _ = view.image(0)[y, x]
        assert (colour.red(), colour.green(), colour.blue()) == (red, green, blue)
