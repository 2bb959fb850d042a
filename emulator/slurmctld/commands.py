"""The Slurm commands as the controller runs them: the table from a command's name to its
handler.

Each handler takes the controller, the arguments (without the command name) and the caller, and
returns a :class:`~emulator.slurmctld.controller.CommandResult` with what Slurm 22.05 prints. One
module per command (:mod:`.sbatch`, :mod:`.squeue`, :mod:`.sinfo`, :mod:`.scancel`,
:mod:`.scontrol` with :mod:`.scontrol_show`, :mod:`.sacct`); what they share is in
:mod:`.common`. Text comes from :mod:`emulator.slurm.formats`; option parsing and messages follow
slurm-conventions.md and the samples.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from emulator.slurmctld import (
    interactive,
    sacct,
    sbatch,
    scancel,
    scontrol,
    sinfo,
    site_tools,
    squeue,
)
from emulator.slurmctld.common import Handler, fail
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["COMMANDS"]


def _sprio(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    return fail(
        "You are not running a supported priority plugin\n(priority/basic).\n"
        "Only 'priority/multifactor' is supported."
    )


def _date(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    moment = datetime.fromtimestamp(math.floor(ctl.origin + ctl.now), UTC)
    return CommandResult(f"{moment:%a %b} {moment.day:2d} {moment:%H:%M:%S} UTC {moment.year}\n")


COMMANDS: dict[str, Handler] = {
    "sbatch": sbatch.run,
    "squeue": squeue.run,
    "sinfo": sinfo.run,
    "scancel": scancel.run,
    "scontrol": scontrol.run,
    "sacct": sacct.run,
    "sprio": _sprio,
    "srun": interactive.srun,
    "salloc": interactive.salloc,
    "sshare": site_tools.sshare,
    "sdiag": site_tools.sdiag,
    "sacctmgr": site_tools.sacctmgr,
    "sstat": site_tools.sstat,
    "date": _date,
    **{name: site_tools.not_emulated(name) for name in site_tools.NOT_EMULATED},
}
