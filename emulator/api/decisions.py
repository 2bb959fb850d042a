"""What a policy may decide. The engine validates and applies each decision in order.

Decisions are values: build one, yield it, never change it. (They are not frozen dataclasses
only because a frozen ``__init__`` costs three times as much, and a replay makes millions.)
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.model.job import Job, Reason


@dataclass(slots=True)
class Start:
    """Start ``job`` now.

    ``nodes``/``cores``: platform node ids and the cores taken on each; ``None`` lets the engine
    pick the lowest-numbered free nodes of the job's cluster, as Slurm's select plugin does.
    Nodes may span clusters (co-allocation) for a job in the grid queue. ``time_limit``: a
    shorter limit the job runs under (Slurm's backfill with ``--time-min``), never below the
    request's ``time_min``.
    """

    job: Job
    nodes: tuple[int, ...] | None = None
    cores: tuple[int, ...] | None = None
    explanation: str = ""
    time_limit: float | None = None


@dataclass(slots=True)
class Reserve:
    """Record that ``job`` is planned to start at ``start`` (on ``nodes`` if known).

    A reservation is a promise shown to users (``squeue --start``, the GUI's outlines); the policy
    that made it starts the job when the time comes (ask for a :class:`Wake` if nothing else will
    wake you then).
    """

    job: Job
    start: float
    nodes: tuple[int, ...] = ()
    explanation: str = ""


@dataclass(slots=True)
class Route:
    """Move a waiting job to cluster ``cluster``'s queue (from the grid queue or another cluster's:
    the latter is a reallocation, counted as such, as is a route elsewhere of a job a
    :class:`Withdraw` took from a cluster). It queues at the end there."""

    job: Job
    cluster: int
    explanation: str = ""


@dataclass(slots=True)
class Withdraw:
    """Take a job waiting in a cluster's queue back to the grid queue (a grid decision only).

    The engine remembers the cluster it came from: a later :class:`Route` elsewhere counts as a
    reallocation, one back there as a resubmission (it queues again at the end, as a cancelled
    and resubmitted batch job does). The reallocation paper's algorithm with cancellation
    withdraws every waiting job, then resubmits them one by one.
    """

    job: Job
    explanation: str = ""


@dataclass(slots=True)
class Reject:
    """Refuse a waiting job for good; it ends FAILED with ``reason`` as its explanation."""

    job: Job
    reason: str


@dataclass(slots=True)
class Explain:
    """Say why a job waits (Slurm reason code plus the scheduler's own sentence)."""

    job: Job
    reason: Reason
    text: str = ""


@dataclass(slots=True)
class Wake:
    """Call this policy again at simulated time ``at`` (a backfill interval, a period...)."""

    at: float


Decision = Start | Reserve | Route | Withdraw | Reject | Explain | Wake
