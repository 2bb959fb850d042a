"""Observers: how recorders, accounting, the daemon and the GUI learn what the engine did."""

from __future__ import annotations

from collections.abc import Callable

from emulator.api.decisions import Decision
from emulator.model.job import Job


class Observer:
    """Receives engine events; every method is optional (the defaults do nothing)."""

    def job_submitted(self, job: Job) -> None:
        """A job was accepted (it may not be eligible yet)."""

    def job_started(self, job: Job) -> None:
        """A job started on ``job.nodes``."""

    def job_ended(self, job: Job) -> None:
        """A job left the system (completed, timed out, failed, cancelled or rejected)."""

    def decided(self, policy: str, decision: Decision) -> None:
        """A policy decision was applied."""


class Subscribers:
    """The hooks the engine calls, per event: only those an observer overrides, so that an
    event nobody listens to costs an empty loop."""

    def __init__(self) -> None:
        self.submitted: list[Callable[[Job], None]] = []
        self.started: list[Callable[[Job], None]] = []
        self.ended: list[Callable[[Job], None]] = []
        self.decided: list[Callable[[str, Decision], None]] = []

    def add(self, observer: Observer) -> None:
        """Subscribe ``observer`` to the hooks it overrides."""
        for hook, subscribers in (
            ("job_submitted", self.submitted),
            ("job_started", self.started),
            ("job_ended", self.ended),
            ("decided", self.decided),
        ):
            if getattr(type(observer), hook) is not getattr(Observer, hook):
                subscribers.append(getattr(observer, hook))
