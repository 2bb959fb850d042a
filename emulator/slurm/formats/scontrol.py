"""``scontrol show job|node|partition|config|link``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from emulator.model.hostlist import compress
from emulator.model.job import (
    Job,
    JobState,
    Reason,
)
from emulator.model.network import link_slowdown
from emulator.model.node_state import NodeStatus
from emulator.model.platform import Platform
from emulator.slurm.formats.jobs import (
    _NO_INFO,
    STATE_LONG,
    JobExtras,
    JobInfo,
    NodeInfo,
    _cpus,
    _dependency_text,
    _elapsed,
    _node_count,
    _node_names,
    _started,
    job_reason,
    priority_of,
)
from emulator.slurm.formats.sinfo import _partition_nodes, _show_node_state, _used_cores
from emulator.slurm.timefmt import (
    format_duration_long,
    format_timestamp,
)

# --- scontrol --------------------------------------------------------------------------------


def _eligible(job: Job, info: JobInfo) -> float | None:
    if info.eligible is not None:  # (inf: Unknown, a released job no pass has seen)
        return None if math.isinf(info.eligible) else info.eligible
    if job.reason in (
        Reason.HELD_USER,
        Reason.HELD_ADMIN,
        Reason.DEPENDENCY,
        Reason.DEPENDENCY_NEVER,
        Reason.ARRAY_TASK_LIMIT,
    ):
        return None
    return max(job.submit, job.request.begin)


def _std_path(pattern: str, job: Job, info: JobInfo) -> str:
    array = job.request.array
    text = pattern or ("slurm-%A_%a.out" if array else "slurm-%j.out")
    base = str(array.array_id) if array else str(job.id)
    text = (
        text.replace("%A", base)
        .replace("%a", str(array.task_id) if array else "4294967294")
        .replace("%j", str(job.id))
        .replace("%x", job.request.name)
        .replace("%u", job.request.user)
    )
    if info.work_dir and not text.startswith("/"):
        return f"{info.work_dir}/{text}"
    return text


def scontrol_show_job(
    job: Job,
    platform: Platform,
    *,
    now: float,
    origin: float = 0.0,
    info: JobInfo = _NO_INFO,
    task_id: int | None = None,
    task_range: str | None = None,
    one_liner: bool = False,
) -> str:
    """``scontrol show job`` for one job (22.05 layout, ending ``Power=``, three spaces, blank).

    For a pending array meta-record asked as ``4_5``, pass the task in ``task_id``; shown for
    the whole array, the pending tasks it stands for in ``task_range`` (``3-5%2``: its output
    files then name task 4294967294, Slurm's NO_VAL).
    """
    request = job.request
    cluster = platform.clusters[0]
    array = request.array
    pending = job.state is JobState.PENDING
    started = _started(job)
    group = info.group or request.user
    head = f"JobId={array.array_id if array and pending else job.id}"
    if array is not None:
        shown_task = task_range or (task_id if task_id is not None else array.task_id)
        head += f" ArrayJobId={array.array_id} ArrayTaskId={shown_task}"
        if array.max_running:
            head += f" ArrayTaskThrottle={array.max_running}"
    eligible = _eligible(job, info)
    accrue = info.accrue if info.accrue is not None else eligible
    if accrue is None and pending and job.request.begin <= now:
        # Slurm 22.05 starts accruing at submission a throttled array's tasks, and keeps it
        # through a hold put on a job that was eligible (not one submitted held, -H)
        held = job.reason in (Reason.HELD_USER, Reason.HELD_ADMIN) and not request.held
        if held or job.reason is Reason.ARRAY_TASK_LIMIT:
            accrue = job.submit
    if started:
        start_time: float | None = job.start
        end_time = job.end if job.state.finished else job.start + request.time_limit
    elif eligible is not None and not math.isnan(job.planned_start):
        start_time = job.planned_start
        end_time = job.planned_start + request.time_limit
    else:
        start_time = end_time = None
    deadline = "N/A" if math.isinf(request.deadline) else format_timestamp(request.deadline, origin)
    sched_eval = info.last_sched_eval
    if sched_eval is None:
        sched_eval = job.start if started else job.submit
    nodes = compress(_node_names(platform, job))
    node_count = _node_count(job)
    cpus = _cpus(job)
    partition = request.partition or cluster.default_partition.name
    node_line = f"NodeList={nodes}" if started else "NodeList="
    if not started and info.sched_nodes:
        node_line += f" SchedNodeList={info.sched_nodes}"
    if started:
        tres = f"cpu={cpus},node={node_count},billing={cpus}"
    else:  # memory per node times the nodes (a pending -N 3 showed mem=12000M)
        memory = request.memory_mb or max((n.memory_mb for n in cluster.nodes), default=0)
        tres = f"cpu={cpus},mem={memory * node_count}M,node={node_count},billing={cpus}"
    # a pending job's node count prints as MIN-MAX when it has a maximum (job_info.c's
    # _sprint_range): -N MIN-MAX, or -N N, whose maximum is N (a pending -N 3 showed 3-3)
    most = max(request.max_nodes, request.min_nodes)
    ranged = job.state is JobState.PENDING and most > 0
    numnodes = f"{node_count}-{most}" if ranged else str(node_count)
    tasks = request.tasks
    if started and request.tasks_follow_nodes:
        tasks = len(job.nodes) * (request.tasks_per_node or 1)
    min_cpus = request.tasks_per_node * request.cpus_per_task if request.tasks_per_node else 1
    stdout = _std_path(info.stdout, job, info)
    stderr = _std_path(info.stderr, job, info) if info.stderr else stdout
    if array is not None and pending and (task_id is not None or task_range):
        shown_file = 4294967294 if task_range else task_id
        stdout = stdout.replace(f"_{array.task_id}.", f"_{shown_file}.")
        stderr = stderr.replace(f"_{array.task_id}.", f"_{shown_file}.")
    exit_code = f"{job.exit_code}:{info.exit_signal}"
    extras = info.extras
    time_min = "N/A" if extras.time_min is None else format_duration_long(extras.time_min)
    memory_key = "MinMemoryCPU" if extras.mem_per_cpu else "MinMemoryNode"
    memory_min = extras.mem_per_cpu or request.memory_mb
    lines = [
        f"{head} JobName={request.name}",
        f"UserId={request.user}({info.uid}) GroupId={group}({info.gid}) MCS_label=N/A",
        f"Priority={priority_of(job, info)} Nice={extras.nice} "
        f"Account={request.account or '(null)'} QOS={extras.qos or info.qos}",
        f"JobState={STATE_LONG[job.state]} Reason={job_reason(job).replace(' ', '_')} "
        f"Dependency={_dependency_text(job)}",
        f"Requeue={int(extras.requeue is not False)} Restarts=0 BatchFlag=1 Reboot=0 "
        f"ExitCode={exit_code}",
        f"RunTime={format_duration_long(_elapsed(job, now))} "
        f"TimeLimit={format_duration_long(request.time_limit)} TimeMin={time_min}",
        f"SubmitTime={format_timestamp(job.submit, origin)} "
        f"EligibleTime={format_timestamp(eligible, origin)}",
        f"AccrueTime={format_timestamp(accrue, origin)}",
        f"StartTime={format_timestamp(start_time, origin)} "
        f"EndTime={format_timestamp(end_time, origin)} Deadline={deadline}",
        f"SuspendTime=None SecsPreSuspend=0 LastSchedEval={format_timestamp(sched_eval, origin)}"
        f" Scheduler={info.scheduler}",
        f"Partition={partition} AllocNode:Sid={info.alloc_node}:{info.sid}",
        *_reallocation_line(info),
        *_economic_line(job, info),
        f"ReqNodeList={compress(request.include) if request.include else '(null)'} "
        f"ExcNodeList={compress(request.exclude) if request.exclude else '(null)'}",
        node_line,
    ]
    if started:
        lines.append(f"BatchHost={_node_names(platform, job)[0]}")
    lines += [
        f"NumNodes={numnodes} NumCPUs={cpus} NumTasks={tasks} "
        f"CPUs/Task={request.cpus_per_task} ReqB:S:C:T=0:0:*:*",
        f"TRES={tres}",
        f"Socks/Node=* NtasksPerN:B:S:C={request.tasks_per_node}:0:*:* CoreSpec=*",
        f"MinCPUsNode={min_cpus} {memory_key}={_megabytes(memory_min)} "
        f"MinTmpDiskNode={_megabytes(extras.tmp_mb)}",
        f"Features={extras.features or '(null)'} DelayBoot=00:00:00",
        f"OverSubscribe={'NO' if request.exclusive else 'OK'} "
        f"Contiguous={int(extras.contiguous)} Licenses={extras.licenses or '(null)'} "
        "Network=(null)",
        f"Command={info.command}",
        f"WorkDir={info.work_dir}",
        *([f"Comment={extras.comment} "] if extras.comment else []),
        f"StdErr={stderr}",
        f"StdIn={info.stdin}",
        f"StdOut={stdout}",
        f"Power={extras.power}",
        *_tres_lines(extras),
    ]
    if one_liner:
        return " ".join(lines) + " \n"
    return lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "   \n\n"


def _economic_line(job: Job, info: JobInfo) -> list[str]:
    """batchlab's own line for an economic job (its ``--min-speed``, ``--price-cap``,
    ``--budget``) or a job on a priced platform (``Cost=``, so far while it runs)."""
    fields = []
    economic = job.request.economic
    if economic is not None:
        fields.append(f"MinSpeed={economic.min_speed:g}")
        cap, budget = economic.price_cap, economic.budget
        fields.append(f"PriceCap={'(null)' if cap is None else f'{cap:g}'}")
        fields.append(f"Budget={'(null)' if budget is None else f'{budget:.1f}'}")
    if info.cost is not None:
        fields.append(f"Cost={info.cost:.1f}")
    return [" ".join(fields)] if fields else []


def _megabytes(mb: int) -> str:
    """A size in MiB as Slurm prints it (``convert_num_unit``, exact): 0, 500M, 2G, 1T."""
    for unit, size in (("T", 1 << 20), ("G", 1 << 10)):
        if mb and mb % size == 0:
            return f"{mb // size}{unit}"
    return f"{mb}M" if mb else "0"


def _tres_lines(extras: JobExtras) -> list[str]:
    """The lines after ``Power=`` that Slurm prints only when set: GPUs per job, node or task,
    then the mail settings."""
    lines = [
        f"{key}={value}"
        for key, value in (
            ("TresPerJob", extras.tres_per_job),
            ("TresPerNode", extras.tres_per_node),
            ("TresPerTask", extras.tres_per_task),
        )
        if value
    ]
    if extras.mail_type:
        lines.append(f"MailUser={extras.mail_user} MailType={extras.mail_type}")
    return lines


def _reallocation_line(info: JobInfo) -> list[str]:
    """batchlab's own line for a job a grid policy moved between clusters (Slurm has no such
    thing): how many times, and the clusters it left, in order."""
    left = info.reallocated_from
    if not left:
        return []
    return [f"Reallocations={len(left)} ReallocatedFrom={','.join(left)}"]


def scontrol_show_node(
    platform: Platform,
    jobs: Iterable[Job] = (),
    *,
    names: Sequence[str] | None = None,
    origin: float = 0.0,
    infos: Mapping[str, NodeInfo] | None = None,
    statuses: Mapping[int, NodeStatus] | None = None,
) -> str:
    """``scontrol show node [name]``; an unknown name prints ``Node X not found``. A node out
    of service (``statuses``, by node id) shows ``+DRAIN`` or ``DOWN`` and a ``Reason=`` line."""
    cluster = platform.clusters[0]
    used = _used_cores(jobs)
    statuses = statuses or {}
    out: list[str] = []
    by_name = {node.name: node for node in cluster.nodes}
    for name in names if names is not None else list(by_name):
        node = by_name.get(name)
        if node is None:
            out.append(f"Node {name} not found\n")
            continue
        info = (infos or {}).get(node.name, NodeInfo())
        alloc = used.get(node.id, 0)
        status = statuses.get(node.id)
        state = _show_node_state(node, used, status)
        parts = ",".join(p.name for p in cluster.partitions if node.local in p.nodes)
        free = info.free_mem if info.free_mem is not None else node.memory_mb
        port = f" Port={info.port}" if info.port is not None else ""
        alloc_tres = f"cpu={alloc}" if alloc else ""
        lines = [
            f"NodeName={node.name} Arch={info.arch} CoresPerSocket={node.cores} ",
            f"CPUAlloc={alloc} CPUEfctv={node.cores} CPUTot={node.cores} "
            f"CPULoad={info.cpu_load:.2f}",
            "AvailableFeatures=(null)",
            "ActiveFeatures=(null)",
            "Gres=(null)",
            f"NodeAddr={node.name} NodeHostName={node.name}{port} Version={info.version}",
            f"OS={info.os} ",
            f"RealMemory={node.memory_mb} AllocMem=0 FreeMem={free} Sockets=1 Boards=1",
            f"State={state} ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A",
            f"Partitions={parts} ",
            f"BootTime={format_timestamp(info.boot_time, origin, 'None')} "
            f"SlurmdStartTime={format_timestamp(info.slurmd_start_time, origin, 'None')}",
            f"LastBusyTime={format_timestamp(info.last_busy_time, origin, 'None')}",
            f"CfgTRES=cpu={node.cores},mem={node.memory_mb}M,billing={node.cores}",
            f"AllocTRES={alloc_tres}",
            "CapWatts=n/a",
            "CurrentWatts=0 AveWatts=0",
            "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s",
        ]
        if status is not None:
            stamp = format_timestamp(status.since, origin)
            lines.append(f"Reason={status.reason} [{status.user}@{stamp}]")
        out.append(lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "\n")
    return "".join(out)


def scontrol_show_partition(platform: Platform, names: Sequence[str] | None = None) -> str:
    """``scontrol show partition [name]``; an unknown name prints ``Partition X not found``."""
    cluster = platform.clusters[0]
    out: list[str] = []
    for name in names if names is not None else [p.name for p in cluster.partitions]:
        partition = cluster.partition(name)
        if partition is None:
            out.append(f"Partition {name} not found\n")
            continue
        nodes = _partition_nodes(cluster, partition)
        cpus = sum(n.cores for n in nodes)
        memory = sum(n.memory_mb for n in nodes)
        default_time = (
            "NONE"
            if partition.default_time is None
            else format_duration_long(partition.default_time)
        )
        lines = [
            f"PartitionName={partition.name}",
            "AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL",
            f"AllocNodes=ALL Default={'YES' if partition.default else 'NO'} QoS=N/A",
            f"DefaultTime={default_time} DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO",
            f"MaxNodes=UNLIMITED MaxTime={format_duration_long(partition.max_time)} MinNodes=0 "
            "LLN=NO MaxCPUsPerNode=UNLIMITED",
            f"Nodes={compress(n.name for n in nodes)}",
            "PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO",
            "OverTimeLimit=NONE PreemptMode=OFF",
            f"State=UP TotalCPUs={cpus} TotalNodes={len(nodes)} SelectTypeParameters=NONE",
            "JobDefaults=(null)",
            "DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED",
            f"TRES=cpu={cpus},mem={memory}M,node={len(nodes)},billing={cpus}",
        ]
        out.append(lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "\n")
    return "".join(out)


def scontrol_show_config(
    settings: Sequence[tuple[str, str]], *, now: float, origin: float = 0.0, host: str = "localhost"
) -> str:
    """``scontrol show config``: ``Key = Value`` lines (keys padded to 23) between Slurm's
    header and its ``Slurmctld(primary) at HOST is UP`` footer."""
    lines = [f"Configuration data as of {format_timestamp(now, origin)}"]
    lines += [f"{key:<23} = {value}" for key, value in settings]
    lines += ["", f"Slurmctld(primary) at {host} is UP"]
    return "".join(line + "\n" for line in lines)


@dataclass(frozen=True, slots=True)
class LinkInfo:
    """One inter-cluster link (models.md §3): the named cluster's link to the central switch,
    its load now, and its load history summed up since simulated time 0."""

    cluster: str
    capacity: float  # MBW_k; math.inf = unlimited
    used: float  # ΣBW_j^k of the jobs running on it now
    jobs: tuple[tuple[int, float], ...]  # (job id, BW_j^k) of each job loading it now
    peak_used: float
    mean_used: float
    saturated_time: float  # seconds with demand over capacity


def _bandwidth(value: float, unit: str) -> str:
    return "UNLIMITED" if math.isinf(value) else f"{value:g}{unit}"


def scontrol_show_link(links: Sequence[LinkInfo], unit: str) -> str:
    """``scontrol show link`` (a batchlab addition), laid out as ``show partition``: each link's
    capacity, use, load (used / capacity), whether it is saturated, the slowdown SC_k it puts on
    communication (OAS eq. 5–6), the jobs that load it with their bandwidth, and its history."""
    out: list[str] = []
    for link in links:
        load = 0.0 if math.isinf(link.capacity) else 100.0 * link.used / link.capacity
        saturated = link.used > link.capacity
        slowdown = link_slowdown(link.capacity, link.used)
        ids = ",".join(str(job_id) for job_id, _ in link.jobs) or "(null)"
        shares = ",".join(f"{job_id}:{bw:g}{unit}" for job_id, bw in link.jobs) or "(null)"
        lines = [
            f"LinkName={link.cluster} Cluster={link.cluster}",
            f"Capacity={_bandwidth(link.capacity, unit)} Used={_bandwidth(link.used, unit)} "
            f"Load={load:.1f}% Saturated={'YES' if saturated else 'NO'} Slowdown={slowdown:g}",
            f"ActiveFlows={len(link.jobs)} JobIds={ids} JobBandwidth={shares}",
            f"PeakUsed={_bandwidth(link.peak_used, unit)} "
            f"MeanUsed={_bandwidth(link.mean_used, unit)} "
            f"SaturatedTime={format_duration_long(link.saturated_time)}",
        ]
        out.append(lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:]) + "\n")
    return "".join(out)
