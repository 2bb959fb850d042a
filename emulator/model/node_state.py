"""Administrative node states: what ``scontrol update NodeName=… State=…`` sets.

A node is up unless an operator drained it (no new jobs; running ones finish) or set it down
(its running jobs are killed). Only nodes that are not up carry a :class:`NodeStatus`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class NodeState(Enum):
    """Slurm's administrative node states (the base state, idle/mixed/allocated, is derived)."""

    DRAIN = "DRAIN"
    DOWN = "DOWN"


@dataclass(frozen=True, slots=True)
class NodeStatus:
    """Why a node is out of service, who said so and when (``sinfo -R``'s columns)."""

    state: NodeState
    reason: str
    user: str
    since: float
