"""The event log: the scheduler's decisions as a session shows them, one line each."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from emulator.api.decisions import Decision, Explain, Reject, Reserve, Route, Start, Wake
from emulator.model.job import Job
from emulator.model.platform import Platform
from emulator.session.snapshot import LogEntry

__all__ = ["EventLog", "describe"]


class EventLog:
    """The last ``length`` decisions. The engine hook only appends the raw decision (it runs per
    event); the text is made when a snapshot asks for the entries."""

    def __init__(self, platform: Platform, length: int) -> None:
        self.platform = platform
        self._raw: deque[tuple[float, str, Decision]] = deque(maxlen=length)
        self._entries: deque[LogEntry] = deque(maxlen=length)
        self._seq = 0

    def decided(self, time: float, policy: str, decision: Decision) -> None:
        self._raw.append((time, policy, decision))

    def entries(self, label: Callable[[Job], str]) -> tuple[LogEntry, ...]:
        """The entries, oldest first; ``label``: a job as squeue shows it."""
        raw = self._raw
        while raw:
            time, policy, decision = raw.popleft()
            self._seq += 1
            if isinstance(decision, Wake):
                text = f"wake at {decision.at:g}"
                self._entries.append(LogEntry(self._seq, time, policy, "Wake", -1, "", text))
                continue
            job = decision.job
            kind = type(decision).__name__
            text = describe(decision, self.platform)
            self._entries.append(LogEntry(self._seq, time, policy, kind, job.id, label(job), text))
        return tuple(self._entries)


def describe(decision: Decision, platform: Platform) -> str:
    """A decision in one line, for the event log."""
    if isinstance(decision, Start):
        where = f" on {len(decision.nodes)} nodes" if decision.nodes else ""
        text = f"start{where}"
    elif isinstance(decision, Reserve):
        text = f"reserve for t={decision.start:g}"
    elif isinstance(decision, Route):
        text = f"route to {platform.clusters[decision.cluster].name}"
    elif isinstance(decision, Reject):
        return f"reject: {decision.reason}"
    elif isinstance(decision, Explain):
        return (
            f"{decision.reason.value}: {decision.text}" if decision.text else decision.reason.value
        )
    else:
        return repr(decision)
    explanation = decision.explanation
    return f"{text}: {explanation}" if explanation else text
