"""What the daemon serves: the Slurm controller (:mod:`emulator.slurmctld`), and the session a
window watches over it.

:class:`Feed` is what the session starts with (``batchlab daemon start --demo``, ``--workload``,
``--commands``: a window's own daemon, :mod:`emulator.child`, is fed so). The journal's header
keeps it, with the files' digests, so that a restart feeds the same again or refuses.
"""

from __future__ import annotations

import hashlib
import math
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from emulator.daemon.commands import command_name, is_mutating
from emulator.daemon.protocol import Script
from emulator.heap import collector_paused

if TYPE_CHECKING:
    from emulator.session import Session
    from emulator.slurmctld.controller import Controller
    from resources import Kind


class EmulationError(Exception):
    """An emulation that cannot be made (a workload or command file it cannot use); the message
    is for the user as it stands."""


def file_digest(path: Path) -> str:
    """The SHA-256 of ``path``'s bytes (what the journal's header holds of a file it names)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True, slots=True)
class Feed:
    """What the session starts with: the demo's jobs, a workload (SWF, SWF.gz, BSP CSV) or a
    command file; nothing by default (then no session is made until a window asks)."""

    demo: bool = False
    workload: Path | None = None
    commands: Path | None = None

    @classmethod
    def given(cls, demo: bool, workload: str | None, commands: str | None) -> Feed:
        """A feed as the command line names it: each file a path, or the name of a shipped
        workload or command file (``kth-sp2-first-2000``, ``teaching-scenario``); a name that
        is neither stays a path, for the emulation to say it cannot read it. Paths are made
        absolute here: a detached daemon reads them after it has moved to ``/``."""
        from resources import resolve

        def found(kind: Kind, text: str | None) -> Path | None:
            if text is None:
                return None
            try:
                return resolve(kind, text).absolute()
            except FileNotFoundError:
                return Path(text).absolute()

        return cls(demo, found("workload", workload), found("command file", commands))

    @property
    def empty(self) -> bool:
        return not self.demo and self.workload is None and self.commands is None

    def absolute(self) -> Feed:
        """The same feed with absolute paths (a detached daemon runs in ``/``)."""
        return Feed(
            self.demo,
            None if self.workload is None else self.workload.absolute(),
            None if self.commands is None else self.commands.absolute(),
        )

    def record(self) -> dict[str, Any]:
        """As the journal's header keeps it: the paths and the digests of the files."""
        record: dict[str, Any] = {"demo": self.demo}
        for name, path in (("workload", self.workload), ("commands", self.commands)):
            record[name] = None if path is None else str(path)
            record[f"{name}_sha256"] = None if path is None else file_digest(path)
        return record

    @classmethod
    def recorded(cls, record: Any) -> Feed:
        """The feed a journal's header names (none in a header written before feeds existed)."""
        if not isinstance(record, dict):
            return cls()
        workload, commands = record.get("workload"), record.get("commands")
        return cls(
            bool(record.get("demo")),
            None if workload is None else Path(str(workload)),
            None if commands is None else Path(str(commands)),
        )

    def describe(self) -> str:
        """For ``batchlab daemon status``: ``demo``, ``workload PATH``, ... or ``none``."""
        parts = ["demo"] if self.demo else []
        parts += [f"{name} {path}" for name, path in self.named()]
        return ", ".join(parts) or "none"

    def named(self) -> list[tuple[str, Path]]:
        """The files it names, by what they are."""
        return [
            (name, path)
            for name, path in (("workload", self.workload), ("commands", self.commands))
            if path is not None
        ]


