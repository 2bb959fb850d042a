"""The read-only Slurm tools beside the six commands: ``sacctmgr show``, ``sshare``, ``sdiag``
and ``sstat``, and the refusal of the client commands batchlab does not emulate.

What they show is what the samples' cluster would: its accounting database holds the account
``root``, the user ``root`` (an administrator) and the QOS ``normal`` per cluster, as
``sacctmgr add cluster`` made them (the samples' ``sacctmgr show assoc``); other users submit
without an association (the samples' slurm.conf enforces none). ``priority/basic`` records no
usage, so ``sshare`` shows none. Choices the emulation makes where a real machine answers:
``sdiag``'s scheduler timings are 0 (a pass takes no simulated time) and its remote procedure
call statistics are left out; ``sstat`` shows a running job's ``batch`` step, its only step, with
its cores busy for the whole run (AveCPU, MinCPU) and no memory or disk use, in the columns
the emulation can fill.
"""

from __future__ import annotations

import math

from emulator.model.job import JobState
from emulator.slurm.formats.fields import Column, Parsable, chosen_columns, print_fields
from emulator.slurm.not_emulated import NOT_EMULATED, refusal
from emulator.slurm.timefmt import format_ctime, format_duration_long
from emulator.slurmctld.common import Handler, fail, parse_options
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["NOT_EMULATED", "not_emulated", "sacctmgr", "sdiag", "sshare", "sstat"]


