"""Trace replay: stream a workload through the engine and record what happened.

The recorder keeps finished jobs as compact columns, so memory grows by ~40 bytes per job while
the engine itself holds only waiting and running jobs.
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from emulator.api.registry import SchedulerSpec
from emulator.engine import Engine, Observer
from emulator.metrics import LinkUsage, Summary, link_usage, round_floats, summarize
from emulator.model.job import Job, JobState, Submission
from emulator.model.platform import Platform

_STATES = list(JobState)
_STATE_CODE = {state: code for code, state in enumerate(_STATES)}


class Recorder(Observer):
    """Finished jobs as columns, in completion order."""

    def __init__(self, platform: Platform, with_nodes: bool = False) -> None:
        self.platform = platform
        self.ids = array("q")
        self.submit = array("d")
        self.start = array("d")
        self.end = array("d")
        self.cluster = array("h")
        self.cores = array("i")
        self.state = array("b")
        self.nodes: list[tuple[str, str]] | None = [] if with_nodes else None

    def __len__(self) -> int:
        return len(self.ids)

    def job_ended(self, job: Job) -> None:
        self.ids.append(job.id)
        self.submit.append(job.submit)
        self.start.append(job.start)
        self.end.append(job.end)
        self.cluster.append(job.cluster)
        self.cores.append(job.cores)
        self.state.append(_STATE_CODE[job.state])
        if self.nodes is not None:
            names = [self.platform.nodes[n] for n in job.nodes]
            clusters = sorted({n.cluster for n in names})
            self.nodes.append(
                (
                    " ".join(n.name for n in names),
                    "+".join(self.platform.clusters[k].name for k in clusters),
                )
            )

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

    def starts_by_id(self) -> dict[int, tuple[float, float]]:
        return {int(i): (s, e) for i, s, e in zip(self.ids, self.start, self.end, strict=True)}

    def write_jobs_csv(self, path: Path) -> None:
        columns = "job_id,submit,start,end,cluster,cores,state"
        if self.nodes is not None:
            columns += ",nodes,clusters"
        names = [c.name for c in self.platform.clusters]
        with path.open("w", encoding="utf-8") as out:
            out.write(columns + "\n")
            for row in self.order().tolist():
                cluster = self.cluster[row]
                line = (
                    f"{self.ids[row]},{_num(self.submit[row])},{_num(self.start[row])},"
                    f"{_num(self.end[row])},{names[cluster] if cluster >= 0 else ''},"
                    f"{self.cores[row]},{_STATES[self.state[row]].name}"
                )
                if self.nodes is not None:
                    line += f",{self.nodes[row][0]},{self.nodes[row][1]}"
                out.write(line + "\n")


def _num(value: float) -> str:
    if math.isnan(value):
        return ""
    return f"{value:.10g}"


@dataclass(frozen=True, slots=True)
class ReplayResult:
    recorder: Recorder
    summary: Summary
    links: dict[str, LinkUsage]  # links that carried traffic, by cluster name


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
    summary = recorder.summary(dropped())
    start = min(recorder.submit, default=0.0)
    network = engine.network
    links = {
        cluster.name: link_usage(network.history[k], network.capacity[k], start, engine.now)
        for k, cluster in enumerate(platform.clusters)
        if len(network.history[k]) > 1
    }
    return ReplayResult(recorder, summary, links)


def write_summary(
    path: Path, summary: Summary, extra: dict[str, Any], links: dict[str, LinkUsage] | None = None
) -> None:
    data = {**extra, **round_floats(summary.as_dict())}
    if links:
        data["links"] = {name: usage.as_dict() for name, usage in links.items()}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
