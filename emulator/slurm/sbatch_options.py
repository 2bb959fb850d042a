"""``sbatch`` options: command line, ``#SBATCH`` directives and ``SBATCH_*`` defaults.

:func:`parse_sbatch` turns what a user typed into :class:`SbatchOptions`; :func:`to_request`
turns those into a model :class:`~emulator.model.job.Request`. Errors are :class:`SbatchError`,
whose lines are exactly what sbatch prints on stderr (slurm-conventions.md §1, §9).
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from emulator.model.durations import DurationError, parse_duration
from emulator.model.hostlist import HostlistError, expand
from emulator.model.job import (
    ArrayTask,
    Communication,
    Dependencies,
    Dependency,
    DependencyKind,
    Moldable,
    Request,
)
from emulator.model.platform import Cluster
from emulator.slurm.timefmt import TimeFormatError, parse_begin, parse_time_limit

__all__ = [
    "ArraySpec",
    "CommandLine",
    "SbatchError",
    "SbatchOptions",
    "array_requests",
    "communication",
    "emulated_runtime",
    "moldable",
    "parse_array",
    "parse_dependency",
    "parse_memory",
    "parse_sbatch",
    "split_command_line",
    "to_request",
]

MAX_ARRAY_SIZE = 1001  # the samples' MaxArraySize: indexes 0..1000
_TRY_HELP = 'Try "sbatch --help" for more information'


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


# --- the option table ------------------------------------------------------------------------

_Arg = Literal["required", "none", "optional"]


@dataclass(frozen=True, slots=True)
class _Spec:
    long: str
    short: str
    arg: _Arg
    value: str = ""  # the argument's name in --help
    text: str = ""  # the --help line(s); "" = not listed (an alias)


_SPECS = (
    _Spec("array", "a", "required", "indexes", "job array index values"),
    _Spec("account", "A", "required", "name", "charge job to specified account"),
    _Spec("begin", "b", "required", "time", "defer job until HH:MM MM/DD/YY"),
    _Spec("cpus-per-task", "c", "required", "ncpus", "number of cpus required per task"),
    _Spec(
        "dependency",
        "d",
        "required",
        "type:jobid[:time]",
        "defer job until condition on jobid is satisfied",
    ),
    _Spec(
        "deadline",
        "",
        "required",
        "time",
        "remove the job if no ending possible before\nthis deadline",
    ),
    _Spec("chdir", "D", "required", "directory", "set working directory for batch script"),
    _Spec("error", "e", "required", "err", "file for batch script's standard error"),
    _Spec("hold", "H", "none", "", "submit job in held state"),
    _Spec("job-name", "J", "required", "jobname", "name of job"),
    _Spec(
        "clusters",
        "M",
        "required",
        "names",
        "comma separated list of clusters; the job goes to\nthe one where it starts first",
    ),
    _Spec("cluster", "", "required"),
    _Spec("ntasks", "n", "required", "ntasks", "number of tasks to run"),
    _Spec("ntasks-per-node", "", "required", "n", "number of tasks to invoke on each node"),
    _Spec("tasks-per-node", "", "required"),
    _Spec("nodes", "N", "required", "N", "number of nodes on which to run (N = min[-max])"),
    _Spec("output", "o", "required", "out", "file for batch script's standard output"),
    _Spec("partition", "p", "required", "partition", "partition requested"),
    _Spec(
        "parsable",
        "",
        "none",
        "",
        "outputs only the jobid and cluster name (if present),\nseparated by semicolon",
    ),
    _Spec("time", "t", "required", "minutes", "time limit"),
    _Spec("test-only", "", "none", "", "validate job, but do not submit"),
    _Spec("wait", "W", "none", "", "wait for completion of submitted job"),
    _Spec("wrap", "", "required", "command", "wrap command string in a sh script and submit"),
    _Spec("exclusive", "", "optional", "", "allocate nodes in exclusive mode"),
    _Spec("mem", "", "required", "MB", "minimum amount of real memory"),
    _Spec("nodelist", "w", "required", "hosts...", "request a specific list of hosts"),
    _Spec("exclude", "x", "required", "hosts...", "exclude a specific list of hosts"),
    _Spec("help", "h", "none", "", "show this help message"),
    _Spec("usage", "", "none", "", "display brief usage message"),
    _Spec(
        "emulate-runtime",
        "",
        "required",
        "time",
        "how long the job runs on speed-1 nodes (a Slurm\nduration); a BSP job's base time Tb",
    ),
    _Spec(
        "bsp-sigma",
        "",
        "required",
        "fraction",
        "BSP job: the share of Tb spent computing,\nfrom 0 to 1 (default 1)",
    ),
    _Spec(
        "bsp-task-bw",
        "",
        "required",
        "bw",
        "BSP job: bandwidth each task draws on the links\nbetween clusters, in the platform's "
        "unit\n(default 0)",
    ),
    _Spec(
        "bpu",
        "",
        "required",
        "power",
        "moldable job: the computing power it asks for,\nin BPUs (the slowest core is 1 BPU)",
    ),
    _Spec(
        "bpu-serial",
        "",
        "required",
        "fraction",
        "moldable job: Amdahl's serial fraction, from 0\nto below 1 (default 0)",
    ),
    _Spec("home-site", "", "required", "cluster", "the job's home site: a hint, not -M"),
)
_EXTENSIONS = ("emulate-runtime", "bsp-sigma", "bsp-task-bw", "bpu", "bpu-serial", "home-site")
_LONG = {spec.long: spec for spec in _SPECS}
_SHORT = {spec.short: spec for spec in _SPECS if spec.short}
_ALIASES = {"tasks-per-node": "ntasks-per-node", "cluster": "clusters"}

# SBATCH_* variables and the option each one sets (sbatch.1, "INPUT ENVIRONMENT VARIABLES").
_ENVIRONMENT = {
    "SBATCH_ACCOUNT": "account",
    "SBATCH_ARRAY_INX": "array",
    "SBATCH_CLUSTERS": "clusters",
    "SLURM_CLUSTERS": "clusters",
    "SBATCH_EXCLUSIVE": "exclusive",
    "SBATCH_JOB_NAME": "job-name",
    "SBATCH_MEM_PER_NODE": "mem",
    "SBATCH_PARTITION": "partition",
    "SBATCH_TIMELIMIT": "time",
    "SBATCH_WAIT": "wait",
    "SBATCH_OUTPUT": "output",
    "SBATCH_ERROR": "error",
}

_Setting = tuple[str, str | None]  # (long name, value or None for a flag)


def _getopt(args: list[str], *, stop_at_positional: bool) -> tuple[list[_Setting], list[str]]:
    """glibc getopt_long as sbatch uses it (``+`` mode): options, then the rest."""
    settings: list[_Setting] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            return settings, args[index:]
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            spec = _match_long(name, arg)
            if spec.arg == "none":
                if eq:
                    raise _usage(f"sbatch: option '--{spec.long}' doesn't allow an argument")
                settings.append((spec.long, None))
            elif spec.arg == "optional":
                settings.append((spec.long, value if eq else None))
            else:
                if not eq:
                    if index >= len(args):
                        raise _usage(f"sbatch: option '--{spec.long}' requires an argument")
                    value = args[index]
                    index += 1
                settings.append((spec.long, value))
        elif arg.startswith("-") and len(arg) > 1:
            position = 1
            while position < len(arg):
                letter = arg[position]
                position += 1
                short = _SHORT.get(letter)
                if short is None:
                    raise _usage(f"sbatch: invalid option -- '{letter}'")
                if short.arg == "none":
                    settings.append((short.long, None))
                    continue
                value = arg[position:]
                if not value:
                    if index >= len(args):
                        raise _usage(f"sbatch: option requires an argument -- '{letter}'")
                    value = args[index]
                    index += 1
                settings.append((short.long, value))
                break
        else:
            if stop_at_positional:
                return settings, args[index - 1 :]
            raise _error(f"Invalid directive found in batch script: {arg}")
    return settings, []


def _help_lines(specs: list[_Spec]) -> list[str]:
    lines = []
    for spec in specs:
        flag = f"-{spec.short}, " if spec.short else "    "
        value = f"[={spec.value}]" if spec.arg == "optional" and spec.value else ""
        value = value or (f"={spec.value}" if spec.value else "")
        head = f"  {flag}--{spec.long}{value}"
        first, *more = spec.text.split("\n")
        if len(head) > 29:
            lines += [head, " " * 30 + first]
        else:
            lines.append(f"{head:<30}{first}")
        lines += [" " * 30 + line for line in more]
    return lines


USAGE = "Usage: sbatch [OPTIONS...] [script [args...]]\n"
HELP = "\n".join(
    [
        USAGE.rstrip("\n"),
        "",
        "Parallel run options:",
        *_help_lines(
            sorted(
                (s for s in _SPECS if s.text and s.long not in (*_EXTENSIONS, "help", "usage")),
                key=lambda s: (s.short or s.long).lower(),
            )
        ),
        "",
        "batchlab extensions (the job is emulated, not executed):",
        *_help_lines([_LONG[name] for name in _EXTENSIONS]),
        "",
        "How long an emulated job runs, on speed-1 nodes: --emulate-runtime, else",
        "the sum of the script's `sleep N` lines, else nothing for a script of",
        "instant commands (true, echo, exit N, ...), else its time limit. That time",
        "and the limit are divided by the speed of the slowest node the job gets.",
        "A job given --bsp-sigma or --bsp-task-bw is a bulk-synchronous parallel",
        "job of -n tasks (OAS paper, section 3.1) that runs",
        "Tb * (sigma / speed + (1 - sigma) * SC), where SC > 1 while a link it",
        "spans is saturated (scontrol show link). Under a grid scheduler (e.g.",
        "coalloc) a job without -M is the grid scheduler's to place, across",
        "clusters if it chooses; -M names clusters as in Slurm.",
        "A job given --bpu X is moldable (BPU paper): any cores whose BPU ratings",
        "sum to X or more may run it, and a grid scheduler (bpu) picks them. Its",
        "run time and time limit are measured on exactly X BPUs (the work is X",
        "times the run time, in BPU-seconds) and scale with the BPUs it gets:",
        "runtime * s(X) / s(P) on P BPUs, s Amdahl's speed-up with --bpu-serial.",
        "--home-site names the cluster it is first tried on.",
        "",
        "Help options:",
        *_help_lines([_LONG["help"], _LONG["usage"]]),
        "",
    ]
)


@dataclass(frozen=True, slots=True)
class CommandLine:
    """sbatch's arguments as getopt splits them: the options in order, then the batch script
    and its arguments. Split once: :attr:`help`, :attr:`script_path` and :func:`parse_sbatch`
    read the same split."""

    settings: tuple[_Setting, ...]
    rest: tuple[str, ...]

    @property
    def help(self) -> str | None:
        """``--help`` or ``--usage``: the text to print (nothing is submitted), else ``None``."""
        names = {name for name, _ in self.settings}
        if "help" in names:
            return HELP
        return USAGE if "usage" in names else None

    @property
    def script_path(self) -> str | None:
        """The batch script named on the command line (its first non-option), or ``None``."""
        return self.rest[0] if self.rest else None


def split_command_line(argv: Sequence[str]) -> CommandLine:
    """sbatch's arguments (without ``argv[0]``) split by getopt; raises :class:`SbatchError`
    for an unknown, ambiguous or incomplete option, with sbatch's message."""
    settings, rest = _getopt(list(argv), stop_at_positional=True)
    return CommandLine(tuple(settings), tuple(rest))


