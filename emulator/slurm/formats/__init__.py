"""Pure formatters: model jobs and platforms -> the text squeue, sinfo, scontrol and sacct print.

What the model does not hold (priority, uids, paths, scheduler bookkeeping) comes in a
:class:`JobInfo` per job id; defaults are what Slurm 22.05 prints for a default setup. Times are
simulated seconds; ``origin`` is the epoch second of simulated 0 (:mod:`emulator.slurm.timefmt`).

One module per command (:mod:`.squeue`, :mod:`.sinfo`, :mod:`.scontrol`, :mod:`.sacct`); what
they share is in :mod:`.jobs`, and the modules import its names, underscored ones too: they are
private to this package, not to one module.
"""

from emulator.slurm.formats.jobs import (
    BASIC_PRIORITY_TOP,
    NO_EXTRAS,
    REASON_SHOWN,
    SHOWS_REASON,
    STATE_LONG,
    JobExtras,
    JobInfo,
    NodeInfo,
    elapsed_seconds,
    job_reason,
    reason_shown,
    shown_start,
)
from emulator.slurm.formats.sacct import SACCT_DEFAULT, sacct
from emulator.slurm.formats.scontrol import (
    LinkInfo,
    scontrol_show_config,
    scontrol_show_job,
    scontrol_show_link,
    scontrol_show_node,
    scontrol_show_partition,
)
from emulator.slurm.formats.sinfo import sinfo
from emulator.slurm.formats.squeue import (
    SQUEUE_DEFAULT,
    SQUEUE_LONG,
    SQUEUE_START,
    parse_states,
    squeue,
)

__all__ = [
    "BASIC_PRIORITY_TOP",
    "NO_EXTRAS",
    "REASON_SHOWN",
    "SACCT_DEFAULT",
    "SHOWS_REASON",
    "SQUEUE_DEFAULT",
    "SQUEUE_LONG",
    "SQUEUE_START",
    "STATE_LONG",
    "JobExtras",
    "JobInfo",
    "LinkInfo",
    "NodeInfo",
    "elapsed_seconds",
    "job_reason",
    "parse_states",
    "reason_shown",
    "sacct",
    "scontrol_show_config",
    "scontrol_show_job",
    "scontrol_show_link",
    "scontrol_show_node",
    "scontrol_show_partition",
    "shown_start",
    "sinfo",
    "squeue",
]
