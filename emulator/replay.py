"""Trace replay: stream a workload through the engine and record what happened.

The recorder keeps finished jobs as compact columns, so memory grows by ~40 bytes per job while
the engine itself holds only waiting and running jobs.
"""

from __future__ import annotations

import io
import json
import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from emulator.api.registry import SchedulerSpec
from emulator.engine import Engine, Observer
from emulator.metrics import LinkUsage, Summary, link_usage, round_floats, summarize
from emulator.model.cost import job_cost, priced
from emulator.model.job import Job, JobState, Submission
from emulator.model.platform import Platform

_STATES = list(JobState)
_STATE_CODE = {state: code for code, state in enumerate(_STATES)}


_BLOCK = 4096  # finished jobs noted as tuples before they move into the columns
_ROWS_PER_WRITE = 1 << 16  # jobs.csv rows formatted at once: memory stays bounded


class Recorder(Observer):
    """Finished jobs as columns, in completion order.

    A finished job is noted as one tuple (one append, cheaper than seven column appends), and
    the tuples move into the typed columns a block at a time: memory stays about that of the
    columns.
    """

    def __init__(self, platform: Platform, with_nodes: bool = False) -> None:
        self.platform = platform
        self._columns: tuple[array[Any], ...] = (
            array("q"),  # job id
            array("d"),  # submit
            array("d"),  # start
            array("d"),  # end
            array("h"),  # cluster
            array("i"),  # cores
            array("b"),  # state code
        )
        self._block: list[tuple[int, float, float, float, int, int, int]] = []
        self._placed: list[tuple[int, ...]] | None = [] if with_nodes else None  # job.nodes
        self.moved: dict[int, tuple[int, ...]] = {}  # job id -> clusters it was reallocated from
        # each job's cost, in completion order, on a priced platform only (emulator.model.cost)
        self.costs: array[float] | None = array("d") if priced(platform) else None

    def __len__(self) -> int:
        return len(self._columns[0]) + len(self._block)

    def job_ended(self, job: Job) -> None:
        block = self._block
        block.append(
            (job.id, job.submit, job.start, job.end, job.cluster, job.cores, _STATE_CODE[job.state])
        )
        if job.moved_from:
            self.moved[job.id] = job.moved_from
        if self.costs is not None:
            self.costs.append(job_cost(self.platform, job, job.end))
        if len(block) == _BLOCK:
            self._flush()
        if self._placed is not None:
            self._placed.append(job.nodes)

    @property
    def nodes(self) -> list[tuple[str, str]] | None:
        """Each finished job's node names and cluster names, joined as jobs.csv shows them, in
        completion order; None unless asked for (``with_nodes``). Made when read: making them
        as each job ended slowed a session on a big platform noticeably."""
        if self._placed is None:
            return None
        nodes, clusters = self.platform.nodes, self.platform.clusters
        joined = []
        for ids in self._placed:
            names = [nodes[n] for n in ids]
            spanned = sorted({n.cluster for n in names})
            joined.append(
                (" ".join(n.name for n in names), "+".join(clusters[k].name for k in spanned))
            )
        return joined

    def _flush(self) -> None:
        if self._block:
            for column, values in zip(self._columns, zip(*self._block, strict=True), strict=True):
                column.fromlist(list(values))  # (extend goes item by item: slower)
            self._block.clear()

    def _column(self, index: int) -> array[Any]:
        self._flush()
        return self._columns[index]

    @property
    def ids(self) -> array[int]:
        return self._column(0)

    @property
    def submit(self) -> array[float]:
        return self._column(1)

    @property
    def start(self) -> array[float]:
        return self._column(2)

    @property
    def end(self) -> array[float]:
        return self._column(3)

    @property
    def cluster(self) -> array[int]:
        return self._column(4)

    @property
    def cores(self) -> array[int]:
        return self._column(5)

    @property
    def state(self) -> array[int]:
        return self._column(6)

    def order(self) -> npt.NDArray[np.intp]:
        """Row order by job id."""
        order: npt.NDArray[np.intp] = np.argsort(
            np.frombuffer(self.ids, dtype=np.int64), kind="stable"
        )
        return order

    def summary(self, dropped: int = 0) -> Summary:
        states = np.frombuffer(self.state, dtype=np.int8)
        return summarize(
            self.submit,
            self.start,
            self.end,
            self.cores,
            self.platform.cores,
            dropped=dropped,
            timeouts=int((states == _STATE_CODE[JobState.TIMEOUT]).sum()),
        )

    def times_by_id(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any], npt.NDArray[Any]]:
        """Job ids (ascending) and each job's start and end, as columns."""
        order = self.order()
        ids = np.frombuffer(self.ids, dtype=np.int64)
        start = np.frombuffer(self.start, dtype=np.float64)
        end = np.frombuffer(self.end, dtype=np.float64)
        return ids[order], start[order], end[order]

    def write_jobs_csv(self, out: TextIO) -> None:
        """The job table, by job id, a block of rows at a time (see :mod:`emulator.text_columns`:
        the same text as formatting each value with ``.10g``, several times faster)."""
        from emulator.text_columns import lookup_texts, number_texts, write_rows  # (Arrow)

        columns = "job_id,submit,start,end,cluster,cores,state"
        nodes = self.nodes
        if nodes is not None:
            columns += ",nodes,clusters"
        moved = self.moved
        if moved:  # a run that reallocated jobs: how often each moved, and from where
            columns += ",reallocations,moved_from"
        costs = self.costs
        if costs is not None:  # a priced platform: what each job cost
            columns += ",cost"
        names = [c.name for c in self.platform.clusters]
        out.write(columns + "\n")
        order = self.order()
        ids = np.frombuffer(self.ids, dtype=np.int64)
        submit, start, end = (
            np.frombuffer(c, dtype=np.float64) for c in (self.submit, self.start, self.end)
        )
        cluster = np.frombuffer(self.cluster, dtype=np.int16)
        cores = np.frombuffer(self.cores, dtype=np.int32)
        state = np.frombuffer(self.state, dtype=np.int8)
        cluster_names = [*names, ""]  # cluster -1 (never placed): the last, empty
        state_names = [s.name for s in _STATES]
        cost_values = None if costs is None else np.asarray(costs, dtype=np.float64)
        for first in range(0, len(order), _ROWS_PER_WRITE):
            rows = order[first : first + _ROWS_PER_WRITE]
            block: list[Any] = [
                number_texts(ids[rows], "g10"),
                number_texts(submit[rows], "g10"),
                number_texts(start[rows], "g10"),
                number_texts(end[rows], "g10"),
                lookup_texts(
                    np.where(cluster[rows] >= 0, cluster[rows], len(names)), cluster_names
                ),
                number_texts(cores[rows], "g10"),
                lookup_texts(state[rows], state_names),
            ]
            picked = rows.tolist()
            if nodes is not None:
                block += [[nodes[row][0] for row in picked], [nodes[row][1] for row in picked]]
            if moved:
                left = [moved.get(int(ids[row]), ()) for row in picked]
                block += [
                    [str(len(clusters)) for clusters in left],
                    ["+".join(names[k] for k in clusters) for clusters in left],
                ]
            if cost_values is not None:
                block.append(number_texts(cost_values[rows], "g10"))
            write_rows(out, block, ",")


