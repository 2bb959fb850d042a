"""The in-process session: one emulated platform driven behind a small surface."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from itertools import islice
from pathlib import Path

import numpy as np

from emulator.api.decisions import Decision, Wake
from emulator.api.registry import available
from emulator.commandfile import CommandFile
from emulator.engine import Observer
from emulator.model.job import Job, Submission
from emulator.model.platform import Platform
from emulator.occupancy import Placements
from emulator.replay import Recorder, ReplayResult, result_files, save_files, used_links
from emulator.session.events import EventLog
from emulator.session.feed import WorkloadFeed
from emulator.session.metrics import Sampler
from emulator.session.nodes import NodeView
from emulator.session.queue import queue_table
from emulator.session.rows import JobRows
from emulator.session.snapshot import (
    ClusterSnapshot,
    FloatArray,
    LinkSnapshot,
    NodeLists,
    QueueTable,
    Snapshot,
    frozen,
)
from emulator.shell import Execute, Shell, WriteFile, transcript_entry
from emulator.slurmctld.controller import DEFAULT_ORIGIN, CommandResult, Controller

__all__ = ["Session"]

_SLICE = 256  # events per engine call in run_until: metrics are sampled between slices


class _Hooks(Observer):
    """The session's engine observer: notes what changed, nothing more (it runs per event)."""

    def __init__(self, session: Session) -> None:
        self.dirty = session._dirty
        self.to_place = session._nodes.to_place
        self.sampler = session._sampler
        self.log = session._log
        self.clock = session.controller.engine.kernel

    def job_submitted(self, job: Job) -> None:
        self.dirty[job.id] = job

    def job_started(self, job: Job) -> None:
        self.dirty[job.id] = job
        self.to_place[job.id] = job
        self.sampler.started(job)

    def job_ended(self, job: Job) -> None:
        self.dirty[job.id] = job
        self.to_place[job.id] = job
        self.sampler.ended(job)

    def decided(self, policy: str, decision: Decision) -> None:
        self.log.decided(float(self.clock.now), policy, decision)
        if not isinstance(decision, Wake):
            job = decision.job
            self.dirty[job.id] = job


