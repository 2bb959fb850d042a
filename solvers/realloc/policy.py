"""The ``realloc`` grid policy: MCT placement at submission and a periodic reallocation of the
waiting jobs between clusters (Caniou, Charrier, Desprez, *Analysis of Tasks Reallocation in a
Dedicated Grid Environment*, §2.1–2.2; models.md §4.6), over local ``fcfs`` by default
(``realloc:algo=2,heuristic=minmin+cbf`` for CBF clusters).

- **Placement.** Each job is routed when it reaches the grid queue by the ``mct`` broker itself
  (:class:`solvers.brokers.policy.MinCompletionTime`), so the run without reallocation, the
  paper's reference, is ``mct`` over the same local policy, decision for decision.
- **Order.** At a reallocation instant the waiting jobs are reallocated first, then the jobs
  that have just arrived are placed (the paper does not say): a reallocation moves the jobs
  that were waiting, and a job MCT has just placed at its best ECT is not moved in the instant
  it came.
- **Period.** The first reallocation runs ``period`` seconds after the first submission, then
  every ``period`` (on that grid of instants; one with no waiting job anywhere is skipped, since
  there is nothing to move, and the policy asks for no wake while nothing waits).
- **Algorithm 1** (``algo=1``, without cancellation): the waiting jobs of every cluster, taken
  one by one in the heuristic's order; a job moves to its best other cluster when its ECT there
  beats its ECT where it stands by more than ``threshold`` seconds (a :class:`Route`, which
  queues it at the end there, as the cancel-and-submit of §2.2.1 does).
- **Algorithm 2** (``algo=2``, with cancellation): every waiting job is withdrawn
  (:class:`Withdraw`), then resubmitted one by one in the heuristic's order to its best cluster
  (back home included): the queues are rebuilt in that order.
- **ECTs** are the local policies' own answers (:meth:`emulator.api.GridView.estimates`: a job
  waiting on a cluster where it stands, any other as if submitted behind the queue), with the
  wall-time limit divided by the cluster's speed (the engine's ``walltime``; the run time is
  divided the same way when the job starts). After each move of algorithm 1 only the two
  clusters it touched are asked again; algorithm 2 asks only the ECTs its heuristic's choice
  needs (:mod:`solvers.realloc.resubmission`). The heuristics and the rules are the pure
  functions of :mod:`solvers.realloc.heuristics`, where the choices the paper leaves open are
  listed.
- **Explanations** name both clusters and both ECTs (from now), e.g. ``realloc: moved from a
  (ECT 2:00:00) to b (ECT 1:00:00), algo 1, minmin``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from emulator.api import Decision, GridPolicy, GridView, Route, Wake, Withdraw
from emulator.model.durations import format_duration
from emulator.model.job import Job
from solvers.brokers.policy import MinCompletionTime
from solvers.brokers.rules import sort_sites
from solvers.realloc.heuristics import (
    Candidate,
    Heuristic,
    best,
    move_to,
    resubmit_to,
    score,
)
from solvers.realloc.resubmission import Resubmission


@dataclass
class Reallocation(GridPolicy):
    """MCT placement and a periodic reallocation of waiting jobs (Caniou et al. §2.2)."""

    name = "realloc"
    default_local = "fcfs"
    # the paper's local policies (§3.2), and the ones under which a route never brings another
    # job's ECT earlier, which the resubmission order relies on (solvers/realloc/resubmission.py)
    local_policies = ("fcfs", "cbf")
    routes_all = True  # as mct: every job is placed in grid-queue order

    algo: int = 1
    heuristic: Heuristic = Heuristic.MCT
    threshold: float = 60.0
    period: float = 3600.0
    _placement: MinCompletionTime = field(default_factory=MinCompletionTime, init=False)
    _rank: tuple[int, ...] = field(default=(), init=False, repr=False)
    _first: float = field(default=math.nan, init=False, repr=False)  # the first submission
    _wake: float = field(default=math.nan, init=False, repr=False)  # the wake asked for
    _done: float = field(default=math.nan, init=False, repr=False)  # the last reallocation
    _moves: int = field(default=0, init=False, repr=False)  # jobs it moved to another cluster

    def __post_init__(self) -> None:
        if self.algo not in (1, 2):
            raise ValueError(f"algo must be 1 (without cancellation) or 2 (with), not {self.algo}")
        if not self.threshold >= 0 or math.isinf(self.threshold):
            raise ValueError(f"threshold must be finite seconds >= 0, not {self.threshold}")
        if not self.period > 0 or math.isinf(self.period):
            raise ValueError(f"period must be finite seconds > 0, not {self.period}")

    def schedule(self, view: GridView) -> Iterator[Decision]:
        now = view.now
        if math.isnan(self._first):
            if not view.queue:
                return
            self._first = now
            positions = sort_sites([c.cores for c in view.platform.clusters]).order
            rank = [0] * len(positions)
            for position, cluster in enumerate(positions):
                rank[cluster] = position
            self._rank = tuple(rank)
        count = round((now - self._first) / self.period)  # the nearest instant of the grid
        due = self._first + count * self.period
        if count >= 1 and due == now and now != self._done:
            self._done = now
            self._moves = 0
            if self.algo == 1:
                yield from self._without_cancellation(view)
            else:
                yield from self._with_cancellation(view)
        yield from self._placement.schedule(view)
        if self._worth_waking(view):
            if due <= now:
                due += self.period
            if due != self._wake:
                self._wake = due
                yield Wake(due)

    def _worth_waking(self, view: GridView) -> bool:
        """Jobs wait, and the next reallocation may find them something new: jobs run (they
        will end), or the last reallocation moved some, or none ran yet. Jobs stuck with
        nothing running (their clusters out of service) would otherwise wake it forever; an
        arrival or an end brings it back."""
        if all(cluster.head is None for cluster in view.clusters):
            return False
        return (
            math.isnan(self._done)
            or self._moves > 0
            or any(cluster.running for cluster in view.clusters)
        )

    def _waiting(self, view: GridView) -> list[Job]:
        """Every job waiting in a cluster's queue, in submission order."""
        jobs = [job for cluster in view.clusters for job in cluster.queue]
        jobs.sort(key=lambda job: (job.submit, job.id))
        return jobs

    def _without_cancellation(self, view: GridView) -> Iterator[Decision]:
        """Algorithm 1: take jobs in the heuristic's order, move one past the threshold."""
        jobs = self._waiting(view)
        table = EctTable(view, jobs)
        rank = self._rank
        choice = Choice(self, table, list(range(len(jobs))))
        while choice.remaining:
            i, row = choice.take()
            destination = move_to(row, rank, self.threshold)
            if destination is None:
                continue
            origin = jobs[i].cluster
            self._moves += 1
            yield Route(jobs[i], destination, self._moved(view, row, origin, destination))
            table.current[i] = destination
            choice.update(table.refresh((origin, destination), choice.remaining))

    def _with_cancellation(self, view: GridView) -> Iterator[Decision]:
        """Algorithm 2: withdraw every waiting job, resubmit them in the heuristic's order."""
        jobs = self._waiting(view)
        origins = [job.cluster for job in jobs]
        references = _where_they_stand(view, jobs)
        for job in jobs:
            yield Withdraw(job)
        rank = self._rank
        order = Resubmission(view, jobs, references, self.heuristic, rank)
        while order.remaining:
            i, row = order.take()
            destination = resubmit_to(row, rank, origins[i])
            self._moves += destination != origins[i]
            yield Route(jobs[i], destination, self._moved(view, row, origins[i], destination))

    @property
    def _label(self) -> str:
        return f"algo {self.algo}, {self.heuristic.value}"

    def _moved(self, view: GridView, row: Candidate, origin: int, destination: int) -> str:
        """``realloc: moved from a (ECT 2:00:00) to b (ECT 1:00:00), algo 1, minmin``."""
        clusters, now = view.platform.clusters, view.now
        before = _duration(row.reference - now)
        after = _duration(row.ects[destination] - now)
        if origin == destination:
            return (
                f"realloc: resubmitted to {clusters[origin].name} (ECT {after}, was {before}), "
                f"{self._label}"
            )
        return (
            f"realloc: moved from {clusters[origin].name} (ECT {before}) to "
            f"{clusters[destination].name} (ECT {after}), {self._label}"
        )


