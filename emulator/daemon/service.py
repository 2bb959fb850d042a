"""The daemon's request handling: Slurm commands, the clock, snapshots; the journal records and
the clock checkpoint they leave. The socket loop (:mod:`emulator.daemon.server`) decodes the
requests, hands them here with who sent them, and sends what comes back.

Requests that steer the clock (``advance``, ``until``, ``step``, ``idle``) are answered when
their goal is reached, and ``sbatch -W`` when its jobs have ended (the submitted line goes out at
once, in a partial frame): :meth:`Service.answer` returns None for them, and their answers come
out of :meth:`Service.simulate` and :meth:`Service.settle` later.
"""

from __future__ import annotations

import math
import os
import stat
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from emulator.daemon.commands import command_name, is_mutating, sbatch_script
from emulator.daemon.emulation import Emulation
from emulator.daemon.journal import Journal, write_checkpoint
from emulator.daemon.protocol import (
    MAX_SCRIPT_BYTES,
    MAX_SIMULATED_SECONDS,
    SCRIPT_TOO_LARGE,
    Clock,
    Exec,
    ProtocolError,
    Script,
    SnapshotRequest,
    error,
    finite_or_none,
    ok,
    parse_request,
    script_bytes,
)
from emulator.pacing import Pacer

SLICE_SECONDS: Final = 0.005  # wall time one simulation slice may take before I/O is polled
MAX_INSTANTS: Final = 10_000  # simulated instants per slice, whatever the wall time
CHECKPOINT_SECONDS: Final = 1.0  # how often a running clock is checkpointed

Response = dict[str, Any] | tuple[dict[str, Any], bytes]  # with a binary attachment


@dataclass(eq=False, slots=True)
class Peer:
    """Who sent a request, and whether a clock goal or job wait of theirs is pending (their
    later requests wait for it: requests on one connection are answered in order)."""

    uid: int
    user: str
    operator: bool
    waiting: bool = False


@dataclass(frozen=True, slots=True)
class Reply:
    """An answer that was not ready when its request came: ``request`` is for the id it echoes."""

    peer: Peer
    response: dict[str, Any]
    request: dict[str, Any]


@dataclass(eq=False, slots=True)
class Goal:
    """A clock request answered once simulated time reaches ``until`` (``inf``: idle)."""

    peer: Peer
    until: float
    request: dict[str, Any]


@dataclass(eq=False, slots=True)
class JobWait:
    """An ``sbatch -W`` answered (its exit status) once its ``jobs`` have ended."""

    peer: Peer
    jobs: tuple[int, ...]
    request: dict[str, Any]


def _unable_to_open(path: str) -> str:
    return f"sbatch: error: Unable to open file {path}\n"


