"""What a window's daemons run: a platform file and what the session starts with, so that the
window can start more of them (View > Compare schedulers… runs it under two schedulers, File >
Open replaces a part of it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from emulator.child import ChildSession, Feed, open_child


@dataclass(frozen=True, slots=True)
class Scenario:
    """``platform_file`` fed ``feed``, each daemon at ``speed`` (simulated seconds per wall
    second) when its clock plays on its own."""

    platform_file: Path
    feed: Feed = field(default_factory=Feed)
    speed: float = 60.0

    def open(self, scheduler: str) -> ChildSession:
        """A new child daemon of this scenario under ``scheduler``, paused. Raises
        :class:`~emulator.child.ChildError` if it does not start (a file it cannot use)."""
        return open_child(self.platform_file, scheduler, self.feed, speed=self.speed)