def _usage(line: str) -> SbatchError:
    return SbatchError([line, _TRY_HELP], 255)


def _match_long(name: str, arg: str) -> _Spec:
    if name in _LONG:
        return _LONG[name]
    matches = sorted(long for long in _LONG if long.startswith(name)) if name else []
    targets = {_ALIASES.get(long, long) for long in matches}
    if len(targets) == 1:
        return _LONG[matches[0]]
    if not matches:
        raise _usage(f"sbatch: unrecognized option '{arg}'")
    options = " ".join(f"'--{long}'" for long in matches)
    raise _usage(f"sbatch: option '--{name}' is ambiguous; possibilities: {options}")


# --- scripts ---------------------------------------------------------------------------------


def _check_script(script: str) -> None:
    if not script:
        raise _error("Batch script is empty!", 1)
    if not script.strip():
        raise _error("Batch script contains only whitespace!", 1)
    if not script.startswith("#!"):
        raise SbatchError(
            [
                "sbatch: error: This does not look like a batch script.  The first",
                "sbatch: error: line must start with #! followed by the path to an interpreter.",
                "sbatch: error: For instance: #!/bin/sh",
            ],
            1,
        )
    if "\0" in script:
        raise _error("The SLURM controller does not allow scripts that contain a NULL character", 1)
    if "\r\n" in script:
        raise SbatchError(
            [
                "sbatch: error: Batch script contains DOS line breaks (\\r\\n)",
                "sbatch: error: instead of expected UNIX line breaks (\\n).",
            ],
            1,
        )