class Emulation:
    """The controller the daemon serves, and the session over it.

    ``sbatch -W`` answers at once: :attr:`waits` holds the jobs the last command left to wait
    for, and the daemon serves other clients until :meth:`wait_status` has their exit status.

    Snapshots come from an :class:`emulator.session.Session` over the controller. An unfed
    emulation makes it on the first request (a daemon nobody watches pays nothing): it shows
    the jobs known by then, and its metrics and event log start then. A fed one starts with
    it. Once it exists, the clock moves through it. The session's placements are exported: the
    windows place jobs on nodes themselves.
    """

    def __init__(
        self,
        controller: Controller,
        session: Session | None = None,
        transcript: tuple[str, ...] = (),
    ) -> None:
        self.controller = controller
        controller.defer_waits = True
        self.transcript = transcript
        self.waits: tuple[int, ...] = ()
        self._session = session
        self._touched = False  # a command may have changed jobs the session has not re-read
        if session is not None:
            session.export_placements()  # the windows place the jobs on their nodes
        # the last snapshot sent, and the last nodes update: ((version, since), header, payload)
        self._encoded: dict[bool, tuple[tuple[int, int | None], dict[str, Any], bytes]] = {}

    def scheduler(self) -> str:
        """The scheduler in use (``scontrol update scheduler=`` may have switched it)."""
        return str(self.controller.engine.spec)

    def close(self) -> None:
        """A clean stop: write the accounting rows not yet final, so the file is whole for other
        readers."""
        self.controller.close()

    # --- commands --------------------------------------------------------------------------------

    def run(
        self,
        argv: list[str],
        *,
        user: str,
        env: Mapping[str, str],
        stdin: str | None,
        cwd: str,
        script: Script | None,
    ) -> tuple[str, str, int]:
        """Run one command, giving the controller the script text the client read under the
        script's own path; returns ``(stdout, stderr, exit_code)``. Live and replayed runs go
        through here, so they agree. A bug costs this command an internal error, not the
        daemon."""
        self.waits = ()
        provide = (
            nullcontext() if script is None else self._provide(argv[script.index], cwd, script.text)
        )
        try:
            with provide, collector_paused():
                result = self.controller.execute(
                    argv, user=user, env=dict(env), stdin=stdin, cwd=cwd
                )
        except Exception as problem:
            traceback.print_exc(file=sys.stderr)
            return "", f"{command_name(argv)}: error: internal error: {problem!r}\n", 1
        self.waits = result.waits
        self._touched = self._touched or is_mutating(argv)
        return result.stdout, result.stderr, result.exit_code

    @contextmanager
    def _provide(self, path: str, cwd: str, text: str) -> Iterator[None]:
        """Let the controller read ``path`` (as the client read it) during one command."""
        files = self.controller.files
        key = str(PurePosixPath(cwd) / path)
        previous = files.get(key)
        files[key] = text
        try:
            yield
        finally:
            if previous is None:
                files.pop(key, None)
            else:
                files[key] = previous

    def wait_stderr(self, jobs: tuple[int, ...], argv: Sequence[str]) -> str:
        """What the waiting command prints once ``jobs`` have ended (srun's and salloc's
        lines; nothing for ``sbatch -W``)."""
        from emulator.slurmctld.interactive import after_wait

        program = command_name(list(argv))
        return after_wait(self.controller, program, jobs) if program in ("srun", "salloc") else ""

    def wait_status(self, jobs: tuple[int, ...]) -> int | None:
        """The exit status of an ``sbatch -W`` once ``jobs`` have all ended, else None."""
        from emulator.slurmctld.sbatch import wait_status

        return wait_status(self.controller, jobs)

    # --- the clock -------------------------------------------------------------------------------

    def now(self) -> float:
        return self.controller.now

    def next_event(self) -> float:
        """The kernel's next event, or a workload job's arrival if a session feeds one;
        ``math.inf`` when there is none."""
        if self._session is not None:
            return self._session.next_time()
        kernel = self.controller.engine.kernel
        return self.controller.now if kernel.settle_pending else kernel.next_time()

    def advance(self, until: float) -> None:
        """Process the events up to and including ``until``, then set the clock to ``until``.
        The result does not depend on how a span is split into calls (advance(5); advance(9)
        equals advance(9)), so that replaying the journal reproduces the live run."""
        # Engine.run, not Controller.advance_to: events at ``until == now`` must run too.
        if until >= self.controller.now and not math.isinf(until):
            session = self._session
            if session is None:
                self.controller.engine.run(until=until)
            else:
                self._catch_up(session)
                session.run_until(until)  # the same events, with the session's metrics

    # --- snapshots -------------------------------------------------------------------------------

    def _catch_up(self, session: Session) -> None:
        """Tell the session about the commands since the last call: once per turn, not per
        command (re-reading the jobs costs O(jobs))."""
        if self._touched:
            session.touched()
            self._touched = False

    def encoded_snapshot(
        self, since: int | None, nodes: bool = False
    ) -> tuple[dict[str, Any], bytes] | None:
        """The current snapshot (``nodes``: a :class:`~emulator.daemon.snapshots.NodesUpdate`)
        encoded as :mod:`emulator.daemon.snapshots` says, or None when its version is still
        ``since``."""
        from emulator.daemon.snapshots import NodesUpdate, encode

        session = self._watched()
        version = session.version
        if version == since:
            return None
        key = (version, since if nodes else None)  # (a nodes update holds placements since)
        sent = self._encoded.get(nodes)
        if sent is None or sent[0] != key:
            if nodes:
                sent = (key, *encode(NodesUpdate.of(session, since)))
            else:
                sent = (key, *encode(session.snapshot()))
            self._encoded[nodes] = sent
        return sent[1], sent[2]

    def encoded_platform(self) -> tuple[dict[str, Any], bytes]:
        from emulator.daemon.snapshots import encode

        return encode(self.controller.platform)

    def result_files(self) -> dict[str, str]:
        """``jobs.csv`` and ``summary.json`` of the jobs finished so far, texts by name."""
        return self._watched().result_files()

    def _watched(self) -> Session:
        """The session over the controller (made now if this is the first request for it),
        told about the commands since the last call."""
        from emulator.session import Session

        session = self._session
        if session is None:
            session = self._session = Session(self.controller.platform, controller=self.controller)
            session.export_placements()
            self._touched = False
        self._catch_up(session)
        return session


def open_emulation(platform_file: Path, scheduler: str, state_dir: Path, feed: Feed) -> Emulation:
    """The controller for ``platform_file`` under ``scheduler``, fed ``feed``.

    Unfed, its accounting is a new store that a clean stop writes to
    ``STATE_DIR/accounting.sqlite`` (:mod:`emulator.daemon.accounting`). Fed, the session is
    made as the in-process window makes it (:func:`emulator.session.demo_session`,
    :func:`~emulator.session.open_session`), with its own controller. A file it cannot use
    raises :class:`EmulationError` in the loader's words.
    """
    from emulator.daemon.accounting import FILE_NAME, SavedAccounting
    from emulator.model.platform_file import load_platform
    from emulator.slurmctld import commands  # noqa: F401 - now, not on the first request
    from emulator.slurmctld.controller import Controller

    if feed.empty:
        accounting = SavedAccounting(state_dir / FILE_NAME)
        return Emulation(Controller(load_platform(platform_file), scheduler, accounting=accounting))
    from emulator.session import OpenError, demo_session, open_session

    try:
        if feed.demo:
            session = demo_session(scheduler)
        else:
            platform = load_platform(platform_file)
            session = open_session(
                platform, scheduler, workload=feed.workload, commands=feed.commands
            )
    except OpenError as error:
        raise EmulationError(str(error)) from None
    return Emulation(session.controller, session, tuple(session.transcript))