def read_script(argv: list[str], index: int, cwd: str) -> Script | None:
    """The batch script ``argv[index]`` names, read as a client reads it (no more than one byte
    over the size limit); None if it cannot be read or is not a regular file (a FIFO would hold
    the daemon until someone wrote to it)."""
    try:
        fd = os.open(Path(cwd) / argv[index], os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_SCRIPT_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return Script(index, data.decode("utf-8", "surrogateescape"))


class JournalFailure(Exception):
    """The journal could not be written: stop before acknowledging anything more."""


def require_operator(peer: Peer, what: str) -> None:
    if not peer.operator:
        raise ProtocolError(
            f"permission denied: only the daemon's operator may {what}", code="permission_denied"
        )


@dataclass(eq=False)
class Service:
    """Answers the requests on one :class:`Emulation`, paced by ``pacer``; journals what
    changes it (group commit: the server calls :meth:`commit` once a turn, before sending the
    turn's answers) and checkpoints the clock in ``state_dir``. ``advanced``: the clock moved
    since the last journaled request (as recovery found it)."""

    emulation: Emulation
    journal: Journal
    state_dir: Path
    pacer: Pacer = field(default_factory=lambda: Pacer(paused=True))
    advanced: bool = False
    log: Callable[[str], None] = print
    goals: list[Goal] = field(default_factory=list, init=False)
    job_waits: list[JobWait] = field(default_factory=list, init=False)
    failure: str | None = field(default=None, init=False)  # why the simulation stopped
    _clock_dirty: bool = field(default=False, init=False)
    _journaled_t: float = field(default=-math.inf, init=False)  # the journal's latest time
    # (simulated, wall) time of the last checkpoint written
    _checkpoint_at: tuple[float, float] = field(default=(math.nan, -math.inf), init=False)

    def __post_init__(self) -> None:
        self.pacer.anchor(self.emulation.now())
        self._journaled_t = self.emulation.now()  # recovered: from the journal or clock.json

    # --- requests --------------------------------------------------------------------------------

    def answer(self, peer: Peer, message: dict[str, Any]) -> Response | None:
        """The response to a decoded request (None: answered later), or :class:`ProtocolError`
        for one it refuses. ``ping``, ``status`` and ``shutdown`` are the server's."""
        request = parse_request(message)
        emulation = self.emulation
        if isinstance(request, Exec):
            return self._exec(peer, request, message)
        if isinstance(request, Clock):
            return self._clock(peer, request, message)
        if isinstance(request, SnapshotRequest):
            encoded = emulation.encoded_snapshot(request.since, request.nodes)
            if encoded is None:
                return ok(unchanged=True, clock=self.clock_info())
            part = "nodes" if request.nodes else "snapshot"
            return ok(**{part: encoded[0]}, clock=self.clock_info()), encoded[1]
        if request.op == "platform":
            header, payload = emulation.encoded_platform()
            return ok(platform=header), payload
        if request.op == "results":
            return ok(files=emulation.result_files())
        if request.op == "transcript":
            return ok(lines=list(emulation.transcript))
        raise ProtocolError(f"{request.op} is the server's", code="internal")

    def forget(self, peer: Peer) -> None:
        """``peer`` went away: nobody is owed its goals and waits any more."""
        self.goals = [goal for goal in self.goals if goal.peer is not peer]
        if peer.waiting:
            self.job_waits = [wait for wait in self.job_waits if wait.peer is not peer]

    def status(self) -> dict[str, Any]:
        return {
            "scheduler": self.emulation.scheduler(),
            "journal_seq": self.journal.seq,
            "failure": self.failure,
            "clock": self.clock_info(),
        }

    def _exec(self, peer: Peer, request: Exec, message: dict[str, Any]) -> Response | None:
        user = peer.user
        if request.as_user is not None and request.as_user != user:
            require_operator(peer, "act on behalf of another user")
            user = request.as_user
        argv = list(request.argv)
        given = request.script
        if command_name(argv) == "sbatch":
            index, from_stdin = sbatch_script(argv)
            text = request.stdin if from_stdin else None
            if index is not None:
                if given is None or given.index != index:
                    # The daemon must not read a file for a user who could not read it; for the
                    # operator it reads it, so that the journal keeps the text.
                    given = read_script(argv, index, request.cwd) if peer.operator else None
                    if given is None:
                        return ok(stdout="", stderr=_unable_to_open(argv[index]), exit_code=1)
                text = given.text
            if text is not None and script_bytes(text) > MAX_SCRIPT_BYTES:
                return ok(stdout="", stderr=SCRIPT_TOO_LARGE, exit_code=1)
        now = self.emulation.now()
        stdout, stderr, code = self.emulation.run(
            argv,
            user=user,
            env=request.env,
            stdin=request.stdin,
            cwd=request.cwd,
            script=given,
        )
        if is_mutating(argv):
            script = None
            if given is not None:
                script = {"index": given.index, "text": given.text}
            self._journal(
                {
                    "t": now,
                    "advanced": self.advanced,
                    "user": user,
                    "argv": argv,
                    "env": request.env,
                    "stdin": request.stdin,
                    "cwd": request.cwd,
                    "script": script,
                    "exit_code": code,
                    "stdout": stdout,
                }
            )
            self.advanced = False
            self._journaled_t = now
        if jobs := self.emulation.waits:
            peer.waiting = True
            self.job_waits.append(JobWait(peer, jobs, message))
            return ok(partial=True, stdout=stdout, stderr=stderr)
        return ok(stdout=stdout, stderr=stderr, exit_code=code)

    def _journal(self, record: dict[str, Any]) -> None:
        try:
            self.journal.append(record)
        except (OSError, ValueError) as problem:  # applied but not recorded: stop, answer none
            raise JournalFailure(str(problem)) from problem

    def _clock(self, peer: Peer, request: Clock, message: dict[str, Any]) -> Response | None:
        action, now, pacer = request.action, self.emulation.now(), self.pacer
        if action == "show":
            return ok(clock=self.clock_info())
        require_operator(peer, "steer the clock")
        if action in ("pause", "resume", "speed"):
            if action == "pause":
                pacer.pause(now)
            elif action == "resume":
                pacer.resume(now)
            else:
                assert request.value is not None
                pacer.set_speed(request.value, now)
            self._clock_dirty = True
            return ok(clock=self.clock_info())
        value = request.value
        if action == "advance":
            assert value is not None
            until = now + value
        elif action == "until":
            assert value is not None
            if value < now:
                raise ProtocolError(f"simulated time {value:g} is in the past (now {now:g})")
            until = value
        elif action == "step":
            until = self.emulation.next_event()
            if math.isinf(until):
                return ok(clock=self.clock_info(), note="no pending event")
        else:
            until = math.inf
        if not math.isinf(until) and until > MAX_SIMULATED_SECONDS:
            raise ProtocolError(
                f"invalid time: t={until:g} s is past the latest simulated time, "
                f"t={MAX_SIMULATED_SECONDS} s (100 years)",
                code="invalid_time",
            )
        goal = Goal(peer, until, message)
        if self._reached(goal):
            self._clock_dirty = True
            return ok(clock=self.clock_info())
        peer.waiting = True
        self.goals.append(goal)
        return None

    # --- the clock -------------------------------------------------------------------------------

    def clock_info(self) -> dict[str, Any]:
        pacer = self.pacer
        return {
            "now": self.emulation.now(),
            "paused": pacer.paused,
            "speed": finite_or_none(pacer.speed),
            "mode": pacer.mode,
            "next_event": finite_or_none(self.emulation.next_event()),
            "goals": len(self.goals),
        }

    def timeout(self) -> float | None:
        """How long the server may wait for sockets before the simulation is due (None: until
        a request comes)."""
        if self.goals:
            return 0.0
        if self.pacer.paused:
            return None
        delay = self.pacer.delay(self.emulation.next_event())
        return CHECKPOINT_SECONDS if delay is None else min(delay, CHECKPOINT_SECONDS)

    def _limit(self) -> float | None:
        """How far the simulation may go now: None while paused with no goal."""
        if self.goals:
            return min(goal.until for goal in self.goals)
        if self.pacer.paused:
            return None
        return self.pacer.target()

    def simulate(self) -> list[Reply]:
        """Advance by a bounded slice. A simulation that fails pauses the clock and fails the
        clock requests (the replies) instead of stopping the daemon."""
        try:
            self._slice()
        except Exception as problem:
            traceback.print_exc(file=sys.stderr)
            self.failure = f"the simulation failed at t={self.emulation.now():g}: {problem!r}"
            self.log(self.failure)
            self.pacer.pause(self.emulation.now())
            self._clock_dirty = True
            replies = []
            for goal in self.goals:
                goal.peer.waiting = False
                replies.append(
                    Reply(goal.peer, error("simulation_failed", self.failure), goal.request)
                )
            self.goals.clear()
            return replies
        return []

    def _slice(self) -> None:
        emulation, pacer = self.emulation, self.pacer
        deadline = pacer.wall() + SLICE_SECONDS
        for _ in range(MAX_INSTANTS):
            limit = self._limit()
            if limit is None:
                return
            upcoming = emulation.next_event()
            if upcoming <= limit and not math.isinf(upcoming):
                emulation.advance(upcoming)
                self.advanced = True
                if pacer.wall() > deadline:
                    return
                continue
            if not math.isinf(limit) and limit > emulation.now():
                emulation.advance(limit)
                self.advanced = True
            return

    def _reached(self, goal: Goal) -> bool:
        upcoming = self.emulation.next_event()
        if math.isinf(goal.until):
            return math.isinf(upcoming)
        return self.emulation.now() >= goal.until and upcoming > goal.until

    def settle(self) -> list[Reply]:
        """The answers of the clock goals reached and the job waits ended."""
        replies = []
        done = [goal for goal in self.goals if self._reached(goal)]
        for goal in done:
            self.goals.remove(goal)
            goal.peer.waiting = False
            replies.append(Reply(goal.peer, ok(clock=self.clock_info()), goal.request))
        if done:
            self.pacer.anchor(self.emulation.now())
            self._clock_dirty = True
        pending = []
        for wait in self.job_waits:
            try:
                code = self.emulation.wait_status(wait.jobs)
            except Exception as problem:  # a bug must cost one answer, not the daemon
                traceback.print_exc(file=sys.stderr)
                answer = error("internal", f"internal error: {problem!r}")
            else:
                if code is None:
                    pending.append(wait)
                    continue
                argv = wait.request.get("argv", ())
                answer = ok(
                    stdout="", stderr=self.emulation.wait_stderr(wait.jobs, argv), exit_code=code
                )
            wait.peer.waiting = False
            replies.append(Reply(wait.peer, answer, wait.request))
        self.job_waits = pending
        return replies

    # --- durability ------------------------------------------------------------------------------

    def commit(self, *, exposing: bool = True) -> None:
        """Make this turn's records durable, and checkpoint the clock when due. ``exposing``:
        answers are about to go out; if the clock has moved past what the journal holds, a
        clock record goes first, since an answer may show the time or a job's state at it."""
        now = self.emulation.now()
        if exposing and now > self._journaled_t:
            self.journal.clock(now)
            self._journaled_t = now
        try:
            self.journal.sync()
        except OSError as problem:
            raise JournalFailure(str(problem)) from problem
        now, wall = self.emulation.now(), self.pacer.wall()
        if self._clock_dirty or (
            now != self._checkpoint_at[0] and wall - self._checkpoint_at[1] >= CHECKPOINT_SECONDS
        ):
            try:
                self.checkpoint()
            except OSError as problem:
                self.log(f"cannot write the clock checkpoint: {problem}")

    def checkpoint(self) -> None:
        write_checkpoint(
            self.state_dir / "clock.json",
            {
                "t": self.emulation.now(),
                "advanced": self.advanced,
                "seq": self.journal.seq,
                "paused": self.pacer.paused,
                "speed": finite_or_none(self.pacer.speed),
            },
        )
        self._checkpoint_at = (self.emulation.now(), self.pacer.wall())
        self._clock_dirty = False

    def close(self, *, flush: bool) -> None:
        """At the stop: with ``flush`` (not after a journal failure), checkpoint the clock and
        close the emulation; then close the journal."""
        if flush:
            try:
                self.checkpoint()
            except OSError as problem:
                self.log(f"cannot write the clock checkpoint: {problem}")
            try:
                self.emulation.close()
            except Exception as problem:  # the journal has it all: say so and stop
                self.log(f"cannot close the emulation: {problem!r}")
        try:
            self.journal.close()
        except OSError as problem:
            self.log(f"cannot close the journal: {problem}")
