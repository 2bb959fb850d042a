"""The daemon's accounting: a SQLite file in the state directory, made anew on every start.

It is written at a clean stop (:mod:`emulator.slurmctld.accounting`). The journal, not this file,
is what survives a crash: on every start the file is made anew (:func:`recreate`), the journal's
replay rebuilds the records, and the next clean stop writes them. Keeping the old rows and
upserting over them would not be simpler and would be wrong: the controller numbers new jobs
after the highest id it finds stored, so replayed jobs would get new ids, and the rows of a run
set aside with ``--fresh`` would linger. Since the file is rebuilt anyway, its commits skip the
fsync (``synchronous = OFF``).
"""

from __future__ import annotations

from pathlib import Path

from emulator.slurmctld.accounting import Accounting

FILE_NAME = "accounting.sqlite"


def recreate(path: Path) -> Accounting:
    """An empty store at ``path``: the old file goes, with its rollback journal (which SQLite
    would otherwise roll back into the new file)."""
    for old in (path, path.with_name(f"{path.name}-journal")):
        old.unlink(missing_ok=True)
    store = Accounting(path)
    store.db.execute("PRAGMA synchronous = OFF")
    return store
