"""The Slurm commands as the controller runs them: ``sbatch``, ``squeue``, ``sinfo``, ``scancel``,
``scontrol``, ``sacct`` (and ``sprio``, ``date``).

Each handler takes the controller, the arguments (without the command name) and the caller, and
returns a :class:`~emulator.slurmctld.controller.CommandResult` with what Slurm 22.05 prints. Text
comes from :mod:`emulator.slurm.formats`; option parsing and messages follow
slurm-conventions.md and the samples.
"""

from __future__ import annotations

import getopt
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import PurePosixPath

from emulator.engine import JobStateError
from emulator.model.hostlist import HostlistError, compress, expand
from emulator.model.job import Dependencies, DependencyKind, Job, JobState, Reason, Request
from emulator.model.platform import Cluster
from emulator.slurm.formats import (
    SACCT_DEFAULT,
    JobInfo,
    parse_states,
    sacct,
    scontrol_show_job,
    scontrol_show_node,
    scontrol_show_partition,
    sinfo,
    squeue,
)
from emulator.slurm.sbatch_options import (
    SbatchError,
    SbatchOptions,
    array_requests,
    emulated_runtime,
    parse_sbatch,
    script_argument,
    to_request,
)
from emulator.slurm.timefmt import (
    TimeFormatError,
    format_timestamp,
    parse_begin,
    parse_time_limit,
)
from emulator.slurmctld.controller import (
    VERSION,
    CommandResult,
    Controller,
    JobRecord,
    _Context,
)

__all__ = ["COMMANDS"]

Handler = Callable[[Controller, list[str], _Context], CommandResult]


def _fail(text: str, code: int = 1, stdout: str = "") -> CommandResult:
    return CommandResult(stdout, text if text.endswith("\n") or not text else text + "\n", code)


class _Given:
    """The options a command was given, by name, each with its values in order."""

    def __init__(self, opts: Iterable[tuple[str, str]]) -> None:
        self._values: dict[str, list[str]] = {}
        for option, value in opts:
            self._values.setdefault(option, []).append(value)

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def has(self, *names: str) -> bool:
        return any(name in self._values for name in names)

    def values(self, *names: str) -> list[str]:
        return [value for name in names for value in self._values.get(name, [])]


def _options(
    command: str, args: list[str], short: str, long: Sequence[str]
) -> tuple[list[tuple[str, str]], list[str]] | CommandResult:
    """GNU getopt with the Slurm tools' messages on error."""
    try:
        return getopt.gnu_getopt(args, short, list(long))
    except getopt.GetoptError as error:
        option = error.opt
        if "requires argument" in error.msg:
            line = (
                f"{command}: option requires an argument -- '{option}'"
                if len(option) == 1
                else f"{command}: option '--{option}' requires an argument"
            )
        elif len(option) == 1:
            line = f"{command}: invalid option -- '{option}'"
        else:
            line = f"{command}: unrecognized option '--{option}'"
        return _fail(f'{line}\nTry "{command} --help" for more information', 1)


def _clusters(
    ctl: Controller, command: str, value: str | None
) -> tuple[list[int], bool] | CommandResult:
    """The clusters ``-M`` names (``all``), or the local one; and whether ``-M`` was given."""
    if value is None:
        return [0], False
    names = [c.name for c in ctl.platform.clusters] if value == "all" else value.split(",")
    indexes = []
    for name in names:
        cluster = ctl.platform.cluster(name)
        if cluster is None:
            return _fail(
                f"{command}: error: '{name}' can't be reached now, or it is an invalid entry for "
                "--cluster.  Use 'sacctmgr list clusters' to see available clusters."
            )
        indexes.append(cluster.index)
    return indexes, True


# --- sbatch ----------------------------------------------------------------------------------

_INSTANT = re.compile(
    r"^(true|false|:|exit(\s+\d+)?|echo\b.*|hostname|date|pwd|env|printenv\b.*|cd\b.*"
    r"|export\b.*|set\b.*|module\b.*|srun\s+(hostname|true|date)|sleep\s+\S+)$"
)
_EXIT = re.compile(r"^exit\s+(\d+)\s*(?:#.*)?$")


