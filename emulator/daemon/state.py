"""The state directory: lock, platform copy, journal, recovery, and a ready :class:`Daemon`.

::

    STATE_DIR/lock               flock'd by the running daemon (one daemon per state dir)
    STATE_DIR/daemon.pid         its pid, while it runs
    STATE_DIR/platform.toml      the platform file as first given (the journal is replayed on it)
    STATE_DIR/journal.jsonl      header + every accepted mutating request (see journal.py)
    STATE_DIR/clock.json         the simulated time and pace between requests
    STATE_DIR/accounting.sqlite  the jobs' accounting as of the last clean stop (unless fed:
                                 the session keeps it)
    STATE_DIR/daemon.log         the detached daemon's stderr

Recovery replays the journal into a fresh emulation, fed as the header says: each request at the
simulated time it took effect (advancing the clock first only if the live clock had moved since
the previous request), each clock record (a time an answer showed), then the clock checkpoint if
it is newer. The state dir is changed only once the start has gone through (a torn journal tail
cut, the platform copied for a new run), so a start that fails leaves it as it was.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from emulator.api.registry import DEFAULT_SCHEDULER
from emulator.daemon.emulation import Emulation, EmulationError, Feed, file_digest, open_emulation
from emulator.daemon.journal import (
    JOURNAL_FORMAT,
    Journal,
    JournalError,
    JournalReader,
    read_checkpoint,
    write_atomic,
)
from emulator.daemon.listener import bind_socket, probe
from emulator.daemon.protocol import Script
from emulator.daemon.server import Daemon, StartError
from emulator.daemon.service import Service
from emulator.model.platform_file import PlatformError, load_platform
from emulator.pacing import Pacer


@dataclass(slots=True)
class Settings:
    """What ``batchlab daemon start`` was given (None: not given)."""

    state_dir: Path
    socket_path: Path
    platform: Path | None = None
    scheduler: str | None = None
    feed: Feed = field(default_factory=Feed)  # empty: none given (a restart: the journal's)
    shared: bool = False
    speed: float | None = None  # math.inf: as fast as possible
    paused: bool | None = None
    fresh: bool = False


class StateLock:
    """An exclusive ``flock`` on ``STATE_DIR/lock``, held while the daemon lives."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / "lock"
        self._file: IO[str] | None = open(self.path, "a+")  # noqa: SIM115 - held for life
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            self._file = None
            pid = read_pid(state_dir)
            owner = f" by daemon pid {pid}" if pid else ""
            raise StartError(f"state dir {state_dir} is in use{owner}") from None

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the flock
            self._file = None


def is_locked(state_dir: Path) -> bool:
    """Whether a daemon holds ``state_dir`` (False once it has fully stopped)."""
    try:
        with open(state_dir / "lock", "a+") as file:
            try:
                fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except OSError:
        return False


