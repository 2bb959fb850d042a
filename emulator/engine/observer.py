"""Observers: how recorders, accounting, the daemon and the GUI learn what the engine did."""

from __future__ import annotations

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