class Choice:
    """The jobs a reallocation has yet to take, in submission order, each with its heuristic
    row and score (:func:`solvers.realloc.heuristics.choose`'s, kept up to date: only the rows
    whose ECTs a move changed are made again)."""

    def __init__(self, policy: Reallocation, table: EctTable, remaining: list[int]) -> None:
        self._table = table
        self._heuristic, self._rank = policy.heuristic, policy._rank
        self._by_order = policy.heuristic is Heuristic.MCT  # MCT takes the first: no scores
        self.remaining = remaining
        self.rows = [table.candidate(i) for i in remaining]
        self.scores = [] if self._by_order else [self._score(row) for row in self.rows]
        self.orders = [row.order for row in self.rows]

    def _score(self, row: Candidate) -> float:
        return score(self._heuristic, row, self._rank)

    def take(self) -> tuple[int, Candidate]:
        """The next job (its index in the table) and its row, taken out."""
        pick = 0 if self._by_order else best(self.scores, self.orders)
        if self.scores:
            self.scores.pop(pick)
        self.orders.pop(pick)
        return self.remaining.pop(pick), self.rows.pop(pick)

    def update(self, changed: set[int]) -> None:
        """Make again the rows of the jobs whose ECTs changed."""
        if not changed:
            return
        table, rows, scores = self._table, self.rows, self.scores
        for position, i in enumerate(self.remaining):
            if i in changed:
                rows[position] = row = table.candidate(i)
                if scores:
                    scores[position] = self._score(row)


