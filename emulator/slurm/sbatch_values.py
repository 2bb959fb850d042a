"""What sbatch's options parse to, and the parsers of their values.

:class:`SbatchOptions` and its value types, the parsers of single option values (numbers, node
counts, memory, dependencies, arrays, host lists) and :class:`SbatchError`, whose lines are
exactly what sbatch prints on stderr (slurm-conventions.md §1, §9). They live apart from the
option table and the request builder so that both can use them without importing each other.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from emulator.model.hostlist import HostlistError, expand
from emulator.model.job import Dependencies, Dependency, DependencyKind
from emulator.model.platform import FEATURE

MAX_ARRAY_SIZE = 1001  # the samples' MaxArraySize: indexes 0..1000


class SbatchError(Exception):
    """sbatch refused: ``lines`` are its stderr lines, ``exit_code`` its status (255 for client
    errors, 1 for rejected submissions)."""

    def __init__(self, lines: list[str] | str, exit_code: int = 255) -> None:
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        self.exit_code = exit_code
        super().__init__("\n".join(self.lines))

    @property
    def stderr(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def _error(text: str, exit_code: int = 255) -> SbatchError:
    return SbatchError(f"sbatch: error: {text}", exit_code)


def _rejected(text: str) -> SbatchError:
    return SbatchError(f"sbatch: error: Batch job submission failed: {text}", 1)


@dataclass(frozen=True, slots=True)
class ArraySpec:
    """``--array``: the task indexes (sorted, unique) and the ``%N`` running-task cap (0: none)."""

    indexes: tuple[int, ...]
    max_running: int = 0
    text: str = ""


# Not frozen: one is built per submission, and a frozen __init__ of this many fields costs about
# seven times as much. Nothing changes one once it is built.
@dataclass(slots=True)
class SbatchOptions:
    """Everything sbatch understood. ``None`` means "not given"."""

    nodes_min: int | None = None
    nodes_max: int | None = None
    ntasks: int | None = None
    cpus_per_task: int | None = None
    ntasks_per_node: int | None = None
    time_limit: float | None = None  # seconds; math.inf = no limit
    partitions: tuple[str, ...] = ()
    clusters: tuple[str, ...] = ()
    job_name: str | None = None
    account: str | None = None
    output: str | None = None
    error: str | None = None
    work_dir: str | None = None
    begin: float | None = None  # simulated seconds
    deadline: float | None = None
    dependency: Dependencies | None = None
    array: ArraySpec | None = None
    memory_mb: int | None = None  # 0 = all of the node's memory
    exclusive: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hold: bool = False
    wrap: str | None = None
    test_only: bool = False
    parsable: bool = False
    wait: bool = False
    emulate_runtime: float | None = None  # batchlab extensions: see HELP
    bsp_sigma: float | None = None
    bsp_task_bw: float | None = None
    bpu: float | None = None  # a moldable job's power x_j (BPU paper)
    bpu_serial: float | None = None
    home_site: str | None = None
    min_speed: float | None = None  # an economic job's request (ALP/AMP paper)
    price_cap: float | None = None
    budget: float | None = None
    # options that change the emulation (sbatch_request.to_request, the controller)
    mem_per_cpu: int | None = None  # MiB
    gpus_per_node: int | None = None  # --gres=gpu[:type]:N, --gpus-per-node
    gpus: int | None = None  # --gpus: the job's total
    gpus_per_task: int | None = None
    constraint: str | None = None  # -C: node features, & (and) and | (or)
    nice: int | None = None
    priority: int | None = None
    time_min: float | None = None  # seconds
    requeue: bool | None = None  # --requeue / --no-requeue; None: the cluster's JobRequeue
    # options recorded and shown where Slurm shows them
    comment: str | None = None
    qos: str | None = None
    reservation: str | None = None
    licenses: str | None = None
    mail_type: str | None = None
    mail_user: str | None = None
    wckey: str | None = None
    tmp_mb: int | None = None
    power: str | None = None
    script_path: str | None = None  # None: read from stdin, or --wrap
    script_args: tuple[str, ...] = ()
    script: str = ""  # the batch script (generated for --wrap)
    sleep_total: float | None = None  # sum of the script's ``sleep N`` lines, if any
    given: frozenset[str] = field(default_factory=frozenset)  # long names of set options

    @property
    def default_name(self) -> str:
        """``-J``, else ``wrap`` for --wrap, the script's basename, or ``sbatch`` for stdin."""
        if self.job_name is not None:
            return self.job_name
        if self.wrap is not None:
            return "wrap"
        if self.script_path is not None:
            return self.script_path.rstrip("/").rsplit("/", 1)[-1]
        return "sbatch"

    @property
    def default_output(self) -> str:
        return "slurm-%A_%a.out" if self.array is not None else "slurm-%j.out"


def _positive_int(value: str, option: str, *, zero: bool = False) -> int:
    if not value.isdecimal() or (int(value) == 0 and not zero):
        raise _error(f'Invalid numeric value "{value}" for {option}.')
    return int(value)


