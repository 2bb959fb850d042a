"""The daemon's accounting: a SQLite file in the state directory, written when read.

:class:`~emulator.slurmctld.accounting.Accounting` writes a job's row on its submission, start
and end. The daemon's store does not: every reader goes through :meth:`Controller.sync
<emulator.slurmctld.controller.Controller.sync>` first (``sacct`` does), which writes each row
not yet final as it is now, and a clean stop (``batchlab daemon stop``) syncs once more, so the
file read with ``sqlite3`` after a stop holds every job. Writing ahead of the readers bought
nothing and cost about a fifth of the daemon's work per submission with the clock running (three
descriptions, three SQLite writes and commits per job).

The journal, not this file, is what survives a crash. On every start the file is made anew and
the journal's replay fills it (:meth:`AccountingOnRead.recreate`). Keeping the old rows and
upserting over them would not be simpler and would be wrong: the controller numbers new jobs
after the highest id it finds stored, so replayed jobs would get new ids, and the rows of a run
set aside with ``--fresh`` would linger. Since the file is rebuilt anyway, its commits skip the
fsync (``synchronous = OFF``).
"""

from __future__ import annotations

from pathlib import Path

from emulator.engine import Observer
from emulator.slurmctld.accounting import Accounting

FILE_NAME = "accounting.sqlite"


class AccountingOnRead(Accounting):
    """A store that does not observe the engine: the engine subscribes an observer only to the
    hooks it overrides, and these are the base class's (no-ops)."""

    job_submitted = Observer.job_submitted
    job_started = Observer.job_started
    job_ended = Observer.job_ended

    @classmethod
    def recreate(cls, path: Path) -> AccountingOnRead:
        """An empty store at ``path``: the old file goes, with its rollback journal (which
        SQLite would otherwise roll back into the new file)."""
        for old in (path, path.with_name(f"{path.name}-journal")):
            old.unlink(missing_ok=True)
        store = cls(path)
        store.db.execute("PRAGMA synchronous = OFF")
        return store
