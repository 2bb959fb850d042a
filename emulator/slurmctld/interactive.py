"""``srun`` and ``salloc`` outside an allocation: an emulated interactive job.

Each submits its command as a job (as ``sbatch --wrap`` with the command, named after it, and
``-W``): the command is not executed, it runs for the time batchlab gives a batch script (its
``sleep N``, ``--emulate-runtime``, nothing for an instant command such as ``hostname``, else its
time limit), and the command returns when the job ends in simulated time, with the job's exit
code. Both take sbatch's options that they share with it (srun.1, salloc.1 of 22.05) and their
own, which change nothing in the emulation (``--pty``, ``--label``, ``--mpi``, ...).

Choices Slurm leaves to a real machine: nothing is printed for the command's output (it never
ran); ``srun`` inside an allocation (``SLURM_JOB_ID`` set) is a new job, not a step; ``salloc``
without a command (an interactive shell) is refused, since no shell can run in simulated time.
What they print on stderr is what the real 22.05.8 clients printed on the lab cluster: before
the wait ``salloc: Granted job allocation N``, or ``Pending job allocation N`` and ``job N
queued and waiting for resources`` (srun: only the latter); when the job ends, for a job that
waited ``job N has been allocated resources`` (salloc then ``Granted job allocation N``), salloc's
``Relinquishing job allocation N`` (``Job allocation N has been revoked.`` for one that never
ran), and srun's ``error: NODE: task 0: Exited with exit code C`` for a failed command.
``salloc`` names its job ``interactive``, ``srun`` after the command, as theirs did.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from dataclasses import replace

from emulator.model.job import JobState
from emulator.slurm.sbatch_options import (
    SALLOC,
    SBATCH,
    SRUN,
    OptionTable,
    SbatchError,
    help_text,
    split_command_line,
)
from emulator.slurmctld import sbatch
from emulator.slurmctld.common import fail
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["salloc", "srun"]

_SUBMIT_FAILED = "sbatch: error: Batch job submission failed: "
_FAILED = {
    "srun": "srun: error: Unable to allocate resources: ",
    "salloc": "salloc: error: Job submit/allocate failed: ",
}


def srun(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    return _interactive(ctl, args, ctx, SRUN)


def salloc(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    return _interactive(ctl, args, ctx, SALLOC)


def _interactive(
    ctl: Controller, args: list[str], ctx: Context, table: OptionTable
) -> CommandResult:
    program = table.program
    try:
        line = split_command_line(args, table)
    except SbatchError as error:
        return CommandResult("", error.stderr, error.exit_code)
    names = {name for name, _ in line.settings}
    if "help" in names:
        return CommandResult(help_text(table))
    if "usage" in names:
        return CommandResult(help_text(table).split("\n", 1)[0] + "\n")
    if "version" in names:
        return CommandResult("slurm-wlm 22.05.8\n")
    if not line.rest:
        if program == "srun":
            return fail("srun: fatal: No command given to execute.")
        return fail(
            "salloc: error: batchlab runs salloc with a command only (e.g. salloc -n 2 "
            "sleep 60): an interactive shell cannot run in simulated time"
        )
    argv = [
        f"--{name}" if value is None else f"--{name}={value}"
        for name, value in line.settings
        if name in SBATCH.long and name not in _OWN[program]
    ]
    if "job-name" not in names:
        name = "interactive" if program == "salloc" else line.rest[0].rsplit("/", 1)[-1]
        argv.append(f"--job-name={name}")
    argv += ["--parsable", "--wait", "--wrap", shlex.join(line.rest)]
    # srun reads SLURM_PARTITION, salloc SALLOC_PARTITION, ... where sbatch reads SBATCH_*
    # (srun.1, salloc.1, "INPUT ENVIRONMENT VARIABLES"); sbatch's own are not theirs
    prefix = _ENV_PREFIX[program]
    env = {
        "SBATCH_" + name.removeprefix(prefix): value
        for name, value in ctx.env.items()
        if name.startswith(prefix)
    }
    result = sbatch.run(ctl, argv, replace(ctx, env=env))
    if not result.stdout:  # refused
        return CommandResult("", _as_program(result.stderr, program), result.exit_code)
    job_id = int(result.stdout.split(";")[0])
    stderr = _before_wait(ctl, program, job_id) + _as_program(result.stderr, program)
    engine_ids = ctl.record_ids(job_id)
    if not result.waits and sbatch.wait_status(ctl, engine_ids) is not None:  # it has waited
        stderr += after_wait(ctl, program, engine_ids)
    return CommandResult("", stderr, result.exit_code, result.waits)


def after_wait(ctl: Controller, program: str, engine_ids: Sequence[int]) -> str:
    """What ``program`` prints once the job it waited for has ended."""
    job = ctl.engine.jobs[engine_ids[0]]
    job_id = ctl.records[job.id].slurm_id
    if math.isnan(job.start):  # ended before it ran (cancelled)
        return f"salloc: Job allocation {job_id} has been revoked.\n" if program == "salloc" else ""
    waited = job.start > job.submit
    lines = []
    if waited:
        lines.append(f"{program}: job {job_id} has been allocated resources")
    if program == "salloc":
        if waited:
            lines.append(f"salloc: Granted job allocation {job_id}")
        lines.append(f"salloc: Relinquishing job allocation {job_id}")
    elif job.state is JobState.FAILED and job.exit_code:
        node = ctl.platform.nodes[job.nodes[0]].name
        tasks = job.request.tasks
        which = "task 0" if tasks == 1 else f"tasks 0-{tasks - 1}"
        lines.append(f"srun: error: {node}: {which}: Exited with exit code {job.exit_code}")
    return "".join(line + "\n" for line in lines)


_ENV_PREFIX = {"srun": "SLURM_", "salloc": "SALLOC_"}
_OWN = {
    "srun": {spec.long for spec in SRUN.long.values() if spec.long not in SBATCH.long} | {"wait"},
    "salloc": {spec.long for spec in SALLOC.long.values() if spec.long not in SBATCH.long},
}


def _as_program(stderr: str, program: str) -> str:
    """sbatch's refusal in ``program``'s words."""
    return stderr.replace(_SUBMIT_FAILED, _FAILED[program]).replace("sbatch: ", f"{program}: ")


def _before_wait(ctl: Controller, program: str, job_id: int) -> str:
    """What srun or salloc prints once the job is submitted: whether it got its allocation at
    once (the pass of this instant has run) or waits."""
    ctl.engine.run(until=ctl.now)  # (a no-op when the command has already waited)
    eid = ctl.record_ids(job_id)[0]
    job = ctl.engine.jobs[eid]
    started = job.start == job.submit  # (NaN while it waits)
    if program == "srun":
        return "" if started else f"srun: job {job_id} queued and waiting for resources\n"
    if started:
        return f"salloc: Granted job allocation {job_id}\n"
    return (
        f"salloc: Pending job allocation {job_id}\n"
        f"salloc: job {job_id} queued and waiting for resources\n"
    )
