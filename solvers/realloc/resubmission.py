"""Algorithm 2's resubmissions in the heuristic's order, asking only the ECTs the choice needs.

Once every waiting job is withdrawn, each route queues one job at the end of a cluster's queue.
Under the paper's local policies (FCFS and CBF, §3.2) that only takes cores from the jobs still
to place: the ECT of each of them there never gets earlier. An ECT asked at an earlier version of
a cluster is therefore a lower bound of the one now, and the choice need not ask every job again
after each route (which made a reallocation cost about n² estimates for n waiting jobs):

- **MCT** takes the jobs in submission order: only the taken job's ECTs are asked.
- **MinMin, MaxGain, MaxRelGain** take the highest of a score that only falls as ECTs grow: the
  scores last asked are upper bounds, kept in a heap, and the top is asked again until it stays
  on top (lazy greedy).
- **MaxMin** takes the highest best ECT, which only grows. A withdrawn job's ECT on a cluster
  depends only on its cores and time limit there, and a longer limit never ends earlier: among
  jobs alike in cores and in the clusters they may use, a longer limit scores at least as high,
  so only the first jobs of each such group, by limit, are looked at; and a job is asked again
  only if a cluster that changed may now hold its best ECT.
- **Sufferage** (the second-best ECT less the best) may grow or fall: every job is asked again
  after each route, on the cluster the route changed.

The choices are those of :func:`solvers.realloc.heuristics.choose` over a table asked afresh
after each route, ties to the earlier submission (tests/realloc/test_resubmission.py).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from emulator.api import GridView
from emulator.model.job import Job
from solvers.realloc.heuristics import Candidate, Heuristic, best, maxmin_score, score

_LAZY = (Heuristic.MINMIN, Heuristic.MAXGAIN, Heuristic.MAXRELGAIN)


class Resubmission:
    """The withdrawn jobs still to resubmit, taken one by one in the heuristic's order."""

    def __init__(
        self,
        view: GridView,
        jobs: Sequence[Job],
        references: Sequence[float],
        heuristic: Heuristic,
        rank: Sequence[int],
    ) -> None:
        self._view = view
        self._jobs = jobs
        self._references = references
        self._heuristic = heuristic
        self._rank = rank
        self._allowed = [tuple(view.allowed(job)) for job in jobs]
        self._limit = [job.time_limit for job in jobs]
        clusters = len(view.clusters)
        self._ects = [[math.inf] * clusters for _ in jobs]
        self._asked = [[-1] * clusters for _ in jobs]  # the cluster's version at each ECT
        self.remaining = len(jobs)
        everyone = range(len(jobs))
        self._ask(everyone)
        self._next = 0  # MCT: the next job in submission order
        self._heap: list[tuple[float, tuple[float, int], int]] = []
        self._groups: list[list[int]] = []
        self._left: list[int] = []  # Sufferage: the jobs not taken, in submission order,
        self._scores: list[float] = []  # their scores
        self._orders: list[tuple[float, int]] = []  # and their submission orders
        if heuristic in _LAZY:
            self._heap = [(-self._score(i), self._order(i), i) for i in everyone]
            heapq.heapify(self._heap)
        elif heuristic is Heuristic.MAXMIN:
            groups: dict[tuple[int, tuple[int, ...]], list[int]] = {}
            for i in everyone:
                groups.setdefault((jobs[i].cores, self._allowed[i]), []).append(i)
            for members in groups.values():
                members.sort(key=lambda i: (-self._limit[i], self._order(i)))
            self._groups = list(groups.values())
        elif heuristic is not Heuristic.MCT:
            self._left = list(everyone)
            self._scores = [self._score(i) for i in everyone]
            self._orders = [self._order(i) for i in everyone]

    def take(self) -> tuple[int, Candidate]:
        """The next job (its index in ``jobs``) and its row as it stands now, taken out."""
        heuristic = self._heuristic
        if heuristic is Heuristic.MCT:
            i = self._next
            self._next += 1
            self._ask((i,))
        elif heuristic in _LAZY:
            i = self._take_lazily()
        elif heuristic is Heuristic.MAXMIN:
            i = self._take_longest()
        else:
            i = self._take_scanning()
        self.remaining -= 1
        return i, self._candidate(i)

    def _take_lazily(self) -> int:
        """The top of the heap once its score, asked again, keeps it there."""
        heap = self._heap
        while True:
            _, order, i = heapq.heappop(heap)
            self._ask((i,))
            entry = (-self._score(i), order, i)
            if not heap or entry <= heap[0]:
                return i
            heapq.heappush(heap, entry)

    def _take_longest(self) -> int:
        """MaxMin over each group's first job by limit, and the jobs tied with it; the groups
        taken by their score's upper bound, highest first, until none can reach the best."""
        versions = [cluster.version for cluster in self._view.clusters]
        bounded = sorted(
            (
                (self._bounds(members[0], versions)[1], n)
                for n, members in enumerate(self._groups)
                if members
            ),
            reverse=True,
        )
        chosen: tuple[tuple[float, tuple[float, int]], list[int], int] | None = None
        for upper, n in bounded:
            if chosen is not None and upper < -chosen[0][0]:
                break
            members = self._groups[n]
            pick, top = self._tied_first(members, versions)
            key = (-top, self._order(members[pick]))
            if chosen is None or key < chosen[0]:
                chosen = (key, members, pick)
        assert chosen is not None, "take() with no job left"
        i = chosen[1].pop(chosen[2])
        self._ask((i,))
        return i

    def _tied_first(self, members: list[int], versions: Sequence[int]) -> tuple[int, float]:
        """The group's highest score and, among the jobs that have it, the position of the
        first submitted."""
        limit = self._limit
        top = self._maxmin(members[0], versions)
        pick, position, count = 0, 1, len(members)
        while position < count:
            # a job of the same limit scores the same and comes later in submission order
            if limit[members[position]] == limit[members[position - 1]]:
                position += 1
                continue
            if self._maxmin(members[position], versions) != top:
                break  # nor do the shorter limits after it
            if self._order(members[position]) < self._order(members[pick]):
                pick = position
            position += 1
        return pick, top

    def _bounds(self, i: int, versions: Sequence[int]) -> tuple[float, float]:
        """Job ``i``'s best ECT as far as known without asking, and an upper bound of its
        MaxMin score. An ECT asked before its cluster changed is a lower bound: the best ECT
        is at most the least of those still current, and it is that least when no older one
        is below it (the first value is then exact; else it is ``nan``)."""
        ects, asked = self._ects[i], self._asked[i]
        current = stale = math.inf
        for k in self._allowed[i]:
            if asked[k] == versions[k]:
                current = min(current, ects[k])
            else:
                stale = min(stale, ects[k])
        if stale >= current:
            return current, maxmin_score(current)
        return math.nan, current

    def _maxmin(self, i: int, versions: Sequence[int]) -> float:
        """MaxMin's score of job ``i``, asking its ECTs only if a cluster that changed may now
        hold its best (:meth:`_bounds`)."""
        least = self._bounds(i, versions)[0]
        if math.isnan(least):
            self._ask((i,))
            least = min(self._ects[i])
        return maxmin_score(least)

    def _take_scanning(self) -> int:
        """Every job asked again, the highest score taken (scores made again where ECTs
        changed)."""
        left, scores, orders = self._left, self._scores, self._orders
        changed = self._ask(left)
        if changed:
            for position, i in enumerate(left):
                if i in changed:
                    scores[position] = self._score(i)
        position = best(scores, orders)
        scores.pop(position)
        orders.pop(position)
        return left.pop(position)

    def _ask(self, indices: Sequence[int]) -> set[int]:
        """Ask again the ECTs of ``indices`` on the clusters that changed since they were asked,
        one :meth:`GridView.estimates` call per cluster; the jobs whose ECTs changed."""
        view, jobs, allowed, ects, asked = (
            self._view,
            self._jobs,
            self._allowed,
            self._ects,
            self._asked,
        )
        changed: set[int] = set()
        for k, cluster in enumerate(view.clusters):
            version = cluster.version
            stale = [i for i in indices if asked[i][k] != version and k in allowed[i]]
            if not stale:
                continue
            answers = view.estimates([jobs[i] for i in stale], k)
            for i, estimate in zip(stale, answers, strict=True):
                if ects[i][k] != estimate.end:
                    ects[i][k] = estimate.end
                    changed.add(i)
                asked[i][k] = version
        return changed

    def _order(self, i: int) -> tuple[float, int]:
        job = self._jobs[i]
        return (job.submit, job.id)

    def _candidate(self, i: int) -> Candidate:
        job = self._jobs[i]
        return Candidate(self._order(i), job.cores, tuple(self._ects[i]), None, self._references[i])

    def _score(self, i: int) -> float:
        return score(self._heuristic, self._candidate(i), self._rank)
