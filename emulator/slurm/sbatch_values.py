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


_DEP_TERM = re.compile(r"^([a-z]+)((?::\d+(?:\+\d+)?)+)$")


def parse_dependency(value: str) -> Dependencies:
    """``-d``: ``type:id[:id][+min]`` terms joined by ``,`` (all) or ``?`` (any); a bare id
    means ``afterany``. Raises the controller's ``Job dependency problem``."""
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
            job, plus, minutes = item.partition("+")
            if plus and kind is not DependencyKind.AFTER:
                raise problem
            terms.append(Dependency(kind, int(job), int(minutes) * 60.0 if plus else 0.0))
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