def directive_arguments(script: str) -> list[str]:
    """The ``#SBATCH`` arguments of a script, in order (only those before the first command)."""
    arguments: list[str] = []
    for line in script.split("\n")[1:]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        if line.startswith("#SBATCH") and (len(line) == 7 or line[7] in " \t"):
            try:
                arguments.extend(shlex.split(line[7:], comments=True))
            except ValueError:
                arguments.extend(line[7:].split())
    return arguments


_SLEEP = re.compile(r"^\s*sleep\s+(\d+(?:\.\d*)?)([smhd]?)\s*(?:[;#].*)?$")
_SLEEP_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def sleep_total(script: str) -> float | None:
    """Sum of the script's ``sleep N[smhd]`` lines, or ``None`` when there are none."""
    total = 0.0
    found = False
    for line in script.split("\n"):
        match = _SLEEP.match(line)
        if match:
            found = True
            total += float(match[1]) * _SLEEP_UNITS[match[2]]
    return total if found else None


def _wrap_script(command: str) -> str:
    return f"#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{command}\n"


# --- values ----------------------------------------------------------------------------------


def _positive_int(value: str, option: str, *, zero: bool = False) -> int:
    if not value.isdigit() or (int(value) == 0 and not zero):
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
    if not low.isdigit() or (dash and not high.isdigit()):
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
        if part.isdigit():
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