class EctTable:
    """The ECT of each waiting job on each cluster it may use (``inf`` elsewhere), asked column
    by column (one :meth:`GridView.estimates` call per cluster) and asked again only for the
    clusters a move changed."""

    def __init__(self, view: GridView, jobs: Sequence[Job]) -> None:
        self._view = view
        self._jobs = jobs
        self._allowed = [frozenset(view.allowed(job)) for job in jobs]
        self.ects = [[math.inf] * len(view.clusters) for _ in jobs]
        self.current = [job.cluster for job in jobs]
        self.refresh(range(len(view.clusters)), range(len(jobs)))

    def refresh(self, clusters: Sequence[int], rows: Sequence[int]) -> set[int]:
        """Ask ``clusters`` again for the jobs of ``rows``; the rows whose ECT changed."""
        changed: set[int] = set()
        ects = self.ects
        for k in clusters:
            asked = [i for i in rows if k in self._allowed[i]]
            answers = self._view.estimates([self._jobs[i] for i in asked], k)
            for i, estimate in zip(asked, answers, strict=True):
                end = estimate.end
                if ects[i][k] != end:
                    ects[i][k] = end
                    changed.add(i)
        return changed

    def candidate(self, i: int) -> Candidate:
        job, current, ects = self._jobs[i], self.current[i], self.ects[i]
        return Candidate((job.submit, job.id), job.cores, tuple(ects), current, ects[current])


def _where_they_stand(view: GridView, jobs: Sequence[Job]) -> list[float]:
    """Each waiting job's ECT in the queue it waits in (algorithm 2's reference)."""
    ects: dict[int, float] = {}
    for k in range(len(view.clusters)):
        here = [job for job in jobs if job.cluster == k]
        for job, estimate in zip(here, view.estimates(here, k), strict=True):
            ects[job.id] = estimate.end
    return [ects[job.id] for job in jobs]


def _duration(seconds: float) -> str:
    return "never" if math.isinf(seconds) else format_duration(max(seconds, 0.0))
