"""The Slurm controller over the engine: job ids, users, accounting, and the commands."""

from emulator.slurmctld.accounting import Accounting
from emulator.slurmctld.controller import CommandResult, Controller

__all__ = ["Accounting", "CommandResult", "Controller"]