class Session:
    """One emulated platform, driven in-process.

    ``scheduler`` is a spec (``easy``, ``cbf``, ``coalloc+easy``...); ``origin`` the epoch second
    of simulated time 0. ``keep_finished``: how many finished jobs snapshots keep (the newest);
    ``log_length``: decisions kept for the event log; ``samples``: metric samples kept, taken
    at event times at least ``sample_every`` simulated seconds apart (the interval doubles when
    old samples are thinned), and at each snapshot, so that its metrics end at its time.
    ``controller``: wrap this existing controller (a daemon's) instead of making one; its jobs
    so far show at the first snapshot, and whoever runs commands on it directly calls
    :meth:`touched` after them.

    Snapshots are cheap because the session keeps its own per-job rows (:mod:`.rows`): engine
    hooks only note which jobs changed; the rows, the nodes (:mod:`.nodes`) and the Gantt
    segments are updated for those jobs when the next snapshot is taken.
    """

    def __init__(
        self,
        platform: Platform,
        scheduler: str = "easy",
        *,
        origin: float = DEFAULT_ORIGIN,
        user: str = "root",
        keep_finished: int = 5000,
        log_length: int = 2000,
        samples: int = 4096,
        sample_every: float = 60.0,
        controller: Controller | None = None,
    ) -> None:
        self.platform = platform
        if controller is None:
            controller = Controller(platform, scheduler, origin=origin)
        self.controller = controller
        self.engine = controller.engine
        # the console's shell and executor: the words move this session's clock
        self._console = CommandFile(controller, "<console>", Shell(user=user), clock=self)
        self._feed = WorkloadFeed(controller)
        # commands run (command(), run_commands()), as ``batchlab run`` prints them; the newest
        self.transcript: deque[str] = deque(maxlen=1000)
        self.transcript_count = 0  # entries ever added (the deque drops the oldest)
        self._dirty: dict[int, Job] = {}  # what the hooks noted changed
        self._recheck: set[int] = set()  # rows re-read after a command: once more after a move
        self._records_seen = 0
        self._rows = JobRows(controller, keep_finished)
        self._nodes = NodeView(self.engine, platform)
        self._log = EventLog(platform, log_length)
        self._sampler = Sampler(self.engine, platform.cores, samples, sample_every)
        self._nodelists = NodeLists(platform)
        self._version = 0
        self._snapshot: Snapshot | None = None
        empty = frozen(np.zeros(0, np.float64))
        self._histories = [(empty, empty) for _ in platform.clusters]  # see _link_history
        self.engine.observe(_Hooks(self))
        # every finished job, as ``batchlab replay`` records them (for save_results)
        self._results = Recorder(platform, with_nodes=len(platform.clusters) > 1)
        self.engine.observe(self._results)
        self._sampler.sample()
        if controller.records:  # a wrapped controller's jobs so far
            self.touched()

    def touched(self) -> None:
        """Commands ran on the controller (not through :meth:`command`): re-read its jobs."""
        self._changed_everything()

    # --- state ---------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.engine.now

    @property
    def origin(self) -> float:
        return self.controller.origin

    @property
    def version(self) -> int:
        """The version the next :meth:`snapshot` will carry (cheap: no snapshot is taken)."""
        return self._version

    @property
    def scheduler(self) -> str:
        return str(self.engine.spec)

    @property
    def idle(self) -> bool:
        """Nothing left to happen: no event, no pass, no workload job still to arrive."""
        kernel = self.engine.kernel
        return self.engine.idle and not kernel.settle_pending and not self._feed

    def next_time(self) -> float:
        """Simulated time of the next event or workload arrival (``inf``: none)."""
        kernel = self.engine.kernel
        if kernel.settle_pending:
            return self.now
        return min(kernel.next_time(), self._feed.next_time())

    # --- commands ------------------------------------------------------------------------------
    @property
    def user(self) -> str:
        """Who the console acts as (``as NAME`` changes it)."""
        return self._console.shell.user

    def command(
        self, line: str, user: str | None = None, stdin: str | None = None
    ) -> CommandResult:
        """Run one console line and return exactly what the CLI prints.

        The words are :mod:`emulator.shell`'s: Slurm commands (``sbatch``, ``squeue``,
        ``sinfo``, ``scancel``, ``scontrol``, ``sacct``, ...) run in the controller as the
        session's user (or ``user``); ``sleep 90``, ``@ 01:00:00``, ``wait`` move this
        session's clock; ``as alice``, ``cd``, ``export`` change its shell. ``stdin`` is the
        command's standard input (``sbatch``'s script when no file is named). The line and its
        output are added to :attr:`transcript` as ``batchlab run`` prints them (a ``stdin`` as
        the here-document that would give it).
        """
        read, result = self._console.console(line, user, stdin)
        if read.shown_in_transcript:
            self._record(transcript_entry(read.user, read.shown, result, stdin))
        if isinstance(read.request, Execute | WriteFile):
            self._changed_everything()  # holds, updates, requeues, submissions
        return result

    def _record(self, text: str) -> None:
        self.transcript.append(text)
        self.transcript_count += 1

    def run_commands(self, text: str, name: str = "<commands>") -> str:
        """Run a whole command file (``batchlab run`` syntax) now; returns its transcript."""
        self._feed.submit_due()
        runner = CommandFile(self.controller, name, Shell(user=self.user), clock=self)
        try:
            return runner.run(text)
        finally:
            self._record("".join(runner.output))
            self._changed_everything()
            self._sampler.sample()

    def set_scheduler(self, spec: str) -> None:
        """Switch policies; the next scheduling pass uses them (raises SpecError if invalid)."""
        self.engine.set_scheduler(spec)
        self._version += 1

    @staticmethod
    def schedulers() -> dict[str, str]:
        """Registered policy names with a one-line description."""
        return available()

    def queue_table(self, states: str = "") -> QueueTable:
        """squeue's own table now (see :func:`~emulator.session.queue.queue_table`): exact but
        slow on big queues; views use :attr:`Snapshot.jobs`, which carries the same cells."""
        return queue_table(self.controller, self.user, states)

    # --- results -------------------------------------------------------------------------------
    def results(self) -> ReplayResult:
        """The jobs finished so far, recorded and summarised as ``batchlab replay`` does
        (node lists and clusters per job on a multi-cluster platform)."""
        recorder = self._results
        links = used_links(self.engine, min(recorder.submit, default=0.0))
        return ReplayResult(recorder, recorder.summary(), links)

    def result_files(self) -> dict[str, str]:
        """``jobs.csv`` and ``summary.json`` of the jobs finished so far, as ``batchlab
        replay`` writes them, by file name (a daemon sends them to a window to save)."""
        about = {
            "scheduler": self.scheduler,
            "platform": self.platform.name,
            "cores": self.platform.cores,
            "now": self.now,
        }
        return result_files(self.results(), about)

    def save_results(self, directory: Path) -> None:
        """Write :meth:`result_files` into ``directory`` (OSError if it cannot)."""
        save_files(directory, self.result_files())

    # --- workloads and time --------------------------------------------------------------------
    def submit_workload(self, submissions: Iterable[Submission]) -> None:
        """Feed a workload: each job is submitted (given a Slurm id and record, like ``sbatch``)
        when the clock reaches its submit time. Streamed: jobs are pulled as time goes."""
        self._feed.add(submissions)
        self._version += 1

    def run_until(self, until: float, max_events: int | None = None) -> int:
        """Run to simulated time ``until`` (``inf``: until nothing is left), or until
        ``max_events`` events have been processed; returns how many were."""
        engine, kernel = self.engine, self.engine.kernel
        done = 0
        while max_events is None or done < max_events:
            budget = _SLICE if max_events is None else min(_SLICE, max_events - done)
            arrival = self._feed.next_time()
            stop = min(until, arrival)
            processed = engine.run(until=stop, max_events=budget)
            done += processed
            if self.now >= self._sampler.next_time:
                self._sampler.sample()  # between slices, so samples fall right after events
            upcoming = kernel.next_time()
            if math.isinf(stop):
                reached = math.isinf(upcoming)  # nothing is left to happen
            else:
                reached = upcoming > stop and self.now >= stop
            if not reached:
                continue  # the slice ended before ``stop``: another one (if within max_events)
            if self._feed and arrival <= stop:
                self._feed.submit_due()
                continue
            break  # reached ``until`` (or, for ``inf``, nothing is left to happen)
        self._moved()
        return done

    def advance(self, seconds: float, max_events: int | None = None) -> int:
        """Run ``seconds`` of simulated time (see :meth:`run_until`)."""
        return self.run_until(self.now + max(0.0, seconds), max_events)

    def step(self) -> bool:
        """One kernel step: exactly one event (a completion, an arrival, a timer), followed by
        the scheduling pass of its instant when it was the instant's last event; or that pass
        alone when it is pending. False when nothing is left to happen."""
        engine, kernel = self.engine, self.engine.kernel
        if not (kernel.settle_pending and kernel.next_time() > self.now):
            arrival = self._feed.next_time()
            if arrival < kernel.next_time():
                engine.run(until=arrival)  # no event before it: only the clock moves
                self._feed.submit_due()
        stepped = engine.step()
        self._moved()
        return stepped

    def _moved(self) -> None:
        if self._recheck:
            jobs = self.engine.jobs
            for job_id in self._recheck:
                job = jobs.get(job_id)
                if job is not None:
                    self._dirty[job_id] = job
                    self._nodes.to_place[job_id] = job
            self._recheck.clear()
        self._version += 1
        if self.now >= self._sampler.next_time:  # (a daemon runs an instant at a time: not
            self._sampler.sample()  # every instant is sampled; a snapshot samples the last)

    # --- snapshots -----------------------------------------------------------------------------
    def _changed_everything(self) -> None:
        """After a command anything may have changed (holds, updates, requeues): re-read every
        live row at the next snapshot."""
        jobs = self.engine.jobs
        for job_id in self._rows.row_of:
            job = jobs.get(job_id)
            if job is not None and not job.state.finished:
                self._dirty[job_id] = job
                self._recheck.add(job_id)
        records = self.controller.records
        made = self.controller.records_made  # (not len: a forgotten array task leaves it)
        new = list(islice(reversed(records), made - self._records_seen))
        for job_id in reversed(new):
            job = jobs.get(job_id)  # submitted now: its arrival is not processed yet
            if job is not None:
                self._dirty[job_id] = job
                self._recheck.add(job_id)
        self._records_seen = made
        self._nodes.note(self._dirty.values())
        self._version += 1

    def snapshot(self) -> Snapshot:
        """The platform now, as immutable arrays. Cheap when little changed since the last."""
        if self._snapshot is not None and self._snapshot.version == self._version:
            return self._snapshot
        self._refresh()
        if self._sampler.last_time() < self.now:
            self._sampler.sample()  # the metrics up to now
        network = self.engine.network
        links = []
        for k, cluster in enumerate(self.platform.clusters):
            times, values = self._link_history(k)
            links.append(
                LinkSnapshot(
                    cluster=cluster.name,
                    capacity=network.capacity[k],
                    used=network.used[k],
                    times=times,
                    values=values,
                )
            )
        snapshot = Snapshot(
            version=self._version,
            now=self.now,
            origin=self.origin,
            scheduler=self.scheduler,
            platform=self.platform.name,
            bandwidth_unit=self.platform.bandwidth_unit,
            clusters=self._nodes.clusters(self._version),
            jobs=self._rows.table(),
            segments=self._rows.segments(),
            links=tuple(links),
            metrics=self._sampler.series(),
            events=self._log.entries(self._rows.label),
            idle=self.idle,
            nodelist=self._nodelists,
        )
        self._snapshot = snapshot
        return snapshot

    def nodes_snapshot(self) -> tuple[ClusterSnapshot, ...]:
        """The clusters' nodes now: what :meth:`snapshot` would hold as ``clusters``, for a
        fraction of its cost. It places the jobs that started or ended since on their nodes
        and reads nothing else: the rows of the jobs that changed wait for the next snapshot
        (a job that changes again by then is read once), and the job table, whose text
        columns are O(jobs) tuples, is not copied. For a view that draws the nodes more often
        than anything else."""
        self._nodes.place(self._version)
        return self._nodes.clusters(self._version)

    def export_placements(self) -> None:
        """Leave placing jobs on nodes to the clients (a daemon's windows, which have a core to
        spare): from now on the jobs that started or ended are recorded for
        :meth:`placements_since` instead, and the clusters of snapshots show no job."""
        if not self._nodes.exported:
            self._nodes.export()
            self._version += 1

    def placements_since(self, version: int | None) -> Placements:
        """The placements recorded from ``version`` on (every running job if ``version`` is
        None or too old), after :meth:`export_placements`."""
        return self._nodes.placements_since(version, self._version)

    def _link_history(self, k: int) -> tuple[FloatArray, FloatArray]:
        """Link ``k``'s load history as (times, values) arrays. The engine's list only grows
        (its last step may be rewritten at the same instant): only the steps from the last one
        seen are converted, and unchanged arrays are shared by the snapshots."""
        record = self.engine.network.history[k]
        times, values = self._histories[k]
        seen = times.size
        if seen == len(record) and seen and record[-1] == (times[-1], values[-1]):
            return times, values
        start = max(0, seen - 1)
        new = np.array(record[start:], np.float64).reshape(-1, 2)
        times = frozen(np.concatenate([times[:start], new[:, 0]]))
        values = frozen(np.concatenate([values[:start], new[:, 1]]))
        self._histories[k] = (times, values)
        return times, values

    def _refresh(self) -> None:
        """Bring the rows, nodes and segments up to date with the engine."""
        dirty = self._dirty
        jobs = self.engine.jobs
        for job_id in list(self._rows.watch):
            job = jobs.get(job_id)
            if job is not None:
                dirty[job_id] = job
        self._nodes.place(self._version)
        if dirty:
            self._rows.write(list(dirty.values()))
            dirty.clear()
