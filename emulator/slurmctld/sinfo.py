"""``sinfo``: partitions and nodes (default, ``-s``, ``-N``, ``-l``, ``-R``)."""

from __future__ import annotations

from emulator.slurm.formats import sinfo
from emulator.slurmctld.common import chosen_clusters, fail, parse_options, split_list
from emulator.slurmctld.controller import VERSION, CommandResult, Context, Controller

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
    opts, _ = parsed
    flags = {option for option, _ in opts}
    if flags & {"-V", "--version"}:
        return CommandResult(VERSION + "\n")
    if flags & {"--json", "--yaml"}:
        return fail("sinfo: error: --json and --yaml are not emulated by batchlab")
    cluster_value = next((v for o, v in reversed(opts) if o in ("-M", "--clusters")), None)
    chosen = chosen_clusters(ctl, "sinfo", cluster_value)
    if isinstance(chosen, CommandResult):
        return chosen
    clusters, named = chosen
    partition_values = [v for o, v in opts if o in ("-p", "--partition")]
    partitions = split_list(partition_values) if partition_values else None
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
        text = sinfo(
            platform,
            ctl.running_views(k),
            mode=mode,
            now=ctl.now,
            origin=ctl.origin,
            partitions=partitions,
        )
        if flags & {"-h", "--noheader"}:
            lines = text.splitlines(keepends=True)
            header_at = 1 if mode in ("long", "nodes-long") else 0
            text = "".join(lines[:header_at] + lines[header_at + 1 :])
        if named:
            text = f"CLUSTER: {platform.clusters[0].name}\n{text}"
        tables.append(text)
    return CommandResult("\n".join(tables))
