"""``sinfo``: partitions and nodes (default, ``-s``, ``-N``, ``-l``, ``-R``, ``-o``, ``-O``)."""

from __future__ import annotations

from emulator.slurm.formats import sinfo
from emulator.slurm.formats.sinfo_format import O_FIELDS, sinfo_format
from emulator.slurmctld.common import (
    chosen_clusters,
    fail,
    format_from_names,
    parse_options,
    split_list,
)
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["run"]


def run(ctl: Controller, args: list[str], ctx: Context) -> CommandResult:
    parsed = parse_options(
        "sinfo",
        args,
        "hlM:Np:RsVo:O:",
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
            "format=",
            "Format=",
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
    fmt = (given.values("-o", "--format") or [ctx.env.get("SINFO_FORMAT", "")])[-1]
    names = (given.values("-O", "--Format") or [ctx.env.get("SINFO_FORMAT2", "")])[-1]
    if names:
        fmt = format_from_names(names, O_FIELDS) or ""
        if not fmt:
            return fail(f"sinfo: error: Invalid node format specification: {names}")
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
        if fmt and mode not in ("reasons", "summary"):
            text = sinfo_format(
                platform,
                ctl.running_views(k),
                fmt,
                node_oriented=given.has("-N", "--Node"),
                partitions=partitions,
                statuses=ctl.node_statuses(k),
                header=not given.has("-h", "--noheader"),
            )
            tables.append(f"CLUSTER: {platform.clusters[0].name}\n{text}" if named else text)
            continue
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
