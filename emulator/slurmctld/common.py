"""What the command modules share: option parsing with the Slurm tools' messages, ``-M``
clusters, permission checks, dependencies as Slurm keeps them, and backfill's view of a pending
job (its planned nodes)."""

from __future__ import annotations

import getopt
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from emulator.model.hostlist import compress
from emulator.model.job import Dependencies, DependencyKind, Job, JobState, Reason, Request
from emulator.slurm.formats import JobInfo
from emulator.slurmctld.controller import VERSION, CommandResult, Context, Controller, JobRecord

__all__ = [
    "Given",
    "Handler",
    "chosen_clusters",
    "denied",
    "fail",
    "known_dependency",
    "parse_options",
    "plan_nodes",
    "sched_view",
    "split_list",
    "unsupported",
]

Handler = Callable[[Controller, list[str], Context], CommandResult]
# Read for every pending job of a long queue (squeue), so bound once: see controller.PENDING.
PENDING, BEGIN_TIME = JobState.PENDING, Reason.BEGIN_TIME
_PLANNED = (Reason.RESOURCES, Reason.PRIORITY)  # the reasons of a job backfill has planned


def fail(text: str, code: int = 1, stdout: str = "") -> CommandResult:
    """A refusal: ``text`` on stderr (one newline added if missing), exit ``code``."""
    return CommandResult(stdout, text if text.endswith("\n") or not text else text + "\n", code)


def format_from_names(text: str, fields: Mapping[str, str]) -> str | None:
    """squeue's and sinfo's ``-O name[:[.]width],...`` as the ``-o`` format that prints the
    same (default width 20, no separator); None if a name or width is not known."""
    pieces = []
    for item in text.split(","):
        name, _, width = item.partition(":")
        code = fields.get(name.lower())
        if code is None:
            return None
        right = width.startswith(".")
        digits = width.lstrip(".") or "20"
        if not digits.isdecimal():
            return None
        pieces.append(f"%{'.' if right else ''}{digits}{code}")
    return "".join(pieces)


def unsupported(word: str) -> CommandResult:
    """scontrol update's refusal of a ``KEY=VALUE`` it does not know."""
    return fail(f"Update of this parameter is not supported: {word}\nRequest aborted")


class Given:
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


def parse_options(
    command: str, args: list[str], short: str, long: Sequence[str]
) -> tuple[Given, list[str]] | CommandResult:
    """GNU getopt with the Slurm tools' messages on error; the options and the operands.

    What every tool answers alike is answered here: ``-V``/``--version`` prints the version,
    and ``--json``/``--yaml`` (for the tools that take them) are refused: batchlab prints text.
    """
    try:
        opts, rest = getopt.gnu_getopt(args, short, list(long))
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
        return fail(f'{line}\nTry "{command} --help" for more information', 1)
    given = Given(opts)
    if given.has("-V", "--version"):
        return CommandResult(VERSION + "\n")
    if given.has("--json", "--yaml"):
        return fail(f"{command}: error: --json and --yaml are not emulated by batchlab")
    return given, rest


def split_list(values: Iterable[str]) -> list[str]:
    """Comma lists, as repeated options give them, as one list (empty items dropped)."""
    return [item for value in values for item in value.split(",") if item]


def chosen_clusters(
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
            return fail(
                f"{command}: error: '{name}' can't be reached now, or it is an invalid entry for "
                "--cluster.  Use 'sacctmgr list clusters' to see available clusters."
            )
        indexes.append(cluster.index)
    return indexes, True


def denied(ctl: Controller, record: JobRecord, user: str) -> bool:
    """A user acts on their own jobs only; an operator on all."""
    return not ctl.is_operator(user) and record.user != user


def plan_nodes(ctl: Controller, k: int, request: Request, start: float) -> str:
    """The nodes a job starting at ``start`` would get: the lowest-numbered ones whose cores
    are free by then (running jobs' expected ends), as Slurm's select plugin picks them."""
    cluster = ctl.platform.clusters[k]
    partition = (
        cluster.partition(request.partition) if request.partition else None
    ) or cluster.default_partition
    busy: dict[int, int] = {}
    for job in ctl.engine.clusters[k].running:  # those with nodes here, co-allocated ones too
        if job.expected_end > start:
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


def known_dependency(ctl: Controller, dependency: Dependencies | None) -> Dependencies | None:
    """Slurm 22.05 drops the terms naming jobs it never had (the samples' job 20), and marks
    those naming an array (``afterok:1_*``)."""
    if dependency is None:
        return None
    terms = tuple(
        replace(term, whole_array=term.task_id is None and term.job_id in ctl.arrays)
        for term in dependency.terms
        if term.kind is DependencyKind.SINGLETON or ctl.dependency_targets(term)
    )
    return Dependencies(terms, dependency.any_of) if terms else None


def sched_view(ctl: Controller, record: JobRecord, k: int) -> tuple[Job, JobInfo]:
    """The view plus what backfill would show: a planned start's nodes, a begin time."""
    job, info = ctl.views.view(record)
    if job.state is PENDING:
        if job.reason is BEGIN_TIME and math.isnan(job.planned_start):
            job = replace(job, planned_start=job.request.begin)  # a copy: it may be the engine's
        elif math.isfinite(job.planned_start) and job.reason in _PLANNED:  # (inf: never, as yet)
            engine_job = ctl.engine.jobs[record.engine_id]
            nodes = (
                compress([ctl.platform.nodes[n].name for n in engine_job.planned_nodes])
                if engine_job.planned_nodes  # the policy's own choice
                else plan_nodes(ctl, k, engine_job.request, job.planned_start)
            )
            info = replace(info, sched_nodes=nodes, scheduler="Backfill:*")
    return job, info
