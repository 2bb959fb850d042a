"""Policy base classes: a local policy per cluster, optionally one grid policy over all of them.

A policy is a small dataclass whose fields are its options (``easy``, ``coalloc:order=sjf``): the
registry builds it from a scheduler spec. It keeps whatever state it likes between passes but
changes the world only through the decisions it returns.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from emulator.api.decisions import Decision
from emulator.api.profile import Profile
from emulator.api.view import ClusterView, Estimate, GridView
from emulator.model.job import Job


class PolicyError(RuntimeError):
    """A policy decided something the engine cannot do; the message names the policy."""


class LocalPolicy(ABC):
    """Schedules one cluster's queue."""

    name: ClassVar[str]
    kind: ClassVar[str] = "local"

    @abstractmethod
    def schedule(self, view: ClusterView) -> Iterable[Decision]:
        """One scheduling pass: the decisions to apply now, in order."""

    def estimate(self, job: Job, view: ClusterView) -> Estimate:
        """Expected start and end of ``job`` if submitted now behind the current queue, or, for a
        job already in the queue, where it stands. (Override :meth:`estimates`, not this.)"""
        return self.estimates((job,), view)[0]

    def estimates(self, jobs: Iterable[Job], view: ClusterView) -> list[Estimate]:
        """:meth:`estimate` for each of ``jobs``, each as if it alone were submitted, from one
        plan of the queue.

        The default plans the queue conservatively (every waiting job keeps its place, later jobs
        fill holes), which is exact for conservative backfilling and a safe answer for others.
        """
        walltime, now = view.walltime, view.now
        profile = running_profile(view)
        # a waiting job's reservation in this plan depends only on the jobs ahead of it: it is
        # the answer for that job where it stands
        planned = {
            waiting.id: (waiting, profile.place(waiting.cores, walltime(waiting), now))
            for waiting in view.queue
        }
        answers = []
        for job in jobs:
            mine = planned.get(job.id)
            start = (
                mine[1]
                if mine is not None and mine[0] is job
                else profile.earliest(job.cores, walltime(job), now)
            )
            answers.append(Estimate(start, start + walltime(job)))
        return answers


class GridPolicy(ABC):
    """Schedules the grid queue over all clusters (route, co-allocate, reserve, reallocate)."""

    name: ClassVar[str]
    kind: ClassVar[str] = "grid"
    default_local: ClassVar[str] = "fcfs"
    # The local policies it may run over ((): any), for one whose reasoning holds only for some
    local_policies: ClassVar[tuple[str, ...]] = ()
    # Every job comes to the grid queue, even one that only one cluster can take (which the
    # engine otherwise queues there at once): for a policy that must see jobs in their order.
    routes_all: ClassVar[bool] = False

    @abstractmethod
    def schedule(self, view: GridView) -> Iterable[Decision]:
        """One grid scheduling pass."""


def running_profile(view: ClusterView) -> Profile:
    """The cluster's availability profile from its running jobs' expected ends (its capacity:
    the cores in service, free now or coming back; a drained node's are neither)."""
    ends = [(end, cores) for end, _, cores in view.running_ends]
    return Profile.from_running(view.now, view.free_cores + sum(c for _, c in ends), ends)
