"""What slurmctld keeps beside the engine: a :class:`JobRecord` per job, and users and uids.

Plain bookkeeping, apart from the controller that fills it in, so that the job views and the
commands can name these types without reaching into :mod:`emulator.slurmctld.controller`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from emulator.model.job import Dependencies
from emulator.slurm.formats import NO_EXTRAS, JobExtras, JobInfo
from emulator.slurmctld.accounting import JobRow

__all__ = ["JobRecord"]

_FIXED_UIDS = {"root": 0, "nobody": 65534}


@dataclass(slots=True)
class JobRecord:
    """Slurm's bookkeeping for one engine job (a plain job or one array task)."""

    engine_id: int
    slurm_id: int
    cluster: int
    user: str
    uid: int
    gid: int
    group: str
    work_dir: str
    command: str
    stdout: str
    stderr: str
    script: str
    priority: int
    exit_code: int  # what the script will exit with
    dependency: Dependencies | None  # as the user gave it, unknown ids dropped
    sid: int = 0
    cancelled_by: int = 0
    exit_signal: int = 0
    released_at: float = math.nan  # reason None and EligibleTime Unknown until the next pass
    updated_at: float = math.nan  # scontrol update: reason None until the next pass
    final_written: bool = False
    info: JobInfo | None = None  # the last view's JobInfo (see Controller.view)
    extras: JobExtras = NO_EXTRAS  # sbatch's options beyond the request (scontrol show job)
    # sacct's row once the job has finished (Controller.accounted): a finished job does not
    # change until a command or its next end calls :meth:`changed`
    final_row: JobRow | None = None

    def changed(self) -> None:
        """What sacct shows of the job changed (it ended, was cancelled, requeued, updated):
        the next sync writes its row again, and the next sacct describes it anew."""
        self.final_written = False
        self.final_row = None


@dataclass
class _Users:
    """User names, uids and groups: root 0, nobody 65534, others from 1000 in order of use."""

    uids: dict[str, int] = field(default_factory=lambda: dict(_FIXED_UIDS))

    def uid(self, user: str) -> int:
        if user not in self.uids:
            self.uids[user] = 1000 + sum(1 for u in self.uids if u not in _FIXED_UIDS)
        return self.uids[user]

    def known(self, user: str) -> bool:
        return user in self.uids or (user.isdecimal() and int(user) in self.uids.values())

    def name(self, user: str) -> str:
        if user.isdecimal():
            for name, uid in self.uids.items():
                if uid == int(user):
                    return name
        return user

    @staticmethod
    def group(user: str) -> str:
        return "nogroup" if user == "nobody" else user
