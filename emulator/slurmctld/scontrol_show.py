"""``scontrol show``: job, node, partition, config, hostnames, hostlist, and batchlab's ``link``.

``show config`` prints the settings batchlab emulates (a subset of Slurm's list, in Slurm's order
and layout); ``SchedulerType`` is the scheduler spec in use, which ``scontrol update
scheduler=SPEC`` changes. ``show link [CLUSTER]`` prints each inter-cluster link's load now
(:func:`~emulator.slurm.formats.scontrol_show_link`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from emulator.metrics import link_usage
from emulator.model.cost import job_cost, priced
from emulator.model.hostlist import HostlistError, compress, expand
from emulator.model.job import JobState
from emulator.slurm.formats import (
    LinkInfo,
    scontrol_show_config,
    scontrol_show_job,
    scontrol_show_link,
    scontrol_show_node,
    scontrol_show_partition,
)
from emulator.slurm.formats.jobs import task_ranges
from emulator.slurm.sbatch_options import MAX_ARRAY_SIZE
from emulator.slurmctld.common import fail, sched_view, split_list
from emulator.slurmctld.controller import MIN_JOB_AGE, VERSION, CommandResult, Controller

__all__ = ["show"]


def show(ctl: Controller, rest: list[str], k: int, one_liner: bool) -> CommandResult:
    """``scontrol show ENTITY [NAMES]``; ``k`` is the cluster ``-M`` chose (the local one)."""
    if not rest:
        return fail(
            "scontrol: error: show what? (job, node, partition, config, link, hostnames, hostlist)"
        )
    entity, names = rest[0].lower(), rest[1:]
    if entity in ("job", "jobs"):
        return _show_job(ctl, names, one_liner)
    if entity in ("node", "nodes"):
        out: list[str] = []
        missing = False
        if names:
            for name in split_list(names):
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
    if entity in ("config", "conf"):
        return CommandResult(_config_text(ctl, k))
    if entity in ("link", "links"):
        return _show_links(ctl, names, one_liner)
    if entity == "hostnames":
        try:
            hosts = expand(",".join(names))  # one bound on all the names together
        except HostlistError:
            return fail("scontrol: error: Invalid hostlist")
        return CommandResult("".join(h + "\n" for h in hosts))
    if entity == "hostlist":
        hosts = split_list(names)
        return CommandResult(compress(hosts) + "\n" if hosts else "")
    return fail(f"invalid entity:{rest[0]} for keyword:show")


def _one_line(text: str) -> str:
    blocks = [b for b in text.split("\n\n") if b.strip()]
    return "".join(
        " ".join(part.strip() for part in b.split("\n") if part.strip()) + "\n" for b in blocks
    )


def _node_text(ctl: Controller, k: int, names: list[str] | None, one_liner: bool) -> str:
    platform = ctl.cluster_platform(k)
    text = scontrol_show_node(
        platform,
        ctl.running_views(k),
        names=names,
        origin=ctl.origin,
        statuses=ctl.node_statuses(k),
    )
    return _one_line(text) if one_liner else text


def _show_job(ctl: Controller, names: list[str], one_liner: bool) -> CommandResult:
    if names:
        engine_ids: list[int] = []
        for spec in split_list(names):
            found = ctl.resolve(spec)
            if found is None:
                return fail(f"scontrol: error: Invalid job id specified: {spec}")
            shown = [eid for eid in found if ctl.visible(ctl.records[eid])]
            base, task, _ = spec.partition("_")
            if task and not shown and base.isdecimal() and ctl.record_ids(int(base)):
                return CommandResult(f"Job {spec} not found\n", "", 1)  # the array is known
            engine_ids.extend(shown)
        if not engine_ids:
            return fail("slurm_load_jobs error: Invalid job id specified")
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
    ranges = _whole_array_order(ctl, engine_ids) if names else {}
    for eid in engine_ids:
        record = ctl.records[eid]
        k = ctl.views.cluster_of(record)
        job, info = sched_view(ctl, record, k)
        moved_from = ctl.engine.jobs[record.engine_id].moved_from  # the view keeps no history
        if moved_from:
            left = tuple(ctl.platform.clusters[m].name for m in moved_from)
            info = replace(info, reallocated_from=left)
        if priced(ctl.platform):
            cost = job_cost(ctl.platform, ctl.engine.jobs[record.engine_id], ctl.now)
            info = replace(info, cost=cost)
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
            task_range=ranges.get(eid),
        )
        text = _every_node(ctl, record.engine_id, text)
        if job.explanation:  # batchlab's addition: the scheduler's last word on the job
            line = f"Explanation={job.explanation}"
            if one_liner:
                text = text.rstrip("\n") + f" {line}\n"
            else:
                text = text.replace("\n   Power=\n", f"\n   {line}\n   Power=\n", 1)
        out.append(text)
    return CommandResult("".join(out))


def _whole_array_order(ctl: Controller, engine_ids: list[int]) -> dict[int, str]:
    """``scontrol show job ARRAY``'s order, in place: the record of the pending tasks first,
    then the other tasks, latest id first, as 22.05 lists them. Returns the pending record's
    task range (``3-5%2``) by engine id."""
    jobs = [ctl.engine.jobs[eid] for eid in engine_ids]
    arrays = {job.request.array.array_id if job.request.array else None for job in jobs}
    if len(engine_ids) < 2 or len(arrays) != 1 or None in arrays:
        return {}
    pending = [job for job in jobs if job.state is JobState.PENDING]
    others = sorted(
        (job for job in jobs if job.state is not JobState.PENDING),
        key=lambda job: ctl.records[job.id].slurm_id,
        reverse=True,
    )
    engine_ids[:] = [job.id for job in pending[:1] + others + pending[1:]]
    if not pending:
        return {}
    array = pending[0].request.array
    assert array is not None
    text = task_ranges(sorted(job.request.array.task_id for job in pending if job.request.array))
    throttle = f"%{array.max_running}" if array.max_running else ""
    return {pending[0].id: text + throttle}


def _every_node(ctl: Controller, engine_id: int, text: str) -> str:
    """``text`` with ``NodeList=`` naming every node of a job co-allocated over clusters, and
    ``NumNodes=`` counting them (the cluster's view of the job, which the text was made from,
    keeps its own nodes only)."""
    engine_job = ctl.engine.jobs[engine_id]
    nodes = ctl.platform.nodes
    if len({nodes[n].cluster for n in engine_job.nodes}) < 2:
        return text
    every = compress(nodes[n].name for n in engine_job.nodes)
    text = _NODE_LIST.sub(f"NodeList={every}", text, count=1)
    return _NUM_NODES.sub(f"NumNodes={len(engine_job.nodes)}", text, count=1)


_NODE_LIST = re.compile(r"\bNodeList=\S*")  # (not ReqNodeList= nor ExcNodeList=)
_NUM_NODES = re.compile(r"\bNumNodes=\S*")


def _config_text(ctl: Controller, k: int) -> str:
    cluster = ctl.platform.clusters[k]
    settings = [
        ("ClusterName", cluster.name),
        ("EnforcePartLimits", "NO"),
        ("FirstJobId", "1"),
        ("MaxArraySize", str(MAX_ARRAY_SIZE)),
        ("MaxNodeCount", str(len(cluster.nodes))),
        ("MinJobAge", f"{MIN_JOB_AGE:.0f} sec"),
        ("NEXT_JOB_ID", str(ctl.next_job_id)),
        ("PriorityType", "priority/basic"),
        ("SchedulerType", str(ctl.engine.spec)),
        ("SelectType", "select/cons_tres"),
        ("SelectTypeParameters", "CR_CORE"),
        ("SLURM_VERSION", VERSION.rsplit(" ", 1)[-1]),
    ]
    return scontrol_show_config(settings, now=ctl.now, origin=ctl.origin, host=ctl.alloc_node)


def _show_links(ctl: Controller, names: list[str], one_liner: bool) -> CommandResult:
    out: list[str] = []
    missing = False
    for name in split_list(names) or [c.name for c in ctl.platform.clusters]:
        cluster = ctl.platform.cluster(name)
        if cluster is None:
            out.append(f"Link {name} not found\n")
            missing = True
            continue
        text = scontrol_show_link([_link(ctl, cluster.index)], ctl.platform.bandwidth_unit)
        out.append(_one_line(text) if one_liner else text)
    return CommandResult("".join(out), "", 1 if missing else 0)


def _link(ctl: Controller, k: int) -> LinkInfo:
    """Link ``k`` now, from the engine's fluid network; jobs by their Slurm ids."""
    network = ctl.engine.network
    jobs = []
    for flow in network.flows.values():
        for cluster, bandwidth in flow.links:
            if cluster == k:
                record = ctl.records.get(flow.job.id)
                jobs.append((flow.job.id if record is None else record.slurm_id, bandwidth))
    capacity, used = network.capacity[k], network.used[k]
    history = link_usage(network.history[k], capacity, 0.0, ctl.now)
    return LinkInfo(
        cluster=ctl.platform.clusters[k].name,
        capacity=capacity,
        used=used,
        jobs=tuple(sorted(jobs)),
        peak_used=max(history.peak_used, used),
        mean_used=history.mean_used,
        saturated_time=history.saturated_fraction * ctl.now,
    )
