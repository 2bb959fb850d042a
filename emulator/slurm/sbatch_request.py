"""From sbatch's options to the model: the :class:`~emulator.model.job.Request` and its parts.

Kept apart from parsing: this is the one place that knows both what sbatch understood and the
model's job request, with the cluster's partition defaults filled in.
"""

from __future__ import annotations

import math
from dataclasses import replace

from emulator.model.job import (
    ArrayTask,
    Communication,
    Dependencies,
    Economic,
    Moldable,
    Request,
)
from emulator.model.platform import Cluster
from emulator.slurm.formats import JobExtras
from emulator.slurm.sbatch_values import ArraySpec, SbatchError, SbatchOptions, _rejected


def to_request(
    options: SbatchOptions,
    user: str,
    cluster: Cluster,
    *,
    pinned: bool = False,
    dependencies: Dependencies | None = None,
) -> Request:
    """The model request for ``options``, with ``cluster``'s partition defaults filled in,
    charged to ``-A`` or else to ``user``. What the controller decides comes in too, so that
    the request is built once (a frozen one costs about 10 us): whether the job is ``pinned``
    to ``cluster`` (else any cluster may run it) and its ``dependencies`` in the controller's
    job ids (``options.dependency`` names the ids the user gave).

    Raises the controller's rejections that do not depend on the cluster's state: unknown
    partition (``invalid partition specified`` + ``Invalid partition name specified``) and
    ``-N 0`` (``Node count specification invalid``). Over-limit jobs are accepted, as with
    Slurm's default ``EnforcePartLimits=NO``. Arrays: see :func:`array_requests`.
    """
    name = options.partitions[0] if options.partitions else cluster.default_partition.name
    partition = cluster.partition(name)
    if partition is None:
        raise SbatchError(
            [
                f"sbatch: error: invalid partition specified: {name}",
                "sbatch: error: Batch job submission failed: Invalid partition name specified",
            ],
            1,
        )
    if options.nodes_min == 0:
        raise _rejected("Node count specification invalid")
    nodes = options.nodes_min or 0
    # -N MIN-MAX: the scheduler picks the count when the job starts (plans with MIN)
    most = options.nodes_max if options.nodes_max and options.nodes_max > nodes else 0
    follow = bool(most) and options.ntasks is None
    if options.ntasks is not None:
        tasks = options.ntasks
    else:
        tasks = (options.ntasks_per_node or 1) * max(nodes, 1)
    if options.time_limit is not None:
        limit = options.time_limit
    elif partition.default_time is not None:
        limit = partition.default_time
    else:
        limit = partition.max_time
    return Request(
        tasks=tasks,
        cpus_per_task=options.cpus_per_task or 1,
        time_limit=limit,
        name=options.default_name,
        user=user,
        account=options.account or user,
        partition=partition.name if options.partitions else "",
        clusters=(cluster.name,) if pinned else (),
        min_nodes=nodes,
        max_nodes=most,
        tasks_follow_nodes=follow,
        tasks_per_node=options.ntasks_per_node or 0,
        memory_mb=options.memory_mb or 0,
        features=options.constraint or "",
        gpus_per_node=gpus_per_node(options, tasks, nodes),
        exclusive=options.exclusive,
        include=options.include,
        exclude=options.exclude,
        begin=options.begin or 0.0,
        deadline=options.deadline if options.deadline is not None else math.inf,
        dependencies=dependencies,
        held=options.hold,
        time_min=min(options.time_min, limit) if options.time_min else 0.0,
        moldable=moldable(options),
        economic=economic(options),
        origin=options.home_site or "",
    )


def array_requests(request: Request, spec: ArraySpec, array_id: int) -> list[Request]:
    """One request per array task, each with its :class:`ArrayTask`."""
    return [
        replace(request, array=ArrayTask(array_id, index, spec.max_running))
        for index in spec.indexes
    ]


def emulated_runtime(options: SbatchOptions, time_limit: float) -> float:
    """How long the emulated job really runs: ``--emulate-runtime``, else the script's summed
    ``sleep`` lines, else its time limit."""
    if options.emulate_runtime is not None:
        return options.emulate_runtime
    if options.sleep_total is not None:
        return options.sleep_total
    return time_limit


def moldable(options: SbatchOptions) -> Moldable | None:
    """The BPU request of a job given ``--bpu`` (BPU paper), else ``None``."""
    if options.bpu is None:
        return None
    return Moldable(options.bpu, options.bpu_serial or 0.0)


def economic(options: SbatchOptions) -> Economic | None:
    """The economic request of a job given ``--min-speed``, ``--price-cap`` or ``--budget``
    (ALP/AMP paper), else ``None``."""
    if options.min_speed is None and options.price_cap is None and options.budget is None:
        return None
    return Economic(options.min_speed or 0.0, options.price_cap, options.budget)


def communication(options: SbatchOptions, base_time: float) -> Communication | None:
    """The BSP parameters of a job given ``--bsp-sigma`` or ``--bsp-task-bw`` (OAS paper §3.1),
    with ``base_time`` (its emulated runtime) as Tb; ``None`` for any other job."""
    if options.bsp_sigma is None and options.bsp_task_bw is None:
        return None
    sigma = 1.0 if options.bsp_sigma is None else options.bsp_sigma
    return Communication(base_time, sigma, options.bsp_task_bw or 0.0)


def gpus_per_node(options: SbatchOptions, tasks: int, nodes: int) -> int:
    """The GPUs each of the job's nodes must have: ``--gres=gpu:N`` or ``--gpus-per-node``;
    else ``--gpus`` spread evenly over ``-N`` nodes (rounded up), or ``--gpus-per-task`` times
    the tasks on a node (all of them, for a job of one node)."""
    if options.gpus_per_node is not None:
        return options.gpus_per_node
    if options.gpus is not None:
        return math.ceil(options.gpus / max(nodes, 1))
    if options.gpus_per_task is not None:
        per_node = options.ntasks_per_node or (tasks if nodes <= 1 else math.ceil(tasks / nodes))
        return options.gpus_per_task * per_node
    return 0


def job_extras(options: SbatchOptions, user: str) -> JobExtras:
    """What ``scontrol show job`` shows of the options beyond the model's request."""
    gres = "gres:gpu:{}"
    return JobExtras(
        nice=options.nice or 0,
        requeue=options.requeue,
        time_min=options.time_min,
        features=options.constraint or "",
        mem_per_cpu=options.mem_per_cpu or 0,
        tmp_mb=options.tmp_mb or 0,
        tres_per_node=gres.format(options.gpus_per_node) if options.gpus_per_node else "",
        tres_per_job=gres.format(options.gpus) if options.gpus else "",
        tres_per_task=gres.format(options.gpus_per_task) if options.gpus_per_task else "",
        comment=options.comment or "",
        qos=options.qos or "",
        reservation=options.reservation or "",
        licenses=options.licenses or "",
        mail_type=(options.mail_type or "").upper(),
        mail_user=options.mail_user or (user if options.mail_type else ""),
        wckey=options.wckey or "",
        contiguous="contiguous" in options.given,
        power=options.power or "",
    )
