"""``squeue``: the job queue, with Slurm's filters, ``-o``/``-O`` formats and ``--start``."""

from __future__ import annotations

from emulator.model.hostlist import HostlistError, expand
from emulator.model.job import Job, JobState
from emulator.slurm.formats import JobInfo, parse_states, squeue
from emulator.slurmctld.common import (
    chosen_clusters,
    fail,
    format_from_names,
    parse_options,
    sched_view,
    split_list,
)
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["run"]

_SQUEUE_SHORT = "A:hj:lM:n:o:O:p:q:rS:t:u:vVw:i:"
_SQUEUE_LONG = (
    "account=",
    "noheader",
    "jobs=",
    "long",
    "clusters=",
    "name=",
    "format=",
    "Format=",
    "partition=",
    "qos=",
    "array",
    "sort=",
    "states=",
    "user=",
    "verbose",
    "version",
    "nodelist=",
    "iterate=",
    "start",
    "me",
    "json",
    "yaml",
)
_O_FIELDS = {
    "jobid": "A",
    "jobarrayid": "i",
    "name": "j",
    "state": "T",
    "statecompact": "t",
    "reason": "r",
    "partition": "P",
    "username": "u",
    "user": "u",
    "timeused": "M",
    "timelimit": "l",
    "timeleft": "L",
    "numnodes": "D",
    "numcpus": "C",
    "nodelist": "N",
    "reasonlist": "R",
    "starttime": "S",
    "endtime": "e",
    "submittime": "V",
    "arrayjobid": "F",
    "arraytaskid": "K",
    "priority": "Q",
    "prioritylong": "Q",
    "dependency": "E",
    "account": "a",
    "qos": "q",
    "minmemory": "m",
    "schednodes": "Y",
}


def run(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    parsed = parse_options("squeue", args, _SQUEUE_SHORT, _SQUEUE_LONG)
    if isinstance(parsed, CommandResult):
        return parsed
    given, rest = parsed
    cluster_values = given.values("-M", "--clusters")
    chosen = chosen_clusters(ctl, "squeue", cluster_values[-1] if cluster_values else None)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, named = chosen
    fmt = (given.values("-o", "--format") or [ctx.env.get("SQUEUE_FORMAT", "")])[-1] or None
    o_format = (given.values("-O", "--Format") or [ctx.env.get("SQUEUE_FORMAT2", "")])[-1]
    if o_format:
        fmt = format_from_names(o_format, _O_FIELDS)
        if fmt is None:
            return fail(f"squeue: error: Invalid format specification: {o_format}")
    states_text = (given.values("-t", "--states") or [ctx.env.get("SQUEUE_STATES", "")])[-1]
    try:
        states: frozenset[JobState] | str | None = (
            parse_states(states_text) if states_text else "default"
        )
    except ValueError as error:
        return fail(f"squeue: error: {error}")
    stderr = ""
    users = split_list(given.values("-u", "--user"))
    if given.has("--me"):
        users.append(ctx.user)
    bad_user = False
    for user in users:
        if not ctl.users.known(user):
            stderr += f"squeue: error: Invalid user: {user}\n\n"
            bad_user = True
    user_names = {ctl.users.name(u) for u in users}
    job_specs = split_list(given.values("-j", "--jobs") + rest)
    wanted: set[int] | None = None
    if job_specs:
        wanted = set()
        for spec in job_specs:
            found = ctl.resolve(spec)
            if found is None:
                return fail(f"squeue: error: Invalid job id: {spec}")
            wanted.update(eid for eid in found if ctl.visible(ctl.records[eid]))
        if not wanted:
            return fail("slurm_load_jobs error: Invalid job id specified")
    partitions = set(split_list(given.values("-p", "--partition")))
    names = set(split_list(given.values("-n", "--name")))
    accounts = set(split_list(given.values("-A", "--account")))
    try:
        nodes = set(expand(_joined(given.values("-w", "--nodelist"))))
    except HostlistError:
        return fail("squeue: error: Invalid node name specified")
    tables = []
    for k in clusters:
        platform = ctl.cluster_platform(k)
        default_partition = platform.clusters[0].default_partition.name
        jobs: list[Job] = []
        infos: dict[int, JobInfo] = {}
        for record in () if bad_user else ctl.shown(k):
            if wanted is not None and record.engine_id not in wanted:
                continue
            if users and record.user not in user_names:
                continue
            job, info = sched_view(ctl, record, k)
            request = job.request
            if partitions and (request.partition or default_partition) not in partitions:
                continue
            if names and request.name not in names:
                continue
            if accounts and request.account not in accounts:
                continue
            if nodes and not nodes & {platform.nodes[n].name for n in job.nodes}:
                continue
            jobs.append(job)
            infos[job.id] = info
        text = squeue(
            jobs,
            platform,
            now=ctl.now,
            origin=ctl.origin,
            infos=infos,
            fmt=fmt,
            long=given.has("-l", "--long"),
            start=given.has("--start"),
            header=not given.has("-h", "--noheader"),
            states=states,
            expand_arrays=given.has("-r", "--array"),
        )
        if named:
            text = f"CLUSTER: {platform.clusters[0].name}\n{text}"
        tables.append(text)
    return CommandResult("\n".join(tables), stderr, 0)


def _joined(values: list[str]) -> str:
    """``-w`` values as one host list, empty items dropped, without splitting it into names
    first: the host list's own bound then refuses a long one before it costs much."""
    text = ",".join(values)
    while ",," in text:
        text = text.replace(",,", ",")
    return text.strip(",")