@dataclass(frozen=True, slots=True)
class ReplayResult:
    recorder: Recorder
    summary: Summary  # its ``dropped`` counts the reader's drops and :attr:`never_ran`
    links: dict[str, LinkUsage]  # links that carried traffic, by cluster name
    # jobs still pending when nothing was left to happen, by Slurm reason (PartitionConfig: more
    # cores than any cluster its policy may use): they can never run, so they are dropped
    never_ran: dict[str, int] = field(default_factory=dict)

    def dropped_by_reason(self) -> dict[str, int]:
        """:attr:`never_ran` as ``summary.json`` names it (``dropped_pending_<reason>``)."""
        return {f"dropped_pending_{reason}": count for reason, count in self.never_ran.items()}


def replay(
    submissions: Iterable[Submission],
    platform: Platform,
    scheduler: SchedulerSpec | str,
    *,
    with_nodes: bool = False,
    progress: Callable[[int], None] | None = None,
    dropped: Callable[[], int] = lambda: 0,
) -> ReplayResult:
    """Replay ``submissions`` on ``platform``; ``progress`` hears the finished-job count."""
    engine = Engine(platform, scheduler, keep_finished=False)
    recorder = Recorder(platform, with_nodes)
    engine.observe(recorder)
    engine.feed(submissions)
    while engine.run(max_events=50_000):
        if progress is not None:
            progress(len(recorder))
    never_ran = Counter(job.reason.name.lower() for job in engine.jobs.values())
    summary = recorder.summary(dropped() + never_ran.total())
    links = used_links(engine, min(recorder.submit, default=0.0))
    return ReplayResult(recorder, summary, links, dict(sorted(never_ran.items())))


def used_links(engine: Engine, start: float) -> dict[str, LinkUsage]:
    """Usage from ``start`` to now of each link that carried traffic, by cluster name."""
    network = engine.network
    return {
        cluster.name: link_usage(network.history[k], network.capacity[k], start, engine.now)
        for k, cluster in enumerate(engine.platform.clusters)
        if len(network.history[k]) > 1
    }


def write_results(out: Path, result: ReplayResult, about: dict[str, Any]) -> None:
    """``jobs.csv`` and ``summary.json`` (``about`` first) in directory ``out``, created if
    missing: what ``batchlab replay`` writes (the job table streamed, for traces of millions)."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "jobs.csv").open("w", encoding="utf-8") as jobs:
        result.recorder.write_jobs_csv(jobs)
    (out / "summary.json").write_text(summary_json(result, about), encoding="utf-8")


def result_files(result: ReplayResult, about: dict[str, Any]) -> dict[str, str]:
    """What :func:`write_results` writes, as texts by file name: a window's File > Save
    results, which may be made in a daemon and written by its client."""
    jobs = io.StringIO()
    result.recorder.write_jobs_csv(jobs)
    return {"jobs.csv": jobs.getvalue(), "summary.json": summary_json(result, about)}


def save_files(directory: Path, files: dict[str, str]) -> None:
    """Write ``files`` (texts by name) into ``directory``, created if missing (OSError if it
    cannot)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")


def summary_json(result: ReplayResult, about: dict[str, Any]) -> str:
    data = {**about, **result.dropped_by_reason(), **round_floats(result.summary.as_dict())}
    costs = result.recorder.costs
    if costs is not None:
        total = math.fsum(costs)
        data["cost"] = round_floats(
            {"total": total, "per_job": total / len(costs) if costs else 0.0}
        )
    if result.links:
        data["links"] = {name: usage.as_dict() for name, usage in result.links.items()}
    return json.dumps(data, indent=2) + "\n"
