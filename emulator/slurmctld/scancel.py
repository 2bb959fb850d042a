"""``scancel``: cancel jobs by id (arrays too) or by filters, as the caller may."""

from __future__ import annotations

import math

from emulator.engine import JobStateError
from emulator.model.job import JobState
from emulator.slurmctld.common import denied, fail, parse_options, split_list
from emulator.slurmctld.controller import CommandResult, Context, Controller, JobRecord

__all__ = ["run"]


def run(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    parsed = parse_options(
        "scancel",
        args,
        "A:bfin:p:q:M:s:t:u:vVw:",
        (
            "account=",
            "batch",
            "full",
            "interactive",
            "name=",
            "partition=",
            "qos=",
            "clusters=",
            "signal=",
            "state=",
            "user=",
            "verbose",
            "version",
            "nodelist=",
            "me",
            "quiet",
        ),
    )
    if isinstance(parsed, CommandResult):
        return parsed
    given, specs = parsed
    verbose = "-v" in given or "--verbose" in given
    signal = (given.values("-s", "--signal") or ["KILL"])[-1].upper().removeprefix("SIG")
    if signal not in ("KILL", "TERM", "INT", "9", "15", "2"):
        return CommandResult()  # a signal the emulated jobs ignore
    users = {ctl.users.name(u) for u in split_list(given.values("-u", "--user"))}
    if "--me" in given:
        users.add(ctx.user)
    partitions = set(split_list(given.values("-p", "--partition")))
    names = set(split_list(given.values("-n", "--name")))
    states_text = split_list(given.values("-t", "--state"))
    short = {"PENDING": "PD", "RUNNING": "R", "SUSPENDED": "S"}
    states = {short.get(s.upper(), s.upper()) for s in states_text}
    filtered = bool(users or partitions or names or states)
    stderr: list[str] = []
    exit_code = 0

    def matches(record: JobRecord) -> bool:
        job = ctl.engine.jobs[record.engine_id]
        cluster = ctl.platform.clusters[ctl.views.cluster_of(record)]
        partition = job.request.partition or cluster.default_partition.name
        return (
            (not users or record.user in users)
            and (not partitions or partition in partitions)
            and (not names or job.request.name in names)
            and (not states or job.state.value in states)
        )

    targets: list[tuple[str, list[int]]] = []
    if specs:
        for spec in split_list(specs):
            found = ctl.resolve(spec)
            if found is None:
                return fail(f"scancel: error: Invalid job id {spec}")
            targets.append((spec, found))
    elif filtered:
        active = [
            r.engine_id
            for r in sorted(ctl.records.values(), key=lambda r: r.slurm_id)
            if not ctl.engine.jobs[r.engine_id].state.finished and matches(r)
        ]
        if not active and verbose:
            stderr.append("scancel: error: No active jobs match ALL job filters")
        targets.extend((str(ctl.records[eid].slurm_id), [eid]) for eid in active)
    else:
        return fail("scancel: error: No job identification provided")
    for spec, engine_ids in targets:
        if verbose:
            stderr.append(f"scancel: Terminating job {spec}")
        if not engine_ids:
            if verbose:
                stderr.append(
                    f"scancel: error: Kill job error on job id {spec}: Invalid job id specified"
                )
            continue
        for eid in engine_ids:
            record = ctl.records[eid]
            if filtered and not matches(record):
                continue
            if denied(ctl, record, ctx.user):
                stderr.append(
                    f"scancel: error: Kill job error on job id {spec}: Access/permission denied"
                )
                exit_code = 1
                break
            job = ctl.engine.jobs[eid]
            was_running = job.state is JobState.RUNNING
            try:
                ctl.engine.cancel(eid)
            except JobStateError as error:
                if verbose:
                    stderr.append(f"scancel: error: Kill job error on job id {spec}: {error}")
                continue
            if "_" in spec and job.request.array is not None and math.isnan(job.start):
                ctl.forget_task(eid)  # out of the array's pending range, as in Slurm
                continue
            record.cancelled_by = ctl.users.uid(ctx.user)
            record.exit_signal = 15 if was_running else 0
            record.changed()
    return CommandResult("", "".join(line + "\n" for line in stderr), exit_code)
