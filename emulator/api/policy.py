"""Policy base classes: a local policy per cluster, optionally one grid policy over all of them.

A policy is a small dataclass whose fields are its options (``easy``, ``coalloc:order=sjf``): the
registry builds it from a scheduler spec. It keeps whatever state it likes between passes but
changes the world only through the decisions it returns.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from emulator.api.decisions import Decision
from emulator.api.profile import Profile
from emulator.api.view import ClusterView, GridView
from emulator.model.job import Job


class PolicyError(RuntimeError):
    """A policy decided something the engine cannot do; the message names the policy."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """Answer to the planning query: expected start and end (``inf`` if it can never run)."""

    start: float
    end: float


class LocalPolicy(ABC):
    """Schedules one cluster's queue."""

    name: ClassVar[str]
    kind: ClassVar[str] = "local"

    @abstractmethod
    def schedule(self, view: ClusterView) -> Iterable[Decision]:
        """One scheduling pass: the decisions to apply now, in order."""

    def estimate(self, job: Job, view: ClusterView) -> Estimate:
        """Expected start and end of ``job`` if submitted now behind the current queue.

        The default plans the queue conservatively (every waiting job keeps its place, later jobs
        fill holes), which is exact for conservative backfilling and a safe answer for others.
        """
        profile = running_profile(view)
        for waiting in view.queue:
            if waiting is not job:
                profile.place(waiting.cores, view.walltime(waiting))
        walltime = view.walltime(job)
        start = profile.earliest(job.cores, walltime)
        return Estimate(start, start + walltime)


class GridPolicy(ABC):
    """Schedules the grid queue over all clusters (route, co-allocate, reserve, reallocate)."""

    name: ClassVar[str]
    kind: ClassVar[str] = "grid"
    default_local: ClassVar[str] = "fcfs"

    @abstractmethod
    def schedule(self, view: GridView) -> Iterable[Decision]:
        """One grid scheduling pass."""


def running_profile(view: ClusterView) -> Profile:
    """The cluster's availability profile from its running jobs' expected ends (its capacity:
    the cores in service, free now or coming back; a drained node's are neither)."""
    ends = [(end, cores) for end, _, cores in view.running_ends]
    return Profile.from_running(view.now, view.free_cores + sum(c for _, c in ends), ends)