def _number(value: str, option: str, high: float = math.inf) -> float:
    """A finite number in ``[0, high]``; else ``Invalid <option> specification``."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0 <= number <= high or math.isinf(number):
        raise _error(f"Invalid {option} specification")
    return number


def _nodes(value: str) -> tuple[int, int | None]:
    low, dash, high = value.partition("-")
    if not low.isdecimal() or (dash and not high.isdecimal()):
        raise _error("Invalid node count specification")
    if dash and int(high) < int(low):
        raise _error("Invalid node count specification")
    return int(low), int(high) if dash else None


_MEMORY = re.compile(r"^(\d+)([KMGT]?)B?$", re.IGNORECASE)


def parse_memory(value: str) -> int:
    """``--mem`` in MiB: ``N[K|M|G|T][B]``, any case; a bare number is MiB."""
    match = _MEMORY.match(value.strip())
    if match is None:
        raise _error("Invalid --mem specification")
    number, unit = int(match[1]), match[2].upper()
    if unit == "K":
        return math.ceil(number / 1024)
    return number * {"": 1, "M": 1, "G": 1024, "T": 1024 * 1024}[unit]


_DEP_TERM = re.compile(r"^([a-z]+)((?::\d+(?:_(?:\d+|\*))?(?:\+\d+)?)+)$")


def parse_dependency(value: str) -> Dependencies:
    """``-d``: ``type:id[:id][+min]`` terms joined by ``,`` (all) or ``?`` (any); a bare id
    means ``afterany``. An id may name one array task (``1_1``) or every task (``1_*``, as a
    bare array id does). Raises the controller's ``Job dependency problem``."""
    problem = _rejected("Job dependency problem")
    if "," in value and "?" in value:
        raise problem
    any_of = "?" in value
    terms: list[Dependency] = []
    kinds = {kind.value: kind for kind in DependencyKind}
    for part in value.split("?" if any_of else ","):
        if part == "singleton":
            terms.append(Dependency(DependencyKind.SINGLETON))
            continue
        if part.isdecimal():
            terms.append(Dependency(DependencyKind.AFTER_ANY, int(part)))
            continue
        match = _DEP_TERM.match(part)
        if match is None or match[1] not in kinds or match[1] == "singleton":
            raise problem
        kind = kinds[match[1]]
        for item in match[2][1:].split(":"):
            target, plus, minutes = item.partition("+")
            if plus and kind is not DependencyKind.AFTER:
                raise problem
            job, _, task = target.partition("_")
            terms.append(
                Dependency(
                    kind,
                    int(job),
                    int(minutes) * 60.0 if plus else 0.0,
                    whole_array=task == "*",
                    task_id=int(task) if task.isdecimal() else None,
                )
            )
    return Dependencies(tuple(terms), any_of)


# nine digits at most: more is past any MaxArraySize, and is refused before int() reads it
_ARRAY_PART = re.compile(r"^([0-9]{1,9})(?:-([0-9]{1,9})(?::([0-9]{1,9}))?)?$")


def parse_array(value: str, max_array_size: int = MAX_ARRAY_SIZE) -> ArraySpec:
    """``-a 0-15,20,0-15:4%4``. Raises ``Invalid job array specification`` (exit 1)."""
    invalid = _rejected("Invalid job array specification")
    text, percent, limit = value.partition("%")
    if percent and not (limit.isdecimal() and limit.isascii() and len(limit) <= 9):
        raise invalid
    parts = text.split(",", max_array_size)
    if len(parts) > max_array_size:  # more parts than indexes there may be: refused unread
        raise invalid
    indexes: set[int] = set()
    for part in parts:
        match = _ARRAY_PART.match(part)
        if match is None:
            raise invalid
        low = int(match[1])
        high = int(match[2]) if match[2] is not None else low
        step = int(match[3]) if match[3] is not None else 1
        if high < low or step == 0 or high >= max_array_size:  # checked before expanding
            raise invalid
        indexes.update(range(low, high + 1, step))
    return ArraySpec(tuple(sorted(indexes)), int(limit) if percent else 0, value)


def _hostlist(value: str) -> tuple[str, ...]:
    if "/" in value:  # a file of names: the caller must read it
        return (value,)
    try:
        return tuple(expand(value))
    except HostlistError:
        raise _rejected("Invalid node name specified") from None


# --- the values of the options recorded for scontrol show job (messages: sbatch 22.05.8) -----

