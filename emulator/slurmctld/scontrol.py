"""``scontrol``: show (:mod:`.scontrol_show`); hold, uhold, release, requeue, requeuehold; update
a job or nodes (:mod:`.scontrol_nodes`); and batchlab's ``update scheduler=SPEC``, which switches
the scheduler at runtime."""

from __future__ import annotations

from dataclasses import replace

from emulator.api.registry import SpecError, available, parse_spec
from emulator.engine import JobStateError
from emulator.engine.running_limit import change_running_limit
from emulator.model.hostlist import HostlistError, expand
from emulator.model.job import FINISHED_STATES, JobState, Reason
from emulator.slurm.formats import BASIC_PRIORITY_TOP
from emulator.slurm.sbatch_options import SbatchError, parse_dependency
from emulator.slurm.timefmt import TimeFormatError, parse_begin, parse_time_limit
from emulator.slurmctld.common import (
    chosen_clusters,
    denied,
    fail,
    known_dependency,
    split_list,
    unsupported,
)
from emulator.slurmctld.controller import VERSION, CommandResult, Context, Controller
from emulator.slurmctld.scontrol_nodes import update_nodes
from emulator.slurmctld.scontrol_show import show

__all__ = ["USAGE", "run"]

USAGE = """\
Usage: scontrol [OPTIONS] COMMAND [ARGUMENTS]
  Options:
    -d, --details          accepted (show job always prints the scheduler's Explanation=)
    -M, --clusters=NAME    the cluster whose nodes, partitions and config to show
    -o, --oneliner         print each record on one line
    -h, --help, --usage    print this text
    -V, --version          print the version

  Commands:
    show job [JOBID...]            jobs, with batchlab's Explanation= line
    show node [NAME...]            nodes
    show partition [NAME...]       partitions
    show config                    the settings batchlab emulates; SchedulerType= is the
                                   scheduler spec in use
    show link [CLUSTER...]         batchlab: each cluster's link to the central switch: Capacity,
                                   Used, Load, Saturated, Slowdown, the jobs loading it and their
                                   bandwidth (the platform's unit), PeakUsed/MeanUsed/SaturatedTime
                                   since time 0
    show hostnames HOSTLIST        expand a hostlist
    show hostlist NAME[,NAME...]   compress names into a hostlist
    hold|uhold JOBID...            hold jobs (an operator's hold is an admin hold)
    release JOBID...               release held jobs
    requeue|requeuehold JOBID...   requeue jobs (and hold them)
    update JobId=ID KEY=VALUE...   TimeLimit, Partition, Name, NumNodes, NumTasks, Dependency,
                                   StartTime, Account, ReqNodeList, ExcNodeList
    update NodeName=HOSTLIST State=DRAIN|DOWN|RESUME [Reason=TEXT]
                                   operators only: take nodes out of service (DRAIN: running
                                   jobs finish; DOWN: they end NODE_FAIL) or put them back
    update scheduler=SPEC          batchlab, operators only: switch the scheduler (a spec as
                                   `batchlab schedulers` lists them, e.g. easy, cbf,
                                   coalloc:order=sjf); queued and running jobs stay, and the
                                   next scheduling pass uses the new policies
    version                        print the version
"""


