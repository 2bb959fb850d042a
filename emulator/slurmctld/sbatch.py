"""``sbatch``: submit a batch script (file, stdin or ``--wrap``), ``--test-only``, ``-W``, and
``-M a,b`` (the cluster where the job would start first)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from emulator.model.durations import format_duration
from emulator.model.job import Dependencies, Job, JobState, Request
from emulator.model.platform import Cluster
from emulator.slurm.formats import BASIC_PRIORITY_TOP
from emulator.slurm.sbatch_options import (
    GRES_INVALID,
    SbatchError,
    SbatchOptions,
    array_requests,
    communication,
    emulated_runtime,
    job_extras,
    parse_sbatch,
    split_command_line,
    to_request,
)
from emulator.slurm.timefmt import format_timestamp
from emulator.slurmctld.common import chosen_clusters, fail, known_dependency, plan_nodes
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["run", "script_outcome", "wait_status"]

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
        last = body[-1].rsplit(";", 1)[-1].strip()  # ``sleep 20; exit 2``: the last command
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


def run(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    try:
        line = split_command_line(args)
        text = line.help
        if text is not None:
            return CommandResult(text)
        path = line.script_path
        script = ctx.stdin
        if path is not None and "--wrap" not in " ".join(args):
            script = ctl.read_file(path, ctx.cwd)
            if script is None:
                return fail(f"sbatch: error: Unable to open file {path}")
        options = parse_sbatch(line, script, ctx.env, now=ctl.now, origin=ctl.origin)
    except SbatchError as error:
        if "submission failed: Job dependency problem" in error.stderr:
            ctl._new_id()  # slurmctld refused it: the record it made used up an id
        return CommandResult("", error.stderr, error.exit_code)
    result = _submit(ctl, options, ctx)
    ignored = "".join(
        f"sbatch: error: Ignoring {flag} since it's not allowed by configuration "
        "(AllowSpecResourcesUsage = No)\n"
        for name, flag in (("core-spec", "-S"), ("thread-spec", "--thread-spec"))
        if name in options.given
    )
    return replace(result, stderr=ignored + result.stderr) if ignored else result


def _submit(ctl: Controller, options: SbatchOptions, ctx: Context) -> CommandResult:
    """Submit what sbatch understood (or test it, ``--test-only``; wait, ``-W``)."""
    if _asks_gpus(options) and not any(node.gpus for node in ctl.platform.nodes):
        # no GresTypes=gpu (the samples' slurm.conf): sbatch itself refuses, no id used
        return fail(f"sbatch: error: {GRES_INVALID}")
    chosen = chosen_clusters(
        ctl, "sbatch", ",".join(options.clusters) if options.clusters else None
    )
    if isinstance(chosen, CommandResult):
        return chosen
    candidates, named = chosen
    site = options.home_site
    if site is not None and all(c.name != site for c in ctl.platform.clusters):
        return fail(f"sbatch: error: Invalid --home-site specification: no cluster {site}")
    user = ctx.user
    # Slurm's rule: the job runs on one cluster, the local one unless -M names others. A grid
    # scheduler (batchlab's) places a job sent to no cluster in particular, maybe across several.
    pinned = len(ctl.platform.clusters) > 1 and (named or ctl.engine.grid_policy is None)
    dependency = known_dependency(ctl, options.dependency)
    dependencies = ctl.engine_dependencies(dependency)
    requests: list[tuple[int, Request]] = []
    first_error: SbatchError | None = None
    for k in candidates:
        try:
            request = to_request(
                options, user, ctl.platform.clusters[k], pinned=pinned, dependencies=dependencies
            )
        except SbatchError as error:
            first_error = first_error or error
            continue
        requests.append((k, request))
    if not requests:
        assert first_error is not None
        if "Node count specification invalid" in first_error.stderr:
            ctl._new_id()  # the controller made the record before refusing it
        return CommandResult("", first_error.stderr, first_error.exit_code)
    why = ""
    if len(requests) > 1:
        earliest = _earliest(ctl, requests)
        if earliest is None:
            return fail("sbatch: error: Can't run on any of the specified clusters")
        k, request, why = earliest
    else:
        k, request = requests[0]
    cluster = ctl.platform.clusters[k]
    known = ctl.platform.node_by_name
    if any(name not in known or known[name].cluster != k for name in request.include):
        return fail("sbatch: error: Batch job submission failed: Invalid node name specified")
    widest = max(node.cores for node in cluster.nodes)
    if request.min_nodes and not request.max_nodes and request.cores > request.min_nodes * widest:
        # the node count slurmctld derived from the CPUs (squeue showed 2 for -N 1 -n 8)
        request = replace(request, min_nodes=math.ceil(request.cores / widest))
        refusal: str | None = _NOT_AVAILABLE
    else:
        refusal = _refusal(ctl, options, request, cluster, user)
    if refusal is not None:
        job_id = ctl._new_id()  # slurmctld made the record before refusing it
        if _NOT_AVAILABLE in refusal:  # its select plugin refused: the record stays, FAILED
            fields = _record_fields(ctl, options, ctx, k, job_id, dependency, 0)
            ctl.add_job(request, 0.0, refused=True, **fields)  # type: ignore[arg-type]
        return fail(f"sbatch: error: {refusal}")
    job_id = ctl._new_id()
    if options.test_only:
        ctl._new_priority()  # the will-run record took a priority too (the samples' job 14)
        probe = Job(job_id, ctl.now, request)
        estimate = ctl.engine.estimate(probe, k)
        if math.isinf(estimate.start):
            return fail(
                "sbatch: error: Job submit/allocate failed: Requested node configuration is not "
                "available"
            )
        partition = request.partition or cluster.default_partition.name
        nodes = plan_nodes(ctl, k, request, estimate.start)
        return CommandResult(
            "",
            f"sbatch: Job {job_id} to start at "
            f"{format_timestamp(estimate.start, ctl.origin)} using {request.cores} processors "
            f"on nodes {nodes} in partition {partition}\n",
        )
    runtime, exit_code = script_outcome(options, request.time_limit)
    bsp = communication(options, runtime)
    if bsp is not None:
        request = replace(request, communication=bsp)
    common = _record_fields(ctl, options, ctx, k, job_id, dependency, exit_code)
    engine_ids: list[int] = []
    if options.array is not None:
        ctl.arrays[job_id] = []
        for task_request in array_requests(request, options.array, job_id):
            if dependency is not None and task_request.array is not None:
                task_request = replace(
                    task_request,
                    dependencies=ctl.engine_dependencies(dependency, task_request.array.task_id),
                )
            engine_id = next(ctl._task_ids)
            ctl.arrays[job_id].append(engine_id)
            ctl.add_job(task_request, runtime, engine_id=engine_id, **common)  # type: ignore[arg-type]
            engine_ids.append(engine_id)
    else:
        ctl.add_job(request, runtime, **common)  # type: ignore[arg-type]
        engine_ids.append(job_id)
    if options.priority is not None or options.nice:
        _set_priority(ctl, engine_ids, options)
    if why:  # until the local policy says more (scontrol show job, the window, the event log)
        for engine_id in engine_ids:
            ctl.engine.jobs[engine_id].explanation = why
    where = f" on cluster {cluster.name}" if named else ""
    if options.parsable:
        stdout = f"{job_id};{cluster.name}\n" if named else f"{job_id}\n"
    else:
        stdout = f"Submitted batch job {job_id}{where}\n"
    if not options.wait:
        return CommandResult(stdout)
    if ctl.defer_waits:
        return CommandResult(stdout, waits=tuple(engine_ids))
    ctl.wait(lambda: wait_status(ctl, engine_ids) is not None)
    code = wait_status(ctl, engine_ids)
    if code is None:
        return fail(f"sbatch: error: Job {job_id} can never end: nothing is left to run", 1, stdout)
    return CommandResult(stdout, "", code)


def _record_fields(
    ctl: Controller,
    options: SbatchOptions,
    ctx: Context,
    cluster: int,
    job_id: int,
    dependency: Dependencies | None,
    exit_code: int,
) -> dict[str, object]:
    """What :meth:`Controller.add_job` records of a submission beside its request."""
    work_dir = str(PurePosixPath(ctx.cwd) / options.work_dir) if options.work_dir else ctx.cwd
    command = "(null)"
    if options.wrap is None and options.script_path is not None:
        command = str(PurePosixPath(ctx.cwd) / options.script_path)
    return {
        "extras": job_extras(options, ctx.user),
        "ctx_user": ctx.user,
        "work_dir": work_dir,
        "stdout": options.output or "",
        "stderr": options.error or "",
        "script": options.script,
        "command": command,
        "exit_code": exit_code,
        "cluster": cluster,
        "job_id": job_id,
        "dependency": dependency,
    }


def wait_status(ctl: Controller, engine_ids: Sequence[int]) -> int | None:
    """``sbatch -W``'s exit status once all its jobs have ended (the highest exit code; 1 for a
    job that did not complete or fail, e.g. cancelled), None while one has not."""
    jobs = [ctl.engine.jobs[eid] for eid in engine_ids]
    if not all(job.state.finished for job in jobs):
        return None
    return max(
        job.exit_code if job.state in (JobState.COMPLETED, JobState.FAILED) else 1 for job in jobs
    )


def _earliest(
    ctl: Controller, requests: list[tuple[int, Request]]
) -> tuple[int, Request, str] | None:
    """``sbatch -M a,b``: the cluster where the job would start first, as Slurm's will-run
    sort (ties: the first named cluster in platform order, the local one first), with the
    estimates that chose it in words; None when no cluster could ever start it.

    Jobs submitted earlier at this same instant are let in first (their arrival and the pass it
    makes), as slurmctld has them queued by the time it answers a will-run request."""
    ctl.engine.run(until=ctl.now)
    starts = [
        (ctl.engine.estimate(Job(0, ctl.now, request), k).start, k, request)
        for k, request in requests
    ]
    start, k, request = min(starts, key=lambda item: (item[0], item[1]))
    if math.isinf(start):
        return None
    names = ctl.platform.clusters

    def wait(moment: float) -> str:
        return "never" if math.isinf(moment) else format_duration(moment - ctl.now)

    figures = ", ".join(f"{names[k_].name} {wait(s_)}" for s_, k_, _ in starts)
    return k, request, f"sbatch -M: expected start in {figures} -> {names[k].name}"


def _asks_gpus(options: SbatchOptions) -> bool:
    return any(n for n in (options.gpus_per_node, options.gpus, options.gpus_per_task))


def _set_priority(ctl: Controller, engine_ids: list[int], options: SbatchOptions) -> None:
    """priority/basic with ``--priority`` or ``--nice`` (its ``priority_p_set``): a priority
    given is the job's; else the nice lowers the next priority, floor 1, and the jobs that
    follow are placed below it (slurmctld's ``lowest_prio``). So a positive nice changes no
    job's place in the queue: only an operator's negative nice or ``--priority`` would, and
    the engine's queue follows a priority given (:meth:`Controller.reorder`)."""
    records = [ctl.records[eid] for eid in engine_ids if ctl.records[eid].priority]
    if options.priority is not None and records:
        ctl._rank -= 1  # a priority given takes no place in the order (direct_set_prio)
    for record in records:  # (a held job has priority 0 until released)
        if options.priority is not None:
            record.priority = options.priority
            ctl.reorder(record.engine_id, record.priority)
            continue
        record.priority = max(record.priority - (options.nice or 0), 1)
        ctl._rank = max(ctl._rank, BASIC_PRIORITY_TOP - record.priority)


_NOT_AVAILABLE = "Batch job submission failed: Requested node configuration is not available"


def _refusal(
    ctl: Controller, options: SbatchOptions, request: Request, cluster: Cluster, user: str
) -> str | None:
    """Why slurmctld refuses the job on ``cluster`` (its ``sbatch: error:`` lines), or None:
    memory (``--mem``, ``--mem-per-cpu``) no node of its partition has, node features or GPUs
    none offers, a QOS, reservation or license the cluster does not define (it defines the QOS
    ``normal`` only), and what only an operator may ask (``--priority``, a negative nice)."""
    partition = (
        cluster.partition(request.partition) if request.partition else None
    ) or cluster.default_partition
    nodes = [cluster.nodes[local] for local in partition.nodes]
    memory = request.memory_mb
    if options.mem_per_cpu:
        memory = max(memory, options.mem_per_cpu * request.cpus_per_task)
    if memory and memory > max(node.memory_mb for node in nodes):
        return f"Memory specification can not be satisfied\nsbatch: error: {_NOT_AVAILABLE}"
    if request.features:
        known = {name for node in cluster.nodes for name in node.features}
        names = request.features.replace("|", "&").split("&")
        if any(name not in known for name in names):
            return "Batch job submission failed: Invalid feature specification"
    if (request.features or request.gpus_per_node) and not any(
        node.offers(request.features, request.gpus_per_node) for node in nodes
    ):
        return _NOT_AVAILABLE
    if options.qos is not None and options.qos != "normal":
        return "Batch job submission failed: Invalid qos specification"
    if options.reservation is not None:
        return "Batch job submission failed: Requested reservation is invalid"
    if options.licenses is not None:
        return "Batch job submission failed: Invalid license specification"
    operator = ctl.is_operator(user)
    if not operator and (options.priority is not None or (options.nice or 0) < 0):
        return "Batch job submission failed: Access/permission denied"
    return None
