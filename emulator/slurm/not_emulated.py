"""The Slurm client commands batchlab does not emulate, and what it answers for them.

The shims install them too, so that a real Slurm client further along ``PATH`` never answers
for batchlab's cluster; the daemon's client refuses them without asking the daemon."""

from __future__ import annotations

# the other client commands of Debian's slurm-client 22.05, and Slurm's other user tools
NOT_EMULATED = ("sattach", "sbcast", "scrontab", "sh5util", "sreport", "strigger", "sview")


def refusal(command: str) -> str:
    """The one-line error (exit status 1)."""
    return f"{command}: error: {command} is not emulated by batchlab\n"