def script_outcome(options: SbatchOptions, time_limit: float) -> tuple[float, int]:
    """How long the emulated script runs and its exit code.

    ``--emulate-runtime`` or the summed ``sleep`` lines give the runtime; a script of instant
    commands only (``true``, ``echo``, ``exit N`` ...) takes no time; anything else runs until
    its time limit. The exit code is a last ``exit N`` (or ``false``: 1), else 0.
    """
    body = [
        line.strip()
        for line in options.script.split("\n")[1:]
        if line.strip() and not line.strip().startswith("#")
    ]
    exit_code = 0
    if body:
        last = body[-1]
        match = _EXIT.match(last)
        if match:
            exit_code = int(match[1]) % 256
        elif last == "false":
            exit_code = 1
    if options.emulate_runtime is not None or options.sleep_total is not None:
        return emulated_runtime(options, time_limit), exit_code
    if all(_INSTANT.match(line) for line in body):
        return 0.0, exit_code
    return emulated_runtime(options, time_limit), exit_code


def _plan_nodes(ctl: Controller, k: int, request: Request, start: float) -> str:
    """The nodes a job starting at ``start`` would get: the lowest-numbered ones whose cores
    are free by then (running jobs' expected ends), as Slurm's select plugin picks them."""
    cluster = ctl.platform.clusters[k]
    partition = (
        cluster.partition(request.partition) if request.partition else None
    ) or cluster.default_partition
    busy: dict[int, int] = {}
    for job in ctl.engine.jobs.values():
        if job.state is JobState.RUNNING and job.expected_end > start:
            for node_id, cores in zip(job.nodes, job.node_cores, strict=False):
                busy[node_id] = busy.get(node_id, 0) + cores
    need = request.cores
    chosen: list[str] = []
    per_node = request.tasks_per_node * request.cpus_per_task if request.tasks_per_node else 0
    for local in partition.nodes:
        node = cluster.nodes[local]
        free = node.cores - busy.get(node.id, 0)
        if free <= 0 or free < max(per_node, request.cpus_per_task):
            continue
        chosen.append(node.name)
        need -= min(free, per_node or free)
        if need <= 0 and len(chosen) >= max(1, request.min_nodes):
            break
    return compress(chosen) if chosen else cluster.nodes[partition.nodes[0]].name


