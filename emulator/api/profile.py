"""Availability profile: free cores of one resource pool as a step function of future time.

Backfilling, ``squeue --start``, ``sbatch --test-only``, brokers and reallocation all ask the same
question, "when could this many cores be free for this long?"; this is the one structure that
answers it. Times are absolute simulated seconds; the last step lasts forever.
"""

from __future__ import annotations

import math
from bisect import bisect_right


class Profile:
    """Free cores over time, built from running jobs' expected ends and reservations."""

    __slots__ = ("capacity", "free", "times")

    def __init__(self, now: float, free_now: int, capacity: int) -> None:
        self.capacity = capacity
        self.times: list[float] = [now]
        self.free: list[int] = [free_now]

    @classmethod
    def from_running(cls, now: float, capacity: int, ends: list[tuple[float, int]]) -> Profile:
        """Profile of a pool whose busy cores are ``(expected_end, cores)`` pairs (sorting an
        already sorted list, as the views give it, costs one linear pass)."""
        busy = sum(cores for _, cores in ends)
        profile = cls(now, capacity - busy, capacity)
        times, free = profile.times, profile.free
        for end, cores in sorted(ends):
            end = max(end, now)
            if end == times[-1]:
                free[-1] += cores
            else:
                times.append(end)
                free.append(free[-1] + cores)
        return profile

    def copy(self) -> Profile:
        """An independent profile with the same steps (to try placements on a kept plan)."""
        twin = Profile(self.times[0], self.free[0], self.capacity)
        twin.times, twin.free = self.times.copy(), self.free.copy()
        return twin

    def _split(self, time: float) -> int:
        """Index of the step that starts at ``time``, inserting a breakpoint if needed."""
        index = bisect_right(self.times, time) - 1
        if self.times[index] == time:
            return index
        self.times.insert(index + 1, time)
        self.free.insert(index + 1, self.free[index])
        return index + 1

    def earliest(
        self, cores: int, duration: float, not_before: float | None = None, before: float = math.inf
    ) -> float:
        """Earliest start >= ``not_before`` with ``cores`` free for ``duration``; inf if never.

        With ``before``, only starts earlier than it count, and the window is clipped at it: the
        question a job that already holds ``cores`` from ``before`` on asks to move up, since its
        own reservation frees whatever overlap the earlier window has with it.
        """
        if cores > self.capacity:
            return math.inf
        times, free = self.times, self.free
        begin = times[0] if not_before is None or not_before < times[0] else not_before
        i = bisect_right(times, begin) - 1
        count = len(times)
        while i < count:
            if free[i] < cores:
                i += 1
                continue
            start = times[i] if times[i] > begin else begin
            if start >= before:
                return math.inf
            finish = start + duration
            if finish > before:
                finish = before
            j = i + 1
            while j < count and times[j] < finish:
                if free[j] < cores:
                    break
                j += 1
            else:
                return start
            i = j + 1
        return math.inf

    def place(self, cores: int, duration: float, not_before: float | None = None) -> float:
        """Earliest start, reserved at once; returns it (inf: never, and nothing is taken)."""
        start = self.earliest(cores, duration, not_before)
        if start != math.inf:
            self.reserve(start, duration, cores)
        return start

    def reserve(self, start: float, duration: float, cores: int) -> None:
        """Take ``cores`` over ``[start, start + duration)`` (give them back with negative cores).

        Steps left equal to their neighbour at either edge are merged, so a profile that has seen
        many reservations come and go stays as short as the distinct levels it holds.
        """
        if duration <= 0:
            return
        times, free = self.times, self.free
        first = i = self._split(start)
        end = start + duration
        count = len(times)
        while i < count and times[i] < end:
            free[i] -= cores
            i += 1
        if end != math.inf and (i == count or times[i] != end):
            times.insert(i, end)
            free.insert(i, free[i - 1] + cores)
        elif i < count and free[i] == free[i - 1]:
            del times[i], free[i]
        if first > 0 and free[first] == free[first - 1]:
            del times[first], free[first]

    def free_at(self, time: float) -> int:
        return self.free[max(bisect_right(self.times, time) - 1, 0)]

    def steps(self) -> list[tuple[float, int]]:
        return list(zip(self.times, self.free, strict=True))

    def advance(self, now: float) -> None:
        """Forget the steps that ended at or before ``now`` (the past cannot be planned)."""
        times = self.times
        cut = bisect_right(times, now) - 1
        if cut > 0:
            del times[:cut]
            del self.free[:cut]
        if times[0] < now:
            times[0] = now