def run(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    one_liner = False
    words: list[str] = []
    cluster_value: str | None = None
    items = iter(args)
    for arg in items:
        if arg in ("-o", "--oneliner"):
            one_liner = True
        elif arg in ("-d", "--details"):
            pass  # the explanation line is always shown; nothing else is detailed
        elif arg in ("-M", "--clusters"):
            cluster_value = next(items, None)
        elif arg.startswith("--clusters="):
            cluster_value = arg.partition("=")[2]
        elif arg in ("-V", "--version"):
            return CommandResult(VERSION + "\n")
        elif arg in ("-h", "--help", "--usage"):
            return CommandResult(USAGE)
        elif arg.startswith("-") and len(words) == 0:
            return fail(f"scontrol: invalid option -- '{arg.lstrip('-')}'")
        else:
            words.append(arg)
    if not words:
        return fail("scontrol: error: no command given (show, hold, release, update, requeue)")
    chosen = chosen_clusters(ctl, "scontrol", cluster_value)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, _ = chosen
    verb, rest = words[0].lower(), words[1:]
    if verb == "version":
        return CommandResult(VERSION + "\n")
    if verb == "help":
        return CommandResult(USAGE)
    if verb == "show":
        return show(ctl, rest, clusters[0], one_liner)
    if verb in ("hold", "uhold", "release", "requeue", "requeuehold"):
        return _control(ctl, verb, rest, ctx)
    if verb == "update":
        if any(_key(word) in _SCHEDULER_KEYS for word in rest):
            return _update_scheduler(ctl, rest, ctx)
        if any(_key(word) == "nodename" for word in rest):
            return update_nodes(ctl, rest, ctx, clusters[0])
        return _update(ctl, rest, ctx)
    return fail(f"invalid keyword: {words[0]}")


_SUSPEND_VERBS = ("hold", "uhold", "release")  # scontrol sends these as one suspend-style call
FINISHED = "Job has already finished"


def job_error(verb: str, spec: str, message: str) -> str:
    """scontrol 22.05's text for a job it could not act on: ``MESSAGE for job SPEC``, then for
    hold and release the call's own ``slurm_suspend error:`` line; requeue keeps the older
    ``slurm_update error:`` form."""
    if verb == "update":
        return f"{message} for job {spec}\n"
    if verb in _SUSPEND_VERBS:
        return f"{message} for job {spec}\nslurm_suspend error: {message}\n"
    return f"slurm_update error: {message}\n"


def _job_targets(
    ctl: Controller, specs: list[str], verb: str
) -> list[tuple[str, list[int]]] | CommandResult:
    targets = []
    for spec in split_list(specs):
        found = ctl.resolve(spec)
        if found is None or not found:
            return fail(job_error(verb, spec, "Invalid job id specified"))
        targets.append((spec, found))
    if not targets:
        return fail("scontrol: error: no job id given")
    return targets


def _control(ctl: Controller, verb: str, specs: list[str], ctx: Context) -> CommandResult:
    targets = _job_targets(ctl, specs, verb)
    if isinstance(targets, CommandResult):
        return targets
    operator = ctl.is_operator(ctx.user)
    errors: list[tuple[str, str]] = []  # (spec, message)
    for spec, engine_ids in targets:
        for eid in engine_ids:
            record = ctl.records[eid]
            job = ctl.engine.jobs[eid]
            if denied(ctl, record, ctx.user) or (
                verb == "release" and job.reason is Reason.HELD_ADMIN and not operator
            ):
                errors.append((spec, "Access/permission denied"))
                continue
            if job.state in FINISHED_STATES and verb in _SUSPEND_VERBS:
                if len(engine_ids) == 1:
                    errors.append((spec, FINISHED))
                continue
            try:
                if verb in ("hold", "uhold"):
                    if job.state is not JobState.PENDING and len(engine_ids) > 1:
                        continue  # the array's running tasks are not held
                    admin = verb == "hold" and operator
                    ctl.engine.hold(eid, Reason.HELD_ADMIN if admin else Reason.HELD_USER)
                elif verb == "release":
                    held = job.reason in (Reason.HELD_USER, Reason.HELD_ADMIN)
                    if not held and len(engine_ids) > 1:
                        continue
                    record.priority = ctl._new_priority()  # priority/basic: below all others
                    ctl.reorder(eid, record.priority)
                    ctl.engine.release(eid)
                    record.released_at = ctl.now
                else:
                    if record.extras.requeue is False:  # sbatch --no-requeue
                        errors.append((spec, "Requested operation is presently disabled"))
                        continue
                    ctl.engine.requeue(eid)
                    record.exit_signal = 0
                    record.cancelled_by = 0
                    if verb == "requeuehold":
                        ctl.engine.hold(eid, Reason.HELD_ADMIN if operator else Reason.HELD_USER)
            except JobStateError as error:
                errors.append((spec, str(error)))
                continue
            record.changed()
    if not errors:
        return CommandResult()
    if verb in _SUSPEND_VERBS:
        lines = [f"{message} for job {spec}\n" for spec, message in dict.fromkeys(errors)]
        return fail("".join(lines) + f"slurm_suspend error: {errors[-1][1]}\n")
    prefix = "slurm_update error" if verb != "requeue" else "scontrol: error: Requeue"
    messages = dict.fromkeys(message for _, message in errors)
    return fail("".join(f"{prefix}: {message}\n" for message in messages))


_UPDATE_KEYS = (
    "jobid",
    "timelimit",
    "partition",
    "name",
    "jobname",
    "numnodes",
    "minnodes",
    "numtasks",
    "dependency",
    "starttime",
    "begintime",
    "account",
    "reqnodelist",
    "excnodelist",
    "nice",
    "comment",
    "priority",
)


def _key(word: str) -> str:
    return word.partition("=")[0].lower()


def _update(ctl: Controller, rest: list[str], ctx: Context) -> CommandResult:
    pairs: list[tuple[str, str]] = []
    for word in rest:
        key, eq, value = word.partition("=")
        if not eq or key.lower() not in _UPDATE_KEYS:
            return unsupported(word)
        pairs.append((key.lower(), value))
    ids = [v for key, v in pairs if key == "jobid"]
    if not ids:
        return fail("No job identification provided (JobId=...)")
    targets = _job_targets(ctl, ids, "update")
    if isinstance(targets, CommandResult):
        return targets
    operator = ctl.is_operator(ctx.user)
    for spec, engine_ids in targets:
        for eid in engine_ids:
            record = ctl.records[eid]
            job = ctl.engine.jobs[eid]
            if denied(ctl, record, ctx.user):
                return fail("slurm_update error: Access/permission denied")
            if job.state in FINISHED_STATES:
                if len(engine_ids) > 1:
                    continue  # an array's finished tasks are left as they are
                return fail(job_error("update", spec, FINISHED))
            if job.state is JobState.RUNNING and {key for key, _ in pairs} == _LIMIT_ONLY:
                refused = _update_running_limit(ctl, eid, dict(pairs)["timelimit"], operator)
                if refused is not None:
                    return refused
                record.updated_at = ctl.now
                continue
            request = job.request
            changes: dict[str, object] = {}
            try:
                for key, value in pairs:
                    if key == "timelimit":
                        limit = parse_time_limit(value)
                        if limit > request.time_limit and not operator:
                            return fail("slurm_update error: Access/permission denied")
                        changes["time_limit"] = limit
                    elif key == "priority":  # only an operator may raise it (scontrol.1)
                        priority = int(value)
                        if priority > record.priority and not operator:
                            return fail("slurm_update error: Access/permission denied")
                        if priority < 0 or priority >= 2**32:
                            raise ValueError(value)
                        changes["priority"] = priority - BASIC_PRIORITY_TOP  # (reorder's key)
                    elif key == "partition":
                        cluster = ctl.platform.clusters[ctl.views.cluster_of(record)]
                        if cluster.partition(value) is None:
                            return fail("slurm_update error: Invalid partition name specified")
                        changes["partition"] = value
                    elif key in ("name", "jobname"):
                        changes["name"] = value
                    elif key in ("numnodes", "minnodes"):
                        low, _, high = value.partition("-")
                        changes["min_nodes"] = int(low)
                        if key == "numnodes":  # NumNodes=MIN-MAX sets a node range, as -N
                            most = int(high) if high else 0
                            changes["max_nodes"] = most if most > int(low) else 0
                    elif key == "numtasks":
                        changes["tasks"] = int(value)
                    elif key == "account":
                        changes["account"] = value
                    elif key in ("starttime", "begintime"):
                        changes["begin"] = parse_begin(value, ctl.now, ctl.origin)
                    elif key == "reqnodelist":
                        changes["include"] = tuple(expand(value)) if value else ()
                    elif key == "excnodelist":
                        changes["exclude"] = tuple(expand(value)) if value else ()
                    elif key == "dependency":
                        dependency = (
                            known_dependency(ctl, parse_dependency(value)) if value else None
                        )
                        record.dependency = dependency
                        task = request.array.task_id if request.array else None
                        changes["dependencies"] = ctl.engine_dependencies(dependency, task)
            except (ValueError, TimeFormatError, HostlistError, SbatchError):
                return fail("slurm_update error: Invalid argument")
            if not changes:
                continue
            try:
                ctl.engine.update(eid, replace(request, **changes))  # type: ignore[arg-type]
            except JobStateError as error:
                return fail(f"slurm_update error: {error}")
            if "priority" in changes:
                record.priority = int(changes["priority"]) + BASIC_PRIORITY_TOP  # type: ignore[call-overload]
            record.updated_at = ctl.now
            record.changed()
    return CommandResult()


_LIMIT_ONLY = {"jobid", "timelimit"}


def _update_running_limit(
    ctl: Controller, eid: int, value: str, operator: bool
) -> CommandResult | None:
    """A running job's new limit: an operator may raise it, its owner only lower it."""
    job = ctl.engine.jobs[eid]
    try:
        limit = parse_time_limit(value)
    except TimeFormatError:
        return fail("slurm_update error: Invalid argument")
    if limit > job.request.time_limit and not operator:
        return fail("slurm_update error: Access/permission denied")
    try:
        change_running_limit(ctl.engine, eid, limit)
    except JobStateError as error:
        return fail(f"slurm_update error: {error}")
    return None


_SCHEDULER_KEYS = ("scheduler", "schedulertype")  # SchedulerType= as show config prints it


def _update_scheduler(ctl: Controller, rest: list[str], ctx: Context) -> CommandResult:
    """``update scheduler=SPEC``: operators only, as Slurm's reconfiguration is; a bad spec
    changes nothing. The engine switches policies and runs a pass when time next moves."""
    for word in rest:
        if _key(word) not in _SCHEDULER_KEYS or "=" not in word:
            return unsupported(word)
    if not ctl.is_operator(ctx.user):
        return fail("slurm_update error: Access/permission denied")
    text = rest[-1].partition("=")[2]
    try:
        spec = parse_spec(text)
    except SpecError as error:
        known = (
            "" if "available:" in str(error) else "; known schedulers: " + ", ".join(available())
        )
        return fail(f"slurm_update error: Invalid scheduler specification: {error}{known}")
    ctl.engine.set_scheduler(spec)
    return CommandResult()
