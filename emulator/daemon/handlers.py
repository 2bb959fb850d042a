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
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from emulator.daemon.protocol import Handler

if TYPE_CHECKING:
    from emulator.slurmctld.controller import Controller

Factory = Callable[[str, str, str], Handler]


class HandlerError(Exception):
    """A handler that cannot be made (unknown name, missing module, bad platform)."""


class ControllerHandler:
    """Adapts :class:`emulator.slurmctld.controller.Controller` to the daemon's Handler.

    Accounting lives in memory: on a restart the journal's replay rebuilds it, job ids included.
    """

    def __init__(self, controller: Controller) -> None:
        self.controller = controller

    def execute(
        self,
        argv: Sequence[str],
        *,
        user: str,
        env: Mapping[str, str],
        stdin: str | None,
        cwd: str,
    ) -> tuple[str, str, int]:
        result = self.controller.execute(list(argv), user=user, env=dict(env), stdin=stdin, cwd=cwd)
        return result.stdout, result.stderr, result.exit_code

    def now(self) -> float:
        return self.controller.now

    def next_event(self) -> float:
        kernel = self.controller.engine.kernel
        return self.controller.now if kernel.settle_pending else kernel.next_time()

    def advance(self, until: float) -> None:
        # Engine.run, not Controller.advance_to: events at ``until == now`` must run too.
        if until >= self.controller.now and not math.isinf(until):
            self.controller.engine.run(until=until)

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
    """The real controller for ``platform_file`` under ``scheduler`` (imported lazily)."""
    try:
        from emulator.slurmctld.controller import Controller
    except ImportError as error:
        raise HandlerError(f"the Slurm controller is not available: {error}") from None
    from emulator.model.platform_file import load_platform

    return ControllerHandler(Controller(load_platform(platform_file), scheduler))


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