_ARRAY_PART = re.compile(r"^(\d+)(?:-(\d+)(?::(\d+))?)?$")


def parse_array(value: str, max_array_size: int = MAX_ARRAY_SIZE) -> ArraySpec:
    """``-a 0-15,20,0-15:4%4``. Raises ``Invalid job array specification`` (exit 1)."""
    invalid = _rejected("Invalid job array specification")
    text, percent, limit = value.partition("%")
    if percent and not limit.isdigit():
        raise invalid
    indexes: set[int] = set()
    for part in text.split(","):
        match = _ARRAY_PART.match(part)
        if match is None:
            raise invalid
        low = int(match[1])
        high = int(match[2]) if match[2] is not None else low
        step = int(match[3]) if match[3] is not None else 1
        if high < low or step == 0:
            raise invalid
        indexes.update(range(low, high + 1, step))
    if max(indexes) >= max_array_size:
        raise invalid
    return ArraySpec(tuple(sorted(indexes)), int(limit) if percent else 0, value)


def _hostlist(value: str) -> tuple[str, ...]:
    if "/" in value:  # a file of names: the caller must read it
        return (value,)
    try:
        return tuple(expand(value))
    except HostlistError:
        raise _rejected("Invalid node name specified") from None


# --- parse -----------------------------------------------------------------------------------


def parse_sbatch(
    argv: Sequence[str] | CommandLine,
    script: str | None,
    env: Mapping[str, str],
    *,
    now: float = 0.0,
    origin: float = 0.0,
    max_array_size: int = MAX_ARRAY_SIZE,
) -> SbatchOptions:
    """Parse ``sbatch`` arguments (without ``argv[0]``, or as :func:`split_command_line` split
    them).

    ``script`` is the batch script's text (from the file named in ``argv``, or stdin); it is
    ignored with ``--wrap``. ``now``/``origin`` resolve ``--begin``/``--deadline`` (see
    :func:`~emulator.slurm.timefmt.parse_begin`). Precedence, lowest first: ``#SBATCH``,
    ``SBATCH_*``, command line.
    """
    line = argv if isinstance(argv, CommandLine) else split_command_line(argv)
    values: dict[str, str | None] = {}
    wrap = next((value for name, value in reversed(line.settings) if name == "wrap"), None)
    script_path = line.script_path
    if wrap is not None:
        if script_path is not None:
            raise _error("script argument not permitted with --wrap option")
        text = _wrap_script(wrap)
    else:
        text = script or ""
        _check_script(text)
        directives, _ = _getopt(directive_arguments(text), stop_at_positional=False)
        for name, value in directives:
            _apply(values, name, value)
    for variable, name in _ENVIRONMENT.items():
        if variable in env:
            _apply(values, name, env[variable] if _LONG[name].arg != "none" else None)
    for name, value in line.settings:
        _apply(values, name, value)
    return _build(values, text, script_path, line.rest[1:], now, origin, max_array_size)


def _apply(values: dict[str, str | None], name: str, value: str | None) -> None:
    values[_ALIASES.get(name, name)] = value