def not_emulated(command: str) -> Handler:
    """The handler of a command batchlab does not emulate: a one-line error, exit 1."""

    def refuse(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
        return fail(refusal(command))

    return refuse


# --- sacctmgr -----------------------------------------------------------------------------------

_C = Column
_ASSOC = [
    *(_C(n, 10) for n in ("Cluster", "Account", "User", "Partition")),
    _C("Share", 9), _C("Priority", 10), _C("GrpJobs", 7), _C("GrpTRES", 13),
    _C("GrpSubmit", 9), _C("GrpWall", 11), _C("GrpTRESMins", 13), _C("MaxJobs", 7),
    _C("MaxTRES", 13), _C("MaxTRESPerNode", 14), _C("MaxSubmit", 9), _C("MaxWall", 11),
    _C("MaxTRESMins", 13), _C("QOS", 20), _C("Def QOS", 9), _C("GrpTRESRunMin", 13),
]  # fmt: skip
_USER = [_C("User", 10), _C("Def Acct", 10), _C("Admin", 9)]
_ACCOUNT = [_C("Account", 10), _C("Descr", 20), _C("Org", 20)]
_CLUSTER = [
    _C("Cluster", 10), _C("ControlHost", 15), _C("ControlPort", 12), _C("RPC", 5),
    _C("Share", 9), _C("GrpJobs", 7), _C("GrpTRES", 13), _C("GrpSubmit", 9), _C("MaxJobs", 7),
    _C("MaxTRES", 13), _C("MaxSubmit", 9), _C("MaxWall", 11), _C("QOS", 20), _C("Def QOS", 9),
]  # fmt: skip
_QOS = [
    _C("Name", 10), _C("Priority", 10), _C("GraceTime", 10), _C("Preempt", 10),
    _C("PreemptExemptTime", 19), _C("PreemptMode", 11), _C("Flags", 40), _C("UsageThres", 10),
    _C("UsageFactor", 11), _C("GrpTRES", 13), _C("GrpTRESMins", 13), _C("GrpTRESRunMin", 13),
    _C("GrpJobs", 7), _C("GrpSubmit", 9), _C("GrpWall", 11), _C("MaxTRES", 13),
    _C("MaxTRESPerNode", 14), _C("MaxTRESMins", 13), _C("MaxWall", 11), _C("MaxTRESPU", 13),
    _C("MaxJobsPU", 9), _C("MaxSubmitPU", 11), _C("MaxTRESPA", 13), _C("MaxJobsPA", 9),
    _C("MaxSubmitPA", 11), _C("MinTRES", 13),
]  # fmt: skip
_ENTITIES = {
    "association": _ASSOC,
    "user": _USER,
    "account": _ACCOUNT,
    "cluster": _CLUSTER,
    "qos": _QOS,
}


_WRITES = frozenset(
    [
        "add",
        "create",
        "modify",
        "update",
        "delete",
        "remove",
        "archive",
        "load",
        "dump",
        "reconfigure",
        "shutdown",
    ]
)


def _entity(word: str) -> str | None:
    word = word.lower()
    if word in ("assoc", "assocs", "associations"):
        return "association"
    single = word[:-1] if word.endswith("s") and word != "qos" else word
    return single if single in _ENTITIES else None


def _rows(ctl: Controller, entity: str) -> list[dict[str, str]]:
    """The samples' database, one set per cluster of the platform."""
    clusters = [c.name for c in ctl.platform.clusters]
    if entity == "association":
        base = {"Account": "root", "Share": "1", "QOS": "normal"}
        return [
            {**base, "Cluster": name, "User": user} for name in clusters for user in ("", "root")
        ]
    if entity == "user":
        return [{"User": "root", "Def Acct": "root", "Admin": "Administrator"}]
    if entity == "account":
        return [{"Account": "root", "Descr": "default root account", "Org": "root"}]
    if entity == "cluster":
        return [
            {"Cluster": name, "ControlHost": "127.0.0.1", "ControlPort": "6817", "RPC": "9728",
             "Share": "1", "QOS": "normal"}
            for name in clusters
        ]  # fmt: skip
    return [
        {"Name": "normal", "Priority": "0", "GraceTime": "00:00:00", "PreemptMode": "cluster",
         "UsageFactor": "1.000000"}
    ]  # fmt: skip


def sacctmgr(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    """``sacctmgr [-n] [-p|-P] show|list ENTITY [format=...]``; anything that would change the
    database is refused."""
    flags = [a for a in args if a.startswith("-")]
    words = [a for a in args if not a.startswith("-")]
    if any(f in ("-V", "--version") for f in flags):
        return CommandResult("slurm-wlm 22.05.8\n")
    if not words:
        return fail("sacctmgr: error: batchlab emulates sacctmgr show and list only")
    verb = words[0].lower()
    if verb not in ("show", "list"):
        if verb in ("add", "create", "modify", "update", "delete", "remove", "archive", "load",
                    "dump", "reconfigure", "shutdown"):  # fmt: skip
            return fail(
                f"sacctmgr: error: batchlab emulates sacctmgr show and list only, not {verb}"
            )
        return fail(f"sacctmgr: error: Invalid input: {words[0]}\nsacctmgr: error: Invalid command")
    if len(words) < 2:
        return fail("sacctmgr: error: no entity given to show")
    entity = _entity(words[1])
    if entity is None:
        return fail(f"sacctmgr: error: Unknown object '{words[1]}'")
    columns = _ENTITIES[entity]
    for word in words[2:]:
        key, _, value = word.partition("=")
        if key.lower() in ("format", "formats", "fields"):
            chosen = chosen_columns(value, _ENTITIES[entity])
            if isinstance(chosen, str):
                return fail(f'sacctmgr: error: Invalid field requested: "{chosen}"')
            columns = chosen or columns
    rows = [[row.get(c.name, "") for c in columns] for row in _rows(ctl, entity)]
    return CommandResult(
        print_fields(columns, rows, header="-n" not in flags, parsable=_parsable(flags))
    )


_PARSABLE_FLAGS = ("-p", "--parsable", "-P", "--parsable2")


def _parsable(flags: list[str]) -> Parsable:
    """``-P`` (``|`` between cells) over ``-p`` (``|`` after each), else a table."""
    if "-P" in flags or "--parsable2" in flags:
        return Parsable.BETWEEN
    return Parsable.TRAILING if "-p" in flags or "--parsable" in flags else Parsable.NO


# --- sshare ------------------------------------------------------------------------------------

_SHARE = [
    _C("Account", -20), _C("User", 10), _C("RawShares", 10), _C("NormShares", 11),
    _C("RawUsage", 11), _C("EffectvUsage", 13), _C("FairShare", 10),
]  # fmt: skip


def sshare(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    """``sshare [-a] [-n] [-p|-P] [-u USERS] [-o FIELDS]``: the root account, and root's
    association when the caller is root, asks for all (``-a``) or names root (``-u``)."""
    parsed = parse_options(
        "sshare", args, "ahlno:pPu:UvV",
        ["all", "noheader", "long", "format=", "parsable", "parsable2", "users=", "Users",
         "verbose", "version", "help", "usage", "accounts=", "clusters=", "json", "yaml"],
    )  # fmt: skip
    if isinstance(parsed, CommandResult):
        return parsed
    given, _ = parsed
    users = {u for value in given.values("-u", "--users") for u in value.split(",")}
    columns = _SHARE
    if given.has("-o", "--format"):
        chosen = chosen_columns(",".join(given.values("-o", "--format")), _SHARE)
        if isinstance(chosen, str):
            return fail(f'sshare: error: Invalid field requested: "{chosen}"')
        columns = chosen or columns
    cells = {"Account": "root", "NormShares": "0.000000", "RawUsage": "0",
             "EffectvUsage": "0.000000"}  # fmt: skip
    rows = [cells]
    if given.has("-a", "--all") or "root" in users or (ctx.user == "root" and not users):
        rows.append(
            {**cells, "Account": " root", "User": "root", "RawShares": "1",
             "NormShares": "1.000000", "FairShare": "1.000000"}
        )  # fmt: skip
    parsable = _parsable([flag for flag in _PARSABLE_FLAGS if given.has(flag)])
    table = [[row.get(c.name, "") for c in columns] for row in rows]
    header = not given.has("-n", "--noheader")
    return CommandResult(print_fields(columns, table, header=header, parsable=parsable))


# --- sdiag -------------------------------------------------------------------------------------


def sdiag(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    """``sdiag``: the job counts since the daemon's start, from its records."""
    parsed = parse_options("sdiag", args, "aMhrtTV", ["all", "help", "usage", "version"])
    if isinstance(parsed, CommandResult):
        return parsed
    states = [ctl.engine.jobs[r.engine_id] for r in ctl.records.values()]
    count = {state: 0 for state in JobState}
    started = 0
    for job in states:
        count[job.state] += 1
        started += not math.isnan(job.start)
    failed = sum(count[s] for s in (JobState.FAILED, JobState.TIMEOUT, JobState.NODE_FAIL))
    now, origin = ctl.now, ctl.origin
    stamp = f"{format_ctime(now, origin)} ({math.floor(origin + now)})"
    lines = [
        "*" * 55,
        f"sdiag output at {stamp}",
        f"Data since      {format_ctime(0.0, origin)} ({math.floor(origin)})",
        "*" * 55,
        "Server thread count:  1",
        "Agent queue size:     0",
        "Agent count:          0",
        "Agent thread count:   0",
        "DBD Agent queue size: 0",
        "",
        f"Jobs submitted: {len(states)}",
        f"Jobs started:   {started}",
        f"Jobs completed: {count[JobState.COMPLETED]}",
        f"Jobs canceled:  {count[JobState.CANCELLED]}",
        f"Jobs failed:    {failed}",
        "",
        f"Job states ts:  {stamp}",
        f"Jobs pending:   {count[JobState.PENDING]}",
        f"Jobs running:   {count[JobState.RUNNING]}",
        "",
        "Main schedule statistics (microseconds):",
        "\tLast cycle:   0",
        "\tMax cycle:    0",
        "",
    ]
    return CommandResult("\n".join(lines) + "\n")


# --- sstat -------------------------------------------------------------------------------------

_STAT = [
    _C("JobID", 12), _C("NTasks", 8), _C("AveCPU", 10), _C("MinCPU", 10), _C("MinCPUNode", 10),
    _C("MaxRSS", 10), _C("AveRSS", 10), _C("MaxVMSize", 10), _C("AveVMSize", 10),
    _C("MaxDiskRead", 12), _C("MaxDiskWrite", 12), _C("ConsumedEnergy", 14),
]  # fmt: skip


def sstat(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    """``sstat -j JOB[.STEP],... [-a] [-n] [-p|-P] [-o FIELDS]``: a running job's batch step."""
    parsed = parse_options(
        "sstat", args, "aehij:no:pPvV",
        ["allsteps", "helpformat", "help", "jobs=", "noheader", "format=", "fields=",
         "parsable", "parsable2", "pidformat", "usage", "verbose", "version", "noconvert"],
    )  # fmt: skip
    if isinstance(parsed, CommandResult):
        return parsed
    given, rest = parsed
    if given.has("-e", "--helpformat"):
        return CommandResult(" ".join(c.name for c in _STAT) + "\n")
    specs = [s for v in [*given.values("-j", "--jobs"), *rest] for s in v.split(",") if s]
    if not specs:
        return fail("sstat: error: You didn't give me any jobs to stat.")
    columns = _STAT
    fields = given.values("-o", "--format", "--fields")
    if fields:
        chosen = chosen_columns(",".join(fields), _STAT)
        if isinstance(chosen, str):
            return fail(f'sstat: error: Invalid field requested: "{chosen}"')
        columns = chosen or columns
    rows, errors = [], []
    for spec in specs:
        job_text, _, step = spec.partition(".")
        ids = ctl.resolve(job_text) if job_text.isdecimal() else None
        jobs = [ctl.engine.jobs[eid] for eid in ids or []]
        if not jobs or all(job.state.finished for job in jobs):
            errors.append(f"sstat: error: couldn't get steps for job {job_text}")
            continue
        job = jobs[0]
        if job.state is not JobState.RUNNING:
            errors.append(f"sstat: error: No steps running for job {job_text}")
        elif step not in ("", "batch"):
            errors.append(f"sstat: error: StepId={job_text}.{step} not found running.")
        else:
            cpu = format_duration_long(ctl.now - job.start)
            node = ctl.platform.nodes[job.nodes[0]].name if job.nodes else ""
            cells = {"JobID": f"{job_text}.batch", "NTasks": "1", "AveCPU": cpu,
                     "MinCPU": cpu, "MinCPUNode": node, "MaxRSS": "0", "AveRSS": "0",
                     "MaxVMSize": "0", "AveVMSize": "0", "MaxDiskRead": "0",
                     "MaxDiskWrite": "0", "ConsumedEnergy": "0"}  # fmt: skip
            rows.append([cells[c.name] for c in columns])
    parsable = _parsable([flag for flag in _PARSABLE_FLAGS if given.has(flag)])
    header = not given.has("-n", "--noheader")
    stderr = "".join(line + "\n" for line in errors)
    return CommandResult(print_fields(columns, rows, header=header, parsable=parsable), stderr)