def _sbatch(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    try:
        path = script_argument(args)
        script = ctx.stdin
        if path is not None and "--wrap" not in " ".join(args):
            script = ctl.read_file(path, ctx.cwd)
            if script is None:
                return _fail(f"sbatch: error: Unable to open file {path}")
        options = parse_sbatch(args, script, ctx.env, now=ctl.now, origin=ctl.origin)
    except SbatchError as error:
        return CommandResult("", error.stderr, error.exit_code)
    chosen = _clusters(ctl, "sbatch", ",".join(options.clusters) if options.clusters else None)
    if isinstance(chosen, CommandResult):
        return chosen
    candidates, named = chosen
    user = ctx.user
    requests: list[tuple[int, Request]] = []
    first_error: SbatchError | None = None
    for k in candidates:
        try:
            request = to_request(options, user, ctl.platform.clusters[k])
        except SbatchError as error:
            first_error = first_error or error
            continue
        requests.append((k, request))
    if not requests:
        assert first_error is not None
        if "Node count specification invalid" in first_error.stderr:
            ctl._new_id()  # the controller made the record before refusing it
        return CommandResult("", first_error.stderr, first_error.exit_code)
    k, request = _earliest(ctl, requests) if len(requests) > 1 else requests[0]
    cluster = ctl.platform.clusters[k]
    request = replace(
        request,
        account=request.account or user,
        clusters=(cluster.name,) if len(ctl.platform.clusters) > 1 else (),
    )
    if request.memory_mb and request.memory_mb > _max_memory(cluster, request):
        ctl._new_id()
        return _fail(
            "sbatch: error: Memory specification can not be satisfied\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available"
        )
    job_id = ctl._new_id()
    if options.test_only:
        ctl._new_priority()  # the will-run record took a priority too (the samples' job 14)
        probe = Job(job_id, ctl.now, request)
        estimate = ctl.engine.estimate(probe, k)
        if math.isinf(estimate.start):
            return _fail(
                "sbatch: error: Job submit/allocate failed: Requested node configuration is not "
                "available"
            )
        partition = request.partition or cluster.default_partition.name
        nodes = _plan_nodes(ctl, k, request, estimate.start)
        return CommandResult(
            "",
            f"sbatch: Job {job_id} to start at "
            f"{format_timestamp(estimate.start, ctl.origin)} using {request.cores} processors "
            f"on nodes {nodes} in partition {partition}\n",
        )
    dependency = _known_dependency(ctl, options.dependency)
    request = replace(request, dependencies=ctl.engine_dependencies(dependency))
    runtime, exit_code = script_outcome(options, request.time_limit)
    work_dir = str(PurePosixPath(ctx.cwd) / options.work_dir) if options.work_dir else ctx.cwd
    command = "(null)"
    if options.wrap is None and options.script_path is not None:
        command = str(PurePosixPath(ctx.cwd) / options.script_path)
    common = {
        "ctx_user": user,
        "work_dir": work_dir,
        "stdout": options.output or "",
        "stderr": options.error or "",
        "script": options.script,
        "command": command,
        "exit_code": exit_code,
        "cluster": k,
        "job_id": job_id,
        "dependency": dependency,
    }
    engine_ids: list[int] = []
    if options.array is not None:
        ctl.arrays[job_id] = []
        for task_request in array_requests(request, options.array, job_id):
            engine_id = next(ctl._task_ids)
            ctl.arrays[job_id].append(engine_id)
            ctl.add_job(task_request, runtime, engine_id=engine_id, **common)  # type: ignore[arg-type]
            engine_ids.append(engine_id)
    else:
        ctl.add_job(request, runtime, **common)  # type: ignore[arg-type]
        engine_ids.append(job_id)
    where = f" on cluster {cluster.name}" if named else ""
    if options.parsable:
        stdout = f"{job_id};{cluster.name}\n" if named else f"{job_id}\n"
    else:
        stdout = f"Submitted batch job {job_id}{where}\n"
    if not options.wait:
        return CommandResult(stdout)
    jobs = [ctl.engine.jobs[eid] for eid in engine_ids]
    ctl.wait(lambda: all(job.state.finished for job in jobs))
    if not all(job.state.finished for job in jobs):
        return _fail(
            f"sbatch: error: Job {job_id} can never end: nothing is left to run", 1, stdout
        )
    codes = [
        job.exit_code if job.state in (JobState.COMPLETED, JobState.FAILED) else 1 for job in jobs
    ]
    return CommandResult(stdout, "", max(codes))


def _earliest(ctl: Controller, requests: list[tuple[int, Request]]) -> tuple[int, Request]:
    """``sbatch -M a,b``: the cluster where the job would start first (ties: the first)."""

    def start(item: tuple[int, Request]) -> tuple[float, int]:
        k, request = item
        probe = Job(0, ctl.now, replace(request, clusters=(ctl.platform.clusters[k].name,)))
        return ctl.engine.estimate(probe, k).start, k

    return min(requests, key=start)


def _max_memory(cluster: Cluster, request: Request) -> int:
    partition = (
        cluster.partition(request.partition) if request.partition else None
    ) or cluster.default_partition
    return max(cluster.nodes[local].memory_mb for local in partition.nodes)


def _known_dependency(ctl: Controller, dependency: Dependencies | None) -> Dependencies | None:
    """Slurm 22.05 drops the terms naming jobs it never had (the samples' job 20)."""
    if dependency is None:
        return None
    terms = tuple(
        term
        for term in dependency.terms
        if term.kind is DependencyKind.SINGLETON or ctl.known_id(term.job_id)
    )
    return Dependencies(terms, dependency.any_of) if terms else None


# --- squeue ----------------------------------------------------------------------------------

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


def _format_o(text: str) -> str | None:
    """``squeue -O name[:[.]width],...`` as a ``-o`` format (default width 20)."""
    pieces = []
    for item in text.split(","):
        name, _, width = item.partition(":")
        code = _O_FIELDS.get(name.lower())
        if code is None:
            return None
        right = width.startswith(".")
        digits = width.lstrip(".") or "20"
        if not digits.isdigit():
            return None
        pieces.append(f"%{'.' if right else ''}{digits}{code}")
    return "".join(pieces)


def _split_list(values: Iterable[str]) -> list[str]:
    return [item for value in values for item in value.split(",") if item]


def _squeue(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    parsed = _options("squeue", args, _SQUEUE_SHORT, _SQUEUE_LONG)
    if isinstance(parsed, CommandResult):
        return parsed
    opts, rest = parsed
    given = _Given(opts)

    if given.has("-V", "--version"):
        return CommandResult(VERSION + "\n")
    if given.has("--json", "--yaml"):
        return _fail("squeue: error: --json and --yaml are not emulated by batchlab")
    cluster_values = given.values("-M", "--clusters")
    chosen = _clusters(ctl, "squeue", cluster_values[-1] if cluster_values else None)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, named = chosen
    fmt = (given.values("-o", "--format") or [ctx.env.get("SQUEUE_FORMAT", "")])[-1] or None
    o_format = (given.values("-O", "--Format") or [ctx.env.get("SQUEUE_FORMAT2", "")])[-1]
    if o_format:
        fmt = _format_o(o_format)
        if fmt is None:
            return _fail(f"squeue: error: Invalid format specification: {o_format}")
    states_text = (given.values("-t", "--states") or [ctx.env.get("SQUEUE_STATES", "")])[-1]
    try:
        states: frozenset[JobState] | str | None = (
            parse_states(states_text) if states_text else "default"
        )
    except ValueError as error:
        return _fail(f"squeue: error: {error}")
    stderr = ""
    users = _split_list(given.values("-u", "--user"))
    if given.has("--me"):
        users.append(ctx.user)
    bad_user = False
    for user in users:
        if not ctl.users.known(user):
            stderr += f"squeue: error: Invalid user: {user}\n\n"
            bad_user = True
    user_names = {ctl.users.name(u) for u in users}
    job_specs = _split_list(given.values("-j", "--jobs") + rest)
    wanted: set[int] | None = None
    if job_specs:
        wanted = set()
        for spec in job_specs:
            found = ctl.resolve(spec)
            if found is None:
                return _fail(f"squeue: error: Invalid job id: {spec}")
            wanted.update(eid for eid in found if ctl.visible(ctl.records[eid]))
        if not wanted:
            return _fail("slurm_load_jobs error: Invalid job id specified")
    partitions = set(_split_list(given.values("-p", "--partition")))
    names = set(_split_list(given.values("-n", "--name")))
    accounts = set(_split_list(given.values("-A", "--account")))
    try:
        nodes = {n for v in _split_list(given.values("-w", "--nodelist")) for n in expand(v)}
    except HostlistError:
        return _fail("squeue: error: Invalid node name specified")
    tables = []
    for k in clusters:
        platform = ctl.cluster_platform(k)
        default_partition = platform.clusters[0].default_partition.name
        jobs: list[Job] = []
        infos: dict[int, JobInfo] = {}
        for record in ctl.records.values():
            if ctl.cluster_of(record) != k or not ctl.visible(record) or bad_user:
                continue
            if wanted is not None and record.engine_id not in wanted:
                continue
            if users and record.user not in user_names:
                continue
            job, info = _sched_view(ctl, record, k)
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


def _sched_view(ctl: Controller, record: JobRecord, k: int) -> tuple[Job, JobInfo]:
    """The view plus what backfill would show: a planned start's nodes, a begin time."""
    job, info = ctl.view(record)
    if job.state is JobState.PENDING:
        if job.reason is Reason.BEGIN_TIME and math.isnan(job.planned_start):
            job.planned_start = job.request.begin
        elif not math.isnan(job.planned_start) and job.reason in (
            Reason.RESOURCES,
            Reason.PRIORITY,
        ):
            engine_job = ctl.engine.jobs[record.engine_id]
            nodes = _plan_nodes(ctl, k, engine_job.request, job.planned_start)
            info = replace(info, sched_nodes=nodes, scheduler="Backfill:*")
    return job, info


# --- sinfo -----------------------------------------------------------------------------------


def _sinfo(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    parsed = _options(
        "sinfo",
        args,
        "hlM:Np:RsV",
        (
            "noheader",
            "long",
            "clusters=",
            "Node",
            "partition=",
            "list-reasons",
            "summarize",
            "version",
            "json",
            "yaml",
        ),
    )
    if isinstance(parsed, CommandResult):
        return parsed
    opts, _ = parsed
    flags = {option for option, _ in opts}
    if flags & {"-V", "--version"}:
        return CommandResult(VERSION + "\n")
    if flags & {"--json", "--yaml"}:
        return _fail("sinfo: error: --json and --yaml are not emulated by batchlab")
    cluster_value = next((v for o, v in reversed(opts) if o in ("-M", "--clusters")), None)
    chosen = _clusters(ctl, "sinfo", cluster_value)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, named = chosen
    partition_values = [v for o, v in opts if o in ("-p", "--partition")]
    partitions = _split_list(partition_values) if partition_values else None
    long = bool(flags & {"-l", "--long"})
    if flags & {"-R", "--list-reasons"}:
        mode = "reasons"
    elif flags & {"-s", "--summarize"}:
        mode = "summary"
    elif flags & {"-N", "--Node"}:
        mode = "nodes-long" if long else "nodes"
    else:
        mode = "long" if long else "default"
    tables = []
    for k in clusters:
        platform = ctl.cluster_platform(k)
        running = [
            ctl.view(r)[0]
            for r in ctl.records.values()
            if ctl.cluster_of(r) == k and ctl.engine.jobs[r.engine_id].state is JobState.RUNNING
        ]
        text = sinfo(
            platform, running, mode=mode, now=ctl.now, origin=ctl.origin, partitions=partitions
        )
        if flags & {"-h", "--noheader"}:
            lines = text.splitlines(keepends=True)
            header_at = 1 if mode in ("long", "nodes-long") else 0
            text = "".join(lines[:header_at] + lines[header_at + 1 :])
        if named:
            text = f"CLUSTER: {platform.clusters[0].name}\n{text}"
        tables.append(text)
    return CommandResult("\n".join(tables))


# --- scancel ---------------------------------------------------------------------------------


def _denied(ctl: Controller, record: JobRecord, user: str) -> bool:
    return not ctl.is_operator(user) and record.user != user


def _scancel(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    parsed = _options(
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
    opts, specs = parsed
    given = _Given(opts)

    if "-V" in given or "--version" in given:
        return CommandResult(VERSION + "\n")
    verbose = "-v" in given or "--verbose" in given
    signal = (given.values("-s", "--signal") or ["KILL"])[-1].upper().removeprefix("SIG")
    if signal not in ("KILL", "TERM", "INT", "9", "15", "2"):
        return CommandResult()  # a signal the emulated jobs ignore
    users = {ctl.users.name(u) for u in _split_list(given.values("-u", "--user"))}
    if "--me" in given:
        users.add(ctx.user)
    partitions = set(_split_list(given.values("-p", "--partition")))
    names = set(_split_list(given.values("-n", "--name")))
    states_text = _split_list(given.values("-t", "--state"))
    short = {"PENDING": "PD", "RUNNING": "R", "SUSPENDED": "S"}
    states = {short.get(s.upper(), s.upper()) for s in states_text}
    filtered = bool(users or partitions or names or states)
    stderr: list[str] = []
    exit_code = 0

    def matches(record: JobRecord) -> bool:
        job = ctl.engine.jobs[record.engine_id]
        cluster = ctl.platform.clusters[ctl.cluster_of(record)]
        partition = job.request.partition or cluster.default_partition.name
        return (
            (not users or record.user in users)
            and (not partitions or partition in partitions)
            and (not names or job.request.name in names)
            and (not states or job.state.value in states)
        )

    targets: list[tuple[str, list[int]]] = []
    if specs:
        for spec in _split_list(specs):
            found = ctl.resolve(spec)
            if found is None:
                return _fail(f"scancel: error: Invalid job id {spec}")
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
        return _fail("scancel: error: No job identification provided")
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
            if _denied(ctl, record, ctx.user):
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
            record.cancelled_by = ctl.users.uid(ctx.user)
            record.exit_signal = 15 if was_running else 0
            record.final_written = False
    return CommandResult("", "".join(line + "\n" for line in stderr), exit_code)


# --- scontrol --------------------------------------------------------------------------------


def _scontrol(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
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
        elif arg.startswith("-") and len(words) == 0:
            return _fail(f"scontrol: invalid option -- '{arg.lstrip('-')}'")
        else:
            words.append(arg)
    if not words:
        return _fail("scontrol: error: no command given (show, hold, release, update, requeue)")
    chosen = _clusters(ctl, "scontrol", cluster_value)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, _ = chosen
    verb, rest = words[0].lower(), words[1:]
    if verb == "version":
        return CommandResult(VERSION + "\n")
    if verb == "show":
        return _show(ctl, rest, clusters[0], one_liner)
    if verb in ("hold", "uhold", "release", "requeue", "requeuehold"):
        return _control(ctl, verb, rest, ctx)
    if verb == "update":
        return _update(ctl, rest, ctx)
    return _fail(f"invalid keyword: {words[0]}")


def _show(ctl: Controller, rest: list[str], k: int, one_liner: bool) -> CommandResult:
    if not rest:
        return _fail("scontrol: error: show what? (job, node, partition, hostnames, hostlist)")
    entity, names = rest[0].lower(), rest[1:]
    if entity in ("job", "jobs"):
        return _show_job(ctl, names, one_liner)
    if entity in ("node", "nodes"):
        out: list[str] = []
        missing = False
        if names:
            for name in _split_list(names):
                node = ctl.platform.node_by_name.get(name)
                if node is None:
                    out.append(f"Node {name} not found\n")
                    missing = True
                    continue
                out.append(_node_text(ctl, node.cluster, [name], one_liner))
        else:
            out.append(_node_text(ctl, k, None, one_liner))
        return CommandResult("".join(out), "", 1 if missing else 0)
    if entity in ("partition", "partitions"):
        platform = ctl.cluster_platform(k)
        wanted = names or None
        text = scontrol_show_partition(platform, wanted)
        missing = any(platform.clusters[0].partition(n) is None for n in names)
        return CommandResult(_one_line(text) if one_liner else text, "", 1 if missing else 0)
    if entity == "hostnames":
        try:
            hosts = [h for value in names for h in expand(value)]
        except HostlistError:
            return _fail("scontrol: error: Invalid hostlist")
        return CommandResult("".join(h + "\n" for h in hosts))
    if entity == "hostlist":
        hosts = _split_list(names)
        return CommandResult(compress(hosts) + "\n" if hosts else "")
    return _fail(f"invalid entity:{rest[0]} for keyword:show")


def _one_line(text: str) -> str:
    blocks = [b for b in text.split("\n\n") if b.strip()]
    return "".join(
        " ".join(part.strip() for part in b.split("\n") if part.strip()) + "\n" for b in blocks
    )


def _node_text(ctl: Controller, k: int, names: list[str] | None, one_liner: bool) -> str:
    platform = ctl.cluster_platform(k)
    running = [
        ctl.view(r)[0]
        for r in ctl.records.values()
        if ctl.cluster_of(r) == k and ctl.engine.jobs[r.engine_id].state is JobState.RUNNING
    ]
    text = scontrol_show_node(platform, running, names=names, origin=ctl.origin)
    return _one_line(text) if one_liner else text


def _show_job(ctl: Controller, names: list[str], one_liner: bool) -> CommandResult:
    if names:
        engine_ids: list[int] = []
        for spec in _split_list(names):
            found = ctl.resolve(spec)
            if found is None:
                return _fail(f"scontrol: error: Invalid job id specified: {spec}")
            engine_ids.extend(eid for eid in found if ctl.visible(ctl.records[eid]))
        if not engine_ids:
            return _fail("slurm_load_jobs error: Invalid job id specified")
    else:
        engine_ids = [
            r.engine_id
            for r in sorted(ctl.records.values(), key=lambda r: (r.slurm_id, r.engine_id))
            if ctl.visible(r)
        ]
        if not engine_ids:
            return CommandResult("No jobs in the system\n")
    out: list[str] = []
    shown_pending_arrays: set[int] = set()
    for eid in engine_ids:
        record = ctl.records[eid]
        k = ctl.cluster_of(record)
        job, info = _sched_view(ctl, record, k)
        array = job.request.array
        if array is not None and job.state is JobState.PENDING and len(engine_ids) > 1:
            if array.array_id in shown_pending_arrays:
                continue  # the pending tasks are one record
            shown_pending_arrays.add(array.array_id)
        text = scontrol_show_job(
            job,
            ctl.cluster_platform(k),
            now=ctl.now,
            origin=ctl.origin,
            info=info,
            one_liner=one_liner,
        )
        if job.explanation:  # batchlab's addition: the scheduler's last word on the job
            line = f"Explanation={job.explanation}"
            if one_liner:
                text = text.rstrip("\n") + f" {line}\n"
            else:
                text = text.replace("\n   Power=\n", f"\n   {line}\n   Power=\n", 1)
        out.append(text)
    return CommandResult("".join(out))


def _job_targets(ctl: Controller, specs: list[str]) -> list[tuple[str, list[int]]] | CommandResult:
    targets = []
    for spec in _split_list(specs):
        found = ctl.resolve(spec)
        if found is None or not found:
            return _fail("slurm_update error: Invalid job id specified")
        targets.append((spec, found))
    if not targets:
        return _fail("scontrol: error: no job id given")
    return targets


def _control(ctl: Controller, verb: str, specs: list[str], ctx: _Context) -> CommandResult:
    targets = _job_targets(ctl, specs)
    if isinstance(targets, CommandResult):
        return targets
    operator = ctl.is_operator(ctx.user)
    errors: list[str] = []
    for _spec, engine_ids in targets:
        for eid in engine_ids:
            record = ctl.records[eid]
            job = ctl.engine.jobs[eid]
            if _denied(ctl, record, ctx.user) or (
                verb == "release" and job.reason is Reason.HELD_ADMIN and not operator
            ):
                errors.append("Access/permission denied")
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
                    ctl.engine.release(eid)
                    record.priority = ctl._new_priority()
                    record.released_at = ctl.now
                else:
                    ctl.engine.requeue(eid)
                    record.exit_signal = 0
                    record.cancelled_by = 0
                    if verb == "requeuehold":
                        ctl.engine.hold(eid, Reason.HELD_ADMIN if operator else Reason.HELD_USER)
            except JobStateError as error:
                errors.append(str(error))
                continue
            record.final_written = False
    if errors:
        prefix = "slurm_update error" if verb != "requeue" else "scontrol: error: Requeue"
        return _fail("".join(f"{prefix}: {e}\n" for e in dict.fromkeys(errors)))
    return CommandResult()


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
)


def _update(ctl: Controller, rest: list[str], ctx: _Context) -> CommandResult:
    pairs: list[tuple[str, str]] = []
    for word in rest:
        key, eq, value = word.partition("=")
        if not eq or key.lower() not in _UPDATE_KEYS:
            return _fail(f"Update of this parameter is not supported: {word}\nRequest aborted")
        pairs.append((key.lower(), value))
    ids = [v for key, v in pairs if key == "jobid"]
    if not ids:
        return _fail("No job identification provided (JobId=...)")
    targets = _job_targets(ctl, ids)
    if isinstance(targets, CommandResult):
        return targets
    operator = ctl.is_operator(ctx.user)
    for _spec, engine_ids in targets:
        for eid in engine_ids:
            record = ctl.records[eid]
            job = ctl.engine.jobs[eid]
            if _denied(ctl, record, ctx.user):
                return _fail("slurm_update error: Access/permission denied")
            request = job.request
            changes: dict[str, object] = {}
            try:
                for key, value in pairs:
                    if key == "timelimit":
                        limit = parse_time_limit(value)
                        if limit > request.time_limit and not operator:
                            return _fail("slurm_update error: Access/permission denied")
                        changes["time_limit"] = limit
                    elif key == "partition":
                        cluster = ctl.platform.clusters[ctl.cluster_of(record)]
                        if cluster.partition(value) is None:
                            return _fail("slurm_update error: Invalid partition name specified")
                        changes["partition"] = value
                    elif key in ("name", "jobname"):
                        changes["name"] = value
                    elif key in ("numnodes", "minnodes"):
                        changes["min_nodes"] = int(value.partition("-")[0])
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
                        from emulator.slurm.sbatch_options import parse_dependency

                        dependency = (
                            _known_dependency(ctl, parse_dependency(value)) if value else None
                        )
                        record.dependency = dependency
                        changes["dependencies"] = ctl.engine_dependencies(dependency)
            except (ValueError, TimeFormatError, HostlistError, SbatchError):
                return _fail("slurm_update error: Invalid argument")
            if not changes:
                continue
            try:
                ctl.engine.update(eid, replace(request, **changes))  # type: ignore[arg-type]
            except JobStateError as error:
                return _fail(f"slurm_update error: {error}")
            record.final_written = False
    return CommandResult()


# --- sacct -----------------------------------------------------------------------------------

_SACCT_FIELDS = {
    name.lower(): name
    for name in (
        "JobID",
        "JobIDRaw",
        "JobName",
        "Partition",
        "Account",
        "User",
        "AllocCPUS",
        "State",
        "ExitCode",
        "Elapsed",
        "NodeList",
        "NNodes",
        "Timelimit",
        "Start",
        "End",
        "Submit",
    )
}


def _sacct(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    ctl.sync()  # bring the rows the engine's hooks did not write up to date
    parsed = _options(
        "sacct",
        args,
        "abDE:j:LM:no:pPs:S:u:VX",
        (
            "allusers",
            "brief",
            "duplicates",
            "endtime=",
            "jobs=",
            "allclusters",
            "clusters=",
            "noheader",
            "format=",
            "parsable",
            "parsable2",
            "state=",
            "starttime=",
            "user=",
            "version",
            "allocations",
            "json",
            "yaml",
        ),
    )
    if isinstance(parsed, CommandResult):
        return parsed
    opts, _ = parsed
    given = _Given(opts)

    if given.has("-V", "--version"):
        return CommandResult(VERSION + "\n")
    if given.has("--json", "--yaml"):
        return _fail("sacct: error: --json and --yaml are not emulated by batchlab")
    cluster_values = given.values("-M", "--clusters")
    cluster_value = "all" if given.has("-L", "--allclusters") else None
    if cluster_values:
        cluster_value = cluster_values[-1]
    chosen = _clusters(ctl, "sacct", cluster_value)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, _ = chosen
    if given.has("-b", "--brief"):
        fields: list[str] = ["JobID", "State", "ExitCode"]
    else:
        fields = list(SACCT_DEFAULT)
    format_text = (given.values("-o", "--format") or [ctx.env.get("SACCT_FORMAT", "")])[-1]
    if format_text:
        fields = []
        for item in _split_list([format_text]):
            name, percent, width = item.partition("%")
            canonical = _SACCT_FIELDS.get(name.lower())
            if canonical is None:
                return _fail(f'sacct: error: Invalid field requested: "{name}"')
            fields.append(canonical + percent + width)
    try:
        states = (
            parse_states(",".join(given.values("-s", "--state")))
            if given.has("-s", "--state")
            else None
        )
    except ValueError as error:
        return _fail(f"sacct: error: {error}")
    day = datetime.fromtimestamp(math.floor(ctl.origin + ctl.now), UTC)
    midnight = day.replace(hour=0, minute=0, second=0).timestamp() - ctl.origin
    start = -math.inf if given.has("-j", "--jobs") else midnight
    end = ctl.now
    try:
        for option, target in (("--starttime", "S"), ("--endtime", "E")):
            texts = given.values(f"-{target}", option)
            if texts:
                moment = parse_begin(texts[-1], ctl.now, ctl.origin, option=option)
                if target == "S":
                    start = moment
                else:
                    end = moment
    except TimeFormatError as error:
        return _fail(f"sacct: error: {error.message}")
    users = {ctl.users.name(u) for u in _split_list(given.values("-u", "--user"))}
    if not users and not given.has("-a", "--allusers") and not ctl.is_operator(ctx.user):
        users = {ctx.user}
    job_specs = _split_list(given.values("-j", "--jobs"))
    wanted_ids: set[int] = set()
    wanted_tasks: set[tuple[int, int]] = set()
    for spec in job_specs:
        match = re.fullmatch(r"(\d+)(?:_(\d+))?(?:\.\w+)?", spec)
        if match is None:
            return _fail(f"sacct: error: Invalid job id specified: {spec}")
        if match[2] is None:
            wanted_ids.add(int(match[1]))
        else:
            wanted_tasks.add((int(match[1]), int(match[2])))
    parsable = (
        "P" if given.has("-P", "--parsable2") else "p" if given.has("-p", "--parsable") else ""
    )
    out: list[str] = []
    for k in clusters:
        platform = ctl.cluster_platform(k)
        jobs: list[Job] = []
        infos: dict[int, JobInfo] = {}
        for row in ctl.accounting.rows(platform.clusters[0].name):
            job = row.job
            array = job.request.array
            if users and job.request.user not in users:
                continue
            if job_specs:
                in_array = array is not None and (
                    array.array_id in wanted_ids or (array.array_id, array.task_id) in wanted_tasks
                )
                if job.id not in wanted_ids and not in_array:
                    continue
            if states is not None and job.state not in states:
                continue
            if job.submit > end or (job.state.finished and job.end < start):
                continue
            jobs.append(job)
            infos[job.id] = JobInfo(
                uid=row.uid, exit_signal=row.exit_signal, cancelled_by=row.cancelled_by
            )
        out.append(
            sacct(
                jobs,
                platform,
                now=ctl.now,
                origin=ctl.origin,
                infos=infos,
                fields=fields,
                allocations=given.has("-X", "--allocations"),
                parsable=parsable,
                header=not given.has("-n", "--noheader") and not out,
            )
        )
    return CommandResult("".join(out))


# --- small ones ------------------------------------------------------------------------------


def _sprio(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    return _fail(
        "You are not running a supported priority plugin\n(priority/basic).\n"
        "Only 'priority/multifactor' is supported."
    )


def _date(ctl: Controller, args: list[str], ctx: _Context) -> CommandResult:
    moment = datetime.fromtimestamp(math.floor(ctl.origin + ctl.now), UTC)
    return CommandResult(f"{moment:%a %b} {moment.day:2d} {moment:%H:%M:%S} UTC {moment.year}\n")


COMMANDS: dict[str, Handler] = {
    "sbatch": _sbatch,
    "squeue": _squeue,
    "sinfo": _sinfo,
    "scancel": _scancel,
    "scontrol": _scontrol,
    "sacct": _sacct,
    "sprio": _sprio,
    "date": _date,
}
