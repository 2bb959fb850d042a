"""The nodes of a session's snapshots: free cores, the job each node shows, the nodes out of
service, and the placements a daemon's windows make themselves."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from emulator.engine import Engine
from emulator.model.job import Job
from emulator.model.platform import Platform
from emulator.occupancy import Occupancy, PlacementLog, Placements
from emulator.session.snapshot import ClusterSnapshot, NodeOut, frozen, node_columns

__all__ = ["NodeView"]


class NodeView:
    """The engine's nodes as :class:`ClusterSnapshot` s. The jobs that started or ended are
    placed on their nodes only when a picture is asked for (:meth:`place`), each once however
    often it changed meanwhile; or, once :meth:`export` was called, recorded for the clients
    to place (:meth:`placements_since`) and the pictures show no job."""

    def __init__(self, engine: Engine, platform: Platform) -> None:
        self.engine = engine
        self.platform = platform
        self.to_place: dict[int, Job] = {}  # started or ended since the nodes were last placed
        self._occupancy = Occupancy(self.platform)  # the job each node shows
        self._log: PlacementLog | None = None  # see export
        self._static = node_columns(self.platform)
        self._made: tuple[int, tuple[ClusterSnapshot, ...]] | None = None  # version, clusters

    @property
    def exported(self) -> bool:
        return self._log is not None

    def note(self, jobs: Iterable[Job]) -> None:
        """These jobs may have started or ended: place them again at the next picture."""
        self.to_place.update((job.id, job) for job in jobs)

    def place(self, version: int) -> None:
        """Place the jobs that started or ended since the last call (or record them)."""
        if self.to_place:
            if self._log is None:
                self._occupancy.place(self.to_place.values())
            else:
                self._log.add(version, self.to_place.values())
            self.to_place.clear()

    def export(self) -> None:
        """From now on record the placements for :meth:`placements_since` instead."""
        self._log = PlacementLog()
        self._occupancy = Occupancy(self.platform)
        self._made = None

    def placements_since(self, version: int | None, now_version: int) -> Placements:
        """The placements recorded from ``version`` on (every running job if ``version`` is
        None or too old), after :meth:`export`."""
        if self._log is None:
            raise RuntimeError("placements are exported only after export_placements()")
        self.place(now_version)
        return self._log.since(version, self.engine.jobs.values())

    def clusters(self, version: int) -> tuple[ClusterSnapshot, ...]:
        """Each cluster's nodes from the occupancy as it is (made once per version)."""
        made = self._made
        if made is not None and made[0] == version:
            return made[1]
        engine = self.engine
        out: dict[int, list[NodeOut]] = {}
        nodes = self.platform.nodes
        for node_id, status in sorted(engine.node_status.items()):
            node = nodes[node_id]
            out.setdefault(node.cluster, []).append(
                NodeOut(node.local, status.state.value, status.reason, status.user, status.since)
            )
        clusters = []
        for k, state in enumerate(engine.clusters):
            names, speeds, cores = self._static[k]
            free = state.node_free
            free_array = (
                np.frombuffer(bytes(free), np.uint8).astype(np.int32)
                if isinstance(free, bytearray)
                else np.array(free, np.int32)
            )
            for local, withheld in state.withheld.items():  # cores out of service, not busy
                free_array[local] = withheld
            first = state.first_id
            clusters.append(
                ClusterSnapshot(
                    name=state.cluster.name,
                    index=k,
                    first_node=first,
                    node_names=names,
                    speeds=speeds,
                    cores=cores,
                    free=frozen(free_array),
                    job=self._occupancy.shown_on(first, len(names)),
                    out_of_service=tuple(out.get(k, ())),
                )
            )
        result = tuple(clusters)
        self._made = (version, result)
        return result
