"""The daemon's accounting: kept in memory while it runs, written whole to
``STATE_DIR/accounting.sqlite`` at a clean stop.

The journal, not this file, is what survives a crash: on every start the journal's replay
rebuilds the records in a new store, and the next clean stop replaces the file with it
(atomically: a reader sees the old file or the new one). Nothing is written before that, so a
start that fails leaves the file as it was. Keeping the old rows and upserting over them would
not be simpler and would be wrong: the controller numbers new jobs after the highest id it finds
stored, so replayed jobs would get new ids, and the rows of a run set aside with ``--fresh``
would linger.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from emulator.slurmctld.accounting import Accounting

FILE_NAME = "accounting.sqlite"


class SavedAccounting(Accounting):
    """A store in memory that :meth:`close` (the controller's, at a clean stop) writes to
    ``path``."""

    def __init__(self, path: Path) -> None:
        super().__init__(":memory:")
        self.file = path

    def close(self) -> None:
        temporary = self.file.with_name(f".{self.file.name}.tmp")
        temporary.unlink(missing_ok=True)
        copy = sqlite3.connect(temporary)
        try:
            self.db.backup(copy)
        finally:
            copy.close()
        os.replace(temporary, self.file)
        super().close()