def read_pid(state_dir: Path) -> int | None:
    try:
        return int((state_dir / "daemon.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def resolve_platform(value: Path) -> Path:
    """A platform file, or the name of a shipped one (``lab``, ``kth-sp2``, ...)."""
    from resources import resolve

    try:
        return resolve("platform", value)
    except FileNotFoundError as problem:
        raise StartError(str(problem)) from None


def _set_aside(path: Path) -> None:
    number = 1
    while path.with_name(f"{path.name}.{number}").exists():
        number += 1
    path.rename(path.with_name(f"{path.name}.{number}"))


@dataclass(slots=True)
class Recovery:
    """What a start found in the state dir."""

    requests: int = 0
    mismatches: int = 0
    checkpoint: dict[str, Any] | None = None
    advanced: bool = False
    seq: int = 0  # the last request's


def replay(emulation: Emulation, records: Any, log: Callable[[str], None]) -> tuple[Recovery, int]:
    """Apply journal records (after the header) to ``emulation``; returns what happened and the
    last sequence number."""
    recovery = Recovery()
    seq = 0
    for record in records:
        kind = record.get("kind")
        if kind == "clock":  # a time an answer showed: replay up to it
            t = record.get("t")
            if type(t) not in (int, float) or not math.isfinite(t):
                raise JournalError(f"journal clock record after request {seq}: malformed")
            emulation.advance(float(t))
            continue
        if kind != "exec":
            raise JournalError(f"journal record {seq + 1}: unexpected kind {kind!r}")
        try:
            seq = int(record["seq"])
            t = float(record["t"])
            raw = record.get("script")
            script = None if raw is None else Script(int(raw["index"]), str(raw["text"]))
            argv = [str(arg) for arg in record["argv"]]
            if record.get("advanced"):
                emulation.advance(t)
            elif emulation.now() != t:
                emulation.advance(t)  # not expected: the journal says the clock had not moved
            stdout, _, code = emulation.run(
                argv,
                user=str(record["user"]),
                env={str(k): str(v) for k, v in record.get("env", {}).items()},
                stdin=record.get("stdin"),
                cwd=str(record["cwd"]),
                script=script,
            )
        except (KeyError, TypeError, ValueError) as problem:
            raise JournalError(f"journal record {seq + 1}: malformed ({problem!r})") from None
        recovery.requests += 1
        if code != record.get("exit_code") or stdout != record.get("stdout"):
            recovery.mismatches += 1
            if recovery.mismatches <= 5:
                log(
                    f"replay of request {seq} ({' '.join(argv)}) differs: now exit {code} "
                    f"{stdout!r}, was exit {record.get('exit_code')} {record.get('stdout')!r}"
                )
    return recovery, seq


def open_daemon(
    settings: Settings,
    *,
    clock: Callable[[], float] | None = None,
    log: Callable[[str], None] | None = None,
) -> Daemon:
    """Lock the state dir, recover or create its journal, bind the socket: a Daemon ready to
    :meth:`~Daemon.serve`. Raises :class:`StartError` with a message for the user."""
    say = log or (lambda message: print(f"batchlab daemon: {message}", file=sys.stderr))
    state_dir = settings.state_dir
    try:
        state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as problem:
        raise StartError(f"cannot create state dir {state_dir}: {problem.strerror}") from None
    lock = StateLock(state_dir)
    try:
        daemon = _open_locked(settings, clock, say)
    except BaseException:
        lock.release()
        raise
    daemon.on_close.append(lambda: (state_dir / "daemon.pid").unlink(missing_ok=True))
    daemon.on_close.append(lock.release)
    return daemon


@dataclass(frozen=True, slots=True)
class Setup:
    """What a run is: the platform (its name as first given), the scheduler, the feed."""

    platform: str
    scheduler: str
    feed: Feed


def _given_platform(settings: Settings) -> Path | None:
    """The platform file a start names; ``--demo`` brings its own."""
    feed = settings.feed
    if not feed.demo:
        return None if settings.platform is None else resolve_platform(settings.platform)
    from emulator.session import DEMO_PLATFORM
    from resources import platform_path

    demo = platform_path(DEMO_PLATFORM)
    given = demo if settings.platform is None else resolve_platform(settings.platform)
    if (
        feed.workload is not None
        or feed.commands is not None
        or given.read_bytes() != (demo.read_bytes())
    ):
        raise StartError("--demo brings its own platform and workload")
    return given


def _recorded_setup(settings: Settings, header: dict[str, Any], stored: bytes) -> Setup:
    """The setup a journal's header holds; the start's options must agree with it."""
    journal_path = settings.state_dir / "journal.jsonl"
    if header.get("kind") != "init" or header.get("format") != JOURNAL_FORMAT:
        raise StartError(f"{journal_path}: not a batchlab journal of format {JOURNAL_FORMAT}")
    if header.get("handler", "slurmctld") != "slurmctld":  # a journal of the toy batch system
        raise StartError(f"{journal_path}: a run of handler {header['handler']}; use --fresh")
    digest = header.get("platform_sha256")
    if hashlib.sha256(stored).hexdigest() != digest:
        raise StartError(
            f"{settings.state_dir / 'platform.toml'} does not match the journal; use --fresh"
        )
    setup = Setup(
        str(header.get("platform", settings.state_dir / "platform.toml")),
        str(header["scheduler"]),
        Feed.recorded(header.get("feed")),
    )
    given = _given_platform(settings)
    conflicts = []
    if given is not None and file_digest(given) != digest:
        conflicts.append(f"platform {given}")
    if settings.scheduler is not None and settings.scheduler != setup.scheduler:
        conflicts.append(f"scheduler {settings.scheduler} (the journal has {setup.scheduler})")
    given_feed = settings.feed.absolute()
    if not given_feed.empty and given_feed != setup.feed:
        conflicts.append(f"feed {given_feed.describe()} (the journal has {setup.feed.describe()})")
    if conflicts:
        raise StartError(
            f"{settings.state_dir} holds a run with another setup: {'; '.join(conflicts)}. "
            "Leave the options out to recover it, or use --fresh or another --state-dir"
        )
    return setup


def _recover(
    emulation: Emulation, records: Any, settings: Settings, say: Callable[[str], None]
) -> Recovery:
    """Replay the journal and the clock checkpoint into ``emulation``."""
    journal_path = settings.state_dir / "journal.jsonl"
    try:
        recovery, seq = replay(emulation, records, say)
        checkpoint = read_checkpoint(settings.state_dir / "clock.json")
        recovery.checkpoint = checkpoint
        recovery.seq = seq
        if checkpoint is not None and checkpoint.get("seq") == seq:
            t = checkpoint.get("t")
            if checkpoint.get("advanced") and isinstance(t, int | float) and t >= emulation.now():
                emulation.advance(float(t))
                recovery.advanced = True
    except JournalError as problem:
        raise StartError(str(problem)) from None
    except Exception as problem:  # the controller failed on its own journal: say so, plainly
        raise StartError(f"replaying {journal_path} failed: {problem!r}") from problem
    if recovery.requests:
        say(f"recovered {recovery.requests} requests from {journal_path}")
    return recovery


def _open_locked(
    settings: Settings, clock: Callable[[], float] | None, say: Callable[[str], None]
) -> Daemon:
    state_dir = settings.state_dir
    if probe(settings.socket_path):  # fail before a long replay
        raise StartError(f"a daemon is already listening on {settings.socket_path}")
    journal_path = state_dir / "journal.jsonl"
    platform_copy = state_dir / "platform.toml"
    fresh = settings.fresh and journal_path.exists()  # set aside once the start goes through
    reader = JournalReader(journal_path)
    records = iter(reader) if journal_path.exists() and not fresh else iter(())
    try:
        header = next(records, None)
    except JournalError as problem:
        raise StartError(str(problem)) from None
    if header is None and journal_path.exists() and not fresh:  # died before its header
        say(f"{journal_path} holds no run (no whole header): a new run may start there")
    given: Path | None = None
    if header is not None:
        stored = platform_copy.read_bytes() if platform_copy.exists() else b""
        setup = _recorded_setup(settings, header, stored)
    else:
        given = _given_platform(settings)
        if given is None:
            raise StartError(f"--platform is needed to start a new run in {state_dir}")
        feed = settings.feed.absolute()
        scheduler = settings.scheduler or _platform_scheduler(given) or DEFAULT_SCHEDULER
        setup = Setup(str(given.resolve()), scheduler, feed)
    try:
        emulation = open_emulation(given or platform_copy, setup.scheduler, state_dir, setup.feed)
    except EmulationError as problem:  # its message is for the user already
        raise StartError(str(problem)) from None
    except Exception as problem:
        raise StartError(f"cannot start the emulation: {problem}") from None
    recovery = Recovery()
    if header is not None:
        if setup.feed.record() != header.get("feed", Feed().record()):
            changed = ", ".join(str(path) for _, path in setup.feed.named())
            raise StartError(f"{changed} changed since the journal began; use --fresh")
        recovery = _recover(emulation, records, settings, say)
    if reader.tail is not None:
        say(reader.tail.describe(journal_path))
    checkpoint = recovery.checkpoint or {}
    speed = settings.speed
    if speed is None:
        saved = checkpoint.get("speed", 1.0)
        speed = math.inf if saved is None else float(saved)
    paused = settings.paused
    if paused is None:
        paused = bool(checkpoint.get("paused", False))
    pacer = Pacer(clock, speed=speed, paused=paused) if clock else Pacer(speed=speed, paused=paused)
    if settings.shared:
        _warn_if_unreachable(settings.socket_path.parent, say)
    try:
        listener, inode = bind_socket(settings.socket_path, settings.shared)
    except BaseException:
        emulation.close()
        raise
    # the start goes through: only now is the state dir changed
    if fresh:
        _set_aside(journal_path)
        (state_dir / "clock.json").unlink(missing_ok=True)
        say(f"--fresh: the old journal is kept beside the new one in {state_dir}")
    reader.repair()
    if given is not None:
        write_atomic(platform_copy, given.read_bytes())
    journal = Journal(journal_path, recovery.seq)
    if header is None:
        journal.write_header(
            {
                "platform": setup.platform,
                "platform_sha256": file_digest(platform_copy),
                "scheduler": setup.scheduler,
                "feed": setup.feed.record(),
            }
        )

    def log(message: str) -> None:
        say(f"[t={emulation.now():.3f}] {message}")

    service = Service(emulation, journal, state_dir, pacer, recovery.advanced, log)
    daemon = Daemon(
        service,
        listener,
        socket_path=settings.socket_path,
        socket_inode=inode,
        shared=settings.shared,
        info={
            "platform": setup.platform,
            "feed": setup.feed.describe(),
            "recovered": recovery.requests,
            "replay_mismatches": recovery.mismatches,
        },
    )
    (state_dir / "daemon.pid").write_text(f"{os.getpid()}\n")
    return daemon


def _warn_if_unreachable(parent: Path, say: Callable[[str], None]) -> None:
    """A ``--shared`` socket in a directory other users cannot traverse is shared with nobody."""
    try:
        reachable = all(os.stat(d).st_mode & 0o001 for d in (parent, *parent.parents))
    except OSError:
        reachable = False
    if not reachable:
        say(
            f"warning: other users cannot reach {parent}; for --shared, put --socket in a "
            "directory everyone may traverse (e.g. /tmp)"
        )


def _platform_scheduler(path: Path) -> str | None:
    """The scheduler a platform file names (lab's: Slurm's backfill), or None; a file that
    does not load is left for :func:`open_emulation` to report."""
    try:
        return load_platform(path).scheduler
    except PlatformError:
        return None
