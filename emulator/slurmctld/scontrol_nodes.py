"""``scontrol update NodeName=HOSTLIST State=DRAIN|DOWN|RESUME [Reason=TEXT]``: operators take
nodes out of service and put them back (the engine's :mod:`~emulator.engine.node_control`).

``DRAIN`` lets running jobs finish and starts no new ones there (sinfo ``drng``, then ``drain``);
``DOWN`` also kills the jobs running there (NODE_FAIL), but for those submitted with
``sbatch --requeue``, which are queued again; ``RESUME`` (or ``UNDRAIN``, ``IDLE``)
puts a drained or down node back. Draining or downing needs a ``Reason``, as in Slurm.
"""

from __future__ import annotations

from emulator.engine import NodeStateError
from emulator.model.hostlist import HostlistError, expand
from emulator.slurmctld.common import fail, unsupported
from emulator.slurmctld.controller import CommandResult, Context, Controller

__all__ = ["update_nodes"]

_OUT = ("DRAIN", "DOWN")
_BACK = ("RESUME", "UNDRAIN", "IDLE")


def update_nodes(ctl: Controller, rest: list[str], ctx: Context, k: int) -> CommandResult:
    """Apply one node update on cluster ``k`` (the one ``-M`` chose); all or nothing."""
    values: dict[str, str] = {}
    for word in rest:
        key, eq, value = word.partition("=")
        if not eq or key.lower() not in ("nodename", "state", "reason"):
            return unsupported(word)
        values[key.lower()] = value
    state = values.get("state", "").upper()
    if state not in _OUT + _BACK:
        return fail(
            f"Invalid input: State={values.get('state', '')}\nRequest aborted\n"
            f"Valid states are: {' '.join(sorted(_OUT + _BACK))}"
        )
    reason = values.get("reason", "")
    if state in _OUT and not reason:
        return fail("You must specify a reason when DOWNING or DRAINING a node. Request denied")
    if not ctl.is_operator(ctx.user):
        return fail("slurm_update error: Access/permission denied")
    by_name = {node.name: node.id for node in ctl.platform.clusters[k].nodes}
    try:
        node_ids = [by_name[name] for name in expand(values.get("nodename", ""))]
    except (HostlistError, KeyError):
        node_ids = []  # the engine refuses it: Invalid node name specified
    try:
        if state == "DRAIN":
            ctl.engine.drain(node_ids, reason, ctx.user)
        elif state == "DOWN":
            for job in ctl.engine.down(node_ids, reason, ctx.user):
                record = ctl.records.get(job.id)
                if record is not None and record.extras.requeue:  # sbatch --requeue
                    ctl.engine.requeue(job.id)
        else:
            ctl.engine.resume(node_ids)
    except NodeStateError as error:
        return fail(f"slurm_update error: {error}")
    return CommandResult()
