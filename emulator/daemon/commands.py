"""What the daemon and its clients know about Slurm's commands: which ones exist, which change
state (and so go to the journal), which environment they read, and where sbatch's script is."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Final

from emulator.slurm.not_emulated import NOT_EMULATED

# Every client command of Slurm 22.05: those batchlab emulates, then those it refuses (with a
# one-line error from the controller, so that no other program answers for them)
CLIENT_COMMANDS: Final = (
    "sbatch",
    "squeue",
    "sinfo",
    "scancel",
    "scontrol",
    "sacct",
    "srun",
    "salloc",
    "sprio",
    "sshare",
    "sdiag",
    "sacctmgr",
    "sstat",
    *NOT_EMULATED,
)

# Commands that only read; anything else is journaled (an unknown command is assumed to write).
# (sacctmgr: batchlab emulates its show and list only.)
READ_ONLY: Final = frozenset(
    ("squeue", "sinfo", "sacct", "sprio", "sshare", "sstat", "sdiag", "sacctmgr", *NOT_EMULATED)
)
_SCONTROL_READ_ONLY: Final = frozenset(("show", "ping", "version", "help", "listpids", "pidinfo"))
_SCONTROL_WITH_ARGUMENT: Final = frozenset(("-M", "--clusters"))

# Environment a client passes on: Slurm's own variables and the commands' defaults.
ENV_PREFIXES: Final = (
    "SLURM_",
    "SBATCH_",
    "SQUEUE_",
    "SINFO_",
    "SACCT_",
    "SCANCEL_",
    "SCONTROL_",
    "SALLOC_",
    "SRUN_",
)
ENV_NAMES: Final = frozenset(("TZ",))


def command_name(argv: Sequence[str]) -> str:
    return os.path.basename(argv[0]) if argv else ""


def slurm_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of a client's environment the commands read."""
    return {
        name: value
        for name, value in sorted(environ.items())
        if name.startswith(ENV_PREFIXES) or name in ENV_NAMES
    }


def is_mutating(argv: Sequence[str]) -> bool:
    """Whether a command may change the emulated system (and must be journaled)."""
    name = command_name(argv)
    if name in READ_ONLY:
        return False
    if name == "scontrol":
        args = iter(argv[1:])
        for arg in args:
            if arg in _SCONTROL_WITH_ARGUMENT:
                next(args, None)
            elif not arg.startswith("-"):
                return arg.lower() not in _SCONTROL_READ_ONLY
        return not any(arg in ("-V", "--version", "-h", "--help", "--usage") for arg in argv)
    return True


def sbatch_script(argv: Sequence[str]) -> tuple[int | None, bool]:
    """For an sbatch command line: the argv index of the batch script (None if there is none),
    and whether sbatch would read the script from stdin."""
    from emulator.slurm.sbatch_options import SbatchError, split_command_line

    try:
        line = split_command_line(argv[1:])
    except SbatchError:
        return None, False  # sbatch will complain about the options first
    if any(name in ("wrap", "help", "usage") for name, _ in line.settings):
        return None, False
    if not line.rest:
        return None, True
    # ``rest`` is the tail of the arguments starting at the script (or after a ``--``)
    return len(argv) - len(line.rest), False
