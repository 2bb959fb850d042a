"""Largest Size First (Tchernykh et al., two-level grid brokers, §3: the local policy of each node).

A list scheduler: waiting jobs ordered by size, largest first (ties by queue order), each started
as soon as it fits; no reservations, so a job that does not fit is passed over, not waited for.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from emulator.api import ClusterView, Decision, LocalPolicy, Start


@dataclass
class LargestSizeFirst(LocalPolicy):
    """Largest size first: start the biggest waiting jobs that fit, skipping those that do not."""

    name = "lsf"

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        if view.free_cores == 0:
            return
        ordered = sorted(enumerate(view.queue), key=lambda item: (-item[1].cores, item[0]))
        for _, job in ordered:
            if job.cores <= view.free_cores and view.fits(job):
                yield Start(job)
                if view.free_cores == 0:
                    return
