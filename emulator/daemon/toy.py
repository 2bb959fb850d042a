"""A tiny deterministic batch system behind the :class:`~emulator.daemon.protocol.Handler`
protocol: enough ``sbatch``/``squeue``/``scancel``/``sacct``/``scontrol show job`` to exercise
the daemon (tests, benchmark, demos) without the real controller.

Jobs run first come first served on ``cores`` cores; a job takes ``-n`` cores (default 1) for
``-t`` (Slurm duration, default 1 minute). ``--emulate-runtime=SECONDS`` makes it end earlier.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.model.durations import DurationError, parse_duration


@dataclass(slots=True)
class ToyJob:
    """One job: its request and what became of it."""

    id: int
    name: str
    user: str
    cores: int
    runtime: float
    submit: float
    script: str
    command: str
    state: str = "PENDING"
    start: float = math.nan
    end: float = math.nan


class ToyHandler:
    """A FCFS batch system on a simulated clock. Never reads the wall clock."""

    def __init__(self, cores: int = 4) -> None:
        self.cores = cores
        self.free = cores
        self.jobs: dict[int, ToyJob] = {}
        self.waiting: list[int] = []
        self._ends: list[tuple[float, int]] = []
        self._now = 0.0
        self._next_id = 1

    # --- clock ---------------------------------------------------------------------------------

    def now(self) -> float:
        return self._now

    def next_event(self) -> float:
        ends = self._ends
        while ends and self.jobs[ends[0][1]].state != "RUNNING":
            heapq.heappop(ends)  # cancelled while running
        return ends[0][0] if ends else math.inf

    def advance(self, until: float) -> None:
        while self.next_event() <= until:
            time, job_id = heapq.heappop(self._ends)
            self._now = time
            job = self.jobs[job_id]
            job.state, job.end = "COMPLETED", time
            self.free += job.cores
            self._schedule()
        self._now = max(self._now, until)

    def _schedule(self) -> None:
        while self.waiting and self.jobs[self.waiting[0]].cores <= self.free:
            job = self.jobs[self.waiting.pop(0)]
            job.state, job.start = "RUNNING", self._now
            self.free -= job.cores
            heapq.heappush(self._ends, (self._now + job.runtime, job.id))

    # --- commands ------------------------------------------------------------------------------

    def execute(
        self,
        argv: Sequence[str],
        *,
        user: str,
        env: Mapping[str, str],
        stdin: str | None,
        cwd: str,
    ) -> tuple[str, str, int]:
        command, args = os.path.basename(argv[0]), list(argv[1:])
        if command == "sbatch":
            return self._sbatch(args, user, env, stdin, cwd)
        if command == "squeue":
            return self._squeue(args), "", 0
        if command == "scancel":
            return self._scancel(args)
        if command == "sacct":
            return self._sacct(), "", 0
        if command == "scontrol" and args[:2] == ["show", "job"] and len(args) == 3:
            return self._show_job(args[2])
        if command == "sinfo":
            state = "idle" if self.free == self.cores else "mix"
            return f"PARTITION AVAIL NODES STATE\ntoy*      up    1     {state}\n", "", 0
        return "", f"{command}: error: not supported by the toy handler\n", 1

    def _sbatch(
        self, args: list[str], user: str, env: Mapping[str, str], stdin: str | None, cwd: str
    ) -> tuple[str, str, int]:
        limit, cores, name, runtime, wrap = env.get("SBATCH_TIMELIMIT", "1"), 1, None, None, None
        positional: list[str] = []
        pairs = iter(args)
        for arg in pairs:
            option, _, value = arg.partition("=")
            if option in ("-t", "--time", "-n", "--ntasks", "-J", "--job-name", "--wrap") and (
                not value
            ):
                value = next(pairs, "")
            if option in ("-t", "--time"):
                limit = value
            elif option in ("-n", "--ntasks"):
                cores = int(value) if value.isdigit() else 0
            elif option in ("-J", "--job-name"):
                name = value
            elif option == "--wrap":
                wrap = value
            elif option == "--emulate-runtime":
                runtime = float(value)
            elif arg.startswith("-"):
                return "", f"sbatch: unrecognized option '{arg}'\n", 255
            else:
                positional = [arg, *pairs]
                break
        if wrap is not None:
            script, command = f"#!/bin/sh\n{wrap}\n", "(null)"
            name = name or "wrap"
        elif positional:
            path = os.path.join(cwd, positional[0])
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as file:
                    script = file.read()
            except OSError:
                return "", f"sbatch: error: Unable to open file {positional[0]}\n", 1
            command, name = path, name or os.path.basename(path)
        else:
            script, command, name = stdin or "", "(null)", name or "sbatch"
        if not script.startswith("#!"):
            return "", "sbatch: error: This does not look like a batch script.\n", 1
        try:
            seconds = parse_duration(limit)
        except DurationError:
            return "", "sbatch: error: Invalid --time specification\n", 255
        if not 0 < cores <= self.cores:
            failed = "Batch job submission failed: Requested node config is not available"
            return "", f"sbatch: error: {failed}\n", 1
        job = ToyJob(
            id=self._next_id,
            name=name,
            user=user,
            cores=cores,
            runtime=min(seconds, runtime if runtime is not None else seconds),
            submit=self._now,
            script=script,
            command=command,
        )
        self._next_id += 1
        self.jobs[job.id] = job
        self.waiting.append(job.id)
        self._schedule()
        return f"Submitted batch job {job.id}\n", "", 0

    def _squeue(self, args: list[str]) -> str:
        rows = [] if "-h" in args or "--noheader" in args else ["JOBID NAME USER ST"]
        short = {"PENDING": "PD", "RUNNING": "R"}
        for job in self.jobs.values():
            if job.state in short:
                rows.append(f"{job.id} {job.name} {job.user} {short[job.state]}")
        return "".join(row + "\n" for row in rows)

    def _scancel(self, args: list[str]) -> tuple[str, str, int]:
        for arg in args:
            job = self.jobs.get(int(arg)) if arg.isdigit() else None
            if job is None:
                return "", f"scancel: error: Invalid job id {arg}\n", 1
            if job.state == "PENDING":
                self.waiting.remove(job.id)
            elif job.state == "RUNNING":
                self.free += job.cores
            else:
                continue
            job.state, job.end = "CANCELLED", self._now
            self._schedule()
        return "", "", 0

    def _sacct(self) -> str:
        rows = ["JobID|JobName|User|State|Submit|Start|End"]
        for job in self.jobs.values():
            rows.append(
                f"{job.id}|{job.name}|{job.user}|{job.state}|{job.submit:g}|{job.start:g}|"
                f"{job.end:g}"
            )
        return "".join(row + "\n" for row in rows)

    def _show_job(self, text: str) -> tuple[str, str, int]:
        job = self.jobs.get(int(text)) if text.isdigit() else None
        if job is None:
            return "", "slurm_load_jobs error: Invalid job id specified\n", 1
        return (
            f"JobId={job.id} JobName={job.name} UserId={job.user} JobState={job.state} "
            f"NumCPUs={job.cores} Command={job.command}\n",
            "",
            0,
        )

    # --- for tests -----------------------------------------------------------------------------

    def digest(self) -> str:
        """A fingerprint of the whole state (two equal runs give equal digests)."""
        text = repr((self._now, self.free, self.waiting, sorted(self._ends), self.jobs))
        return hashlib.sha256(text.encode()).hexdigest()


def make_toy(platform_file: str, scheduler: str, state_dir: str) -> ToyHandler:
    """The toy batch system with as many cores as the platform file has."""
    from emulator.model.platform_file import load_platform

    return ToyHandler(cores=load_platform(platform_file).cores)
