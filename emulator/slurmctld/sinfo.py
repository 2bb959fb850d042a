"""``sinfo``: partitions and nodes (default, ``-s``, ``-N``, ``-l``, ``-R``)."""

from __future__ import annotations

from emulator.slurm.formats import sinfo
from emulator.slurmctld.common import chosen_clusters, parse_options, split_list
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["run"]


def run(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    parsed = parse_options(
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
    given, _ = parsed
    cluster_values = given.values("-M", "--clusters")
    chosen = chosen_clusters(ctl, "sinfo", cluster_values[-1] if cluster_values else None)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, named = chosen
    partition_values = given.values("-p", "--partition")
    partitions = split_list(partition_values) if partition_values else None
    long = given.has("-l", "--long")
    if given.has("-R", "--list-reasons"):
        mode = "reasons"
    elif given.has("-s", "--summarize"):
        mode = "summary"
    elif given.has("-N", "--Node"):
        mode = "nodes-long" if long else "nodes"
    else:
        mode = "long" if long else "default"
    tables = []
    for k in clusters:
        platform = ctl.cluster_platform(k)
        text = sinfo(
            platform,
            ctl.running_views(k),
            mode=mode,
            now=ctl.now,
            origin=ctl.origin,
            partitions=partitions,
            statuses=ctl.node_statuses(k),
        )
        if given.has("-h", "--noheader"):
            lines = text.splitlines(keepends=True)
            header_at = 1 if mode in ("long", "nodes-long") else 0
            text = "".join(lines[:header_at] + lines[header_at + 1 :])
        if named:
            text = f"CLUSTER: {platform.clusters[0].name}\n{text}"
        tables.append(text)
    return CommandResult("\n".join(tables))