NICE_LIMIT = 2147483645  # NICE_OFFSET - 3
GRES_INVALID = "Invalid generic resource (gres) specification"
_GPU_COUNT = re.compile(r"^(?:[A-Za-z0-9_.-]+:)?(\d+)$")
_MAIL_TYPES = frozenset(
    [
        "NONE",
        "BEGIN",
        "END",
        "FAIL",
        "REQUEUE",
        "ALL",
        "INVALID_DEPEND",
        "STAGE_OUT",
        "TIME_LIMIT",
        "TIME_LIMIT_90",
        "TIME_LIMIT_80",
        "TIME_LIMIT_50",
        "ARRAY_TASKS",
    ]
)
_SIGNAL = re.compile(r"^(?:[RB]{1,2}:)?(?:SIG)?([A-Za-z0-9]+)(?:@(\d+))?$")
_SIGNALS = frozenset(
    [
        "HUP",
        "INT",
        "QUIT",
        "KILL",
        "USR1",
        "USR2",
        "TERM",
        "ALRM",
        "CONT",
        "STOP",
        "TSTP",
        "TTIN",
        "TTOU",
        "URG",
    ]
)
_HINTS = frozenset(("compute_bound", "memory_bound", "multithread", "nomultithread", "help"))
_PROFILES = frozenset(("all", "none", "energy", "lustre", "network", "task"))


def c_long(value: str) -> int:
    """C's ``strtol``: the leading (signed) integer, 0 if there is none."""
    match = re.match(r"^\s*([+-]?\d+)", value)
    return int(match[1]) if match else 0


def parse_nice(value: str | None) -> int:
    """``--nice[=N]``: 100 when no value is given; beyond +/- 2147483645 is refused."""
    nice = 100 if value is None else c_long(value)
    if abs(nice) > NICE_LIMIT:
        raise _error(f"Invalid --nice value, out of range (+/- {NICE_LIMIT})")
    return nice


def parse_sized(value: str, option: str) -> int:
    """A size in MiB (``--mem-per-cpu``, ``--tmp``, ...): ``Invalid --X specification``."""
    try:
        return parse_memory(value)
    except SbatchError:
        raise _error(f"Invalid {option} specification") from None


def parse_gres(value: str) -> int:
    """``--gres``: the GPUs per node of ``gpu[:type][:N]`` items (other GRES kinds are refused:
    the platform declares only GPUs)."""
    total = 0
    for item in value.split(","):
        parts = item.removeprefix("gres:").split(":")
        count = parts.pop() if len(parts) > 1 and parts[-1].isdecimal() else "1"
        if parts[0] != "gpu" or len(parts) > 2 or not all(FEATURE.match(p) for p in parts):
            raise _error(GRES_INVALID)
        total += int(count)
    return total


def parse_gpu_count(value: str) -> int:
    """``--gpus``, ``--gpus-per-node``, ``--gpus-per-task``: ``[type:]N``."""
    match = _GPU_COUNT.match(value)
    if match is None:
        raise _error(GRES_INVALID)
    return int(match[1])


def parse_constraint(value: str) -> str:
    """``-C``: feature names joined by ``&`` (all) and ``|`` (any), as given. Brackets and
    counts (``[a*2&b]``) are refused: batchlab places nodes one by one."""
    for term in value.replace("|", "&").split("&"):
        if not FEATURE.match(term):
            raise _rejected("Invalid feature specification")
    return value


def check_recorded(name: str, value: str | None) -> None:
    """Refuse a recorded option's bad value with sbatch's message; others pass as given."""
    if value is None:
        return
    lower = value.lower()
    if name == "open-mode" and lower[:1] not in ("a", "t"):
        raise _error("Invalid --open-mode specification")
    if name == "kill-on-invalid-dep" and lower not in ("yes", "no"):
        raise _error("Invalid --kill-on-invalid-dep specification")
    if name == "mail-type" and not all(t.upper() in _MAIL_TYPES for t in value.split(",")):
        raise _error("Invalid --mail-type specification")
    if name == "signal":
        match = _SIGNAL.match(value)
        if match is None or not (match[1].isdecimal() or match[1].upper() in _SIGNALS):
            raise _error("Invalid --signal specification")
    if name == "exclusive" and lower not in ("", "exclusive", "oversubscribe", "user", "mcs"):
        raise _error("Invalid --exclusive specification")
    if name == "hint" and not all(h in _HINTS for h in lower.split(",")):
        raise _error(f'unrecognized --hint argument "{value}", see --hint=help')
    if name == "profile" and not all(p in _PROFILES for p in lower.split(",")):
        raise _error(f"invalid --profile={value} option")
    if name == "gres-flags" and lower not in ("enforce-binding", "disable-binding"):
        raise _error("Invalid --gres-flags specification")
    if name in ("mem-per-gpu", "delay-boot") and not re.match(r"^\d", value):
        raise _error(f"Invalid --{name} specification")
    if name in _NUMERIC:
        _positive_int(
            value.partition("@")[0] if name == "switches" else value, f"--{name}", zero=True
        )


_NUMERIC = frozenset(
    (
        "cpus-per-gpu",
        "switches",
        "wait-all-nodes",
        "core-spec",
        "thread-spec",
        "mincpus",
        "sockets-per-node",
        "cores-per-socket",
        "threads-per-core",
        "ntasks-per-core",
        "ntasks-per-socket",
        "ntasks-per-gpu",
    )
)
