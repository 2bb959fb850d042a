"""Handler factories: the real controller (:mod:`emulator.slurmctld`), the toy, or your own.

A factory is called as ``factory(platform_file, scheduler, state_dir)`` and returns a
:class:`~emulator.daemon.protocol.Handler`. :func:`load_factory` resolves the daemon's
``--handler`` value: ``slurmctld`` (the default), ``toy``, or ``package.module:function``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from emulator.daemon.commands import is_mutating
from emulator.daemon.protocol import Handler

if TYPE_CHECKING:
    from emulator.session import Session
    from emulator.slurmctld.controller import Controller

Factory = Callable[[str, str, str], Handler]


class HandlerError(Exception):
    """A handler that cannot be made (unknown name, missing module, bad platform, a workload
    it cannot read); the message is for the user as it stands."""


class ControllerHandler:
    """Adapts :class:`emulator.slurmctld.controller.Controller` to the daemon's Handler, with
    these capabilities: :class:`~emulator.daemon.protocol.Waiter` (``sbatch -W`` returns at once,
    the daemon waits), :class:`~emulator.daemon.protocol.SnapshotSource` and
    :class:`~emulator.daemon.protocol.Describes` (the scheduler in use).

    Snapshots come from an :class:`emulator.session.Session` over the controller, made on the
    first request (a daemon nobody watches pays nothing): it shows the jobs known by then, and
    its metrics and event log start then. Once it exists, the clock moves through it. A handler
    may also be made over a session that already wraps ``controller`` (a workload it feeds).
    The session's placements are exported: the clients place jobs on nodes themselves.

    Accounting is ``STATE_DIR/accounting.sqlite``, written when read and at :meth:`close`: on a
    restart it is made anew and the journal's replay fills it, job ids included
    (:mod:`emulator.daemon.accounting`).
    """

    def __init__(self, controller: Controller, session: Session | None = None) -> None:
        self.controller = controller
        controller.defer_waits = True
        self._wait: tuple[int, ...] = ()
        self._session = session
        self._touched = False  # a command may have changed jobs the session has not re-read
        if session is not None:
            session.export_placements()  # the windows place the jobs on their nodes
        # the last snapshot sent, and the last nodes update: ((version, since), header, payload)
        self._encoded: dict[bool, tuple[tuple[int, int | None], dict[str, Any], bytes]] = {}

    def describe(self) -> dict[str, Any]:
        """The scheduler in use (``scontrol update scheduler=`` may have switched it)."""
        return {"scheduler": str(self.controller.engine.spec)}

    def close(self) -> None:
        """A clean stop: write the rows not yet final, so the file is whole for other readers."""
        self.controller.close()

    def execute(
        self,
        argv: Sequence[str],
        *,
        user: str,
        env: Mapping[str, str],
        stdin: str | None,
        cwd: str,
    ) -> tuple[str, str, int]:
        self._wait = ()
        result = self.controller.execute(list(argv), user=user, env=dict(env), stdin=stdin, cwd=cwd)
        self._wait = result.waits
        self._touched = self._touched or is_mutating(argv)
        return result.stdout, result.stderr, result.exit_code

    def deferred_wait(self) -> tuple[int, ...]:
        return self._wait

    def wait_status(self, jobs: tuple[int, ...]) -> int | None:
        from emulator.slurmctld.sbatch import wait_status

        return wait_status(self.controller, jobs)

    def now(self) -> float:
        return self.controller.now

    def next_event(self) -> float:
        """The kernel's next event, or a workload job's arrival if a session feeds one."""
        if self._session is not None:
            return self._session.next_time()
        kernel = self.controller.engine.kernel
        return self.controller.now if kernel.settle_pending else kernel.next_time()

    def advance(self, until: float) -> None:
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

    @contextmanager
    def provide_file(self, path: str, cwd: str, text: str) -> Iterator[None]:
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


def make_handler(platform_file: str, scheduler: str, state_dir: str) -> Handler:
    """The real controller for ``platform_file`` under ``scheduler`` (imported lazily), its
    accounting a new ``accounting.sqlite`` in ``state_dir`` (the journal's replay fills it)."""
    try:
        from emulator.daemon.accounting import FILE_NAME, recreate
        from emulator.slurmctld import commands  # noqa: F401 - now, not on the first request
        from emulator.slurmctld.controller import Controller
    except ImportError as error:
        raise HandlerError(f"the Slurm controller is not available: {error}") from None
    from emulator.model.platform_file import load_platform

    accounting = recreate(Path(state_dir) / FILE_NAME)
    controller = Controller(load_platform(platform_file), scheduler, accounting=accounting)
    return ControllerHandler(controller)


def _toy(platform_file: str, scheduler: str, state_dir: str) -> Handler:
    from emulator.daemon.toy import make_toy

    return make_toy(platform_file, scheduler, state_dir)


BUILTIN: dict[str, Factory] = {"slurmctld": make_handler, "toy": _toy}


def load_factory(name: str) -> Factory:
    """``slurmctld``, ``toy`` or ``module:function``."""
    if name in BUILTIN:
        return BUILTIN[name]
    module_name, colon, attribute = name.partition(":")
    if not colon or not module_name or not attribute:
        raise HandlerError(f"unknown handler {name!r}: use {', '.join(BUILTIN)} or module:function")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise HandlerError(f"cannot load handler {name!r}: {error}") from None
    if not callable(factory):
        raise HandlerError(f"handler {name!r} is not callable")
    return factory  # type: ignore[no-any-return]