def _build(
    values: dict[str, str | None],
    script: str,
    script_path: str | None,
    script_args: tuple[str, ...],
    now: float,
    origin: float,
    max_array_size: int,
) -> SbatchOptions:
    """The options from the values given (by long name); a bad value raises its error, checked
    in a fixed order (the first bad option in this order is the one reported)."""
    fields: dict[str, object] = {}
    if (value := values.get("nodes")) is not None:
        fields["nodes_min"], fields["nodes_max"] = _nodes(value)
    if (value := values.get("ntasks")) is not None:
        fields["ntasks"] = _positive_int(value, "--ntasks")
    if (value := values.get("cpus-per-task")) is not None:
        fields["cpus_per_task"] = _positive_int(value, "--cpus-per-task")
    if (value := values.get("ntasks-per-node")) is not None:
        fields["ntasks_per_node"] = _positive_int(value, "--ntasks-per-node")
    if (value := values.get("time")) is not None:
        try:
            fields["time_limit"] = parse_time_limit(value)
        except TimeFormatError as error:
            raise _error(error.message) from None
    if (value := values.get("partition")) is not None:
        fields["partitions"] = tuple(p for p in value.split(",") if p)
    if (value := values.get("clusters")) is not None:
        fields["clusters"] = tuple(c for c in value.split(",") if c)
    for name in ("begin", "deadline"):
        if (value := values.get(name)) is not None:
            try:
                fields[name] = parse_begin(value, now, origin, option=f"--{name}")
            except TimeFormatError as error:
                raise SbatchError([error.detail, f"sbatch: error: {error.message}"]) from None
    if (value := values.get("dependency")) is not None:
        fields["dependency"] = parse_dependency(value)
    if (value := values.get("array")) is not None:
        fields["array"] = parse_array(value, max_array_size)
    if (value := values.get("mem")) is not None:
        fields["memory_mb"] = parse_memory(value)
    if (value := values.get("nodelist")) is not None:
        fields["include"] = _hostlist(value)
    if (value := values.get("exclude")) is not None:
        fields["exclude"] = _hostlist(value)
    if (value := values.get("emulate-runtime")) is not None:
        try:
            fields["emulate_runtime"] = parse_duration(value)
        except DurationError:
            raise _error("Invalid --emulate-runtime specification") from None
    if (value := values.get("bsp-sigma")) is not None:
        fields["bsp_sigma"] = _number(value, "--bsp-sigma", high=1.0)
    if (value := values.get("bsp-task-bw")) is not None:
        fields["bsp_task_bw"] = _number(value, "--bsp-task-bw")
    if (value := values.get("bpu")) is not None:
        fields["bpu"] = _number(value, "--bpu")
        if not fields["bpu"]:
            raise _error("Invalid --bpu specification")
    if (value := values.get("bpu-serial")) is not None:
        fields["bpu_serial"] = _number(value, "--bpu-serial", high=1.0)
        if fields["bpu_serial"] == 1.0 or "bpu" not in values:
            raise _error("Invalid --bpu-serial specification")
    if (value := values.get("home-site")) is not None:
        if not value:
            raise _error("Invalid --home-site specification")
        fields["home_site"] = value
    return SbatchOptions(
        script=script,
        script_path=script_path,
        script_args=script_args,
        sleep_total=sleep_total(script),
        given=frozenset(values),
        exclusive="exclusive" in values,
        hold="hold" in values,
        test_only="test-only" in values,
        parsable="parsable" in values,
        wait="wait" in values,
        wrap=values.get("wrap"),
        job_name=values.get("job-name"),
        account=values.get("account"),
        output=values.get("output"),
        error=values.get("error"),
        work_dir=values.get("chdir"),
        **fields,  # type: ignore[arg-type]
    )


# --- to the model ----------------------------------------------------------------------------


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
        exclusive=options.exclusive,
        include=options.include,
        exclude=options.exclude,
        begin=options.begin or 0.0,
        deadline=options.deadline if options.deadline is not None else math.inf,
        dependencies=dependencies,
        held=options.hold,
        moldable=moldable(options),
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


def communication(options: SbatchOptions, base_time: float) -> Communication | None:
    """The BSP parameters of a job given ``--bsp-sigma`` or ``--bsp-task-bw`` (OAS paper §3.1),
    with ``base_time`` (its emulated runtime) as Tb; ``None`` for any other job."""
    if options.bsp_sigma is None and options.bsp_task_bw is None:
        return None
    sigma = 1.0 if options.bsp_sigma is None else options.bsp_sigma
    return Communication(base_time, sigma, options.bsp_task_bw or 0.0)
