"""``sbatch`` options: command line, ``#SBATCH`` directives and ``SBATCH_*`` defaults.

:func:`parse_sbatch` turns what a user typed into :class:`SbatchOptions`; :func:`to_request`
turns those into a model :class:`~emulator.model.job.Request`. Errors are :class:`SbatchError`,
whose lines are exactly what sbatch prints on stderr (slurm-conventions.md §1, §9).

This module holds getopt and :func:`parse_sbatch`; the option table and help text are in
:mod:`emulator.slurm.sbatch_option_table`, what the options parse to in
:mod:`emulator.slurm.sbatch_values`, the batch script's reading in
:mod:`emulator.slurm.sbatch_script` and the request building in
:mod:`emulator.slurm.sbatch_request`. Their public names are re-exported here, the one import
path for callers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.model.durations import DurationError, parse_duration
from emulator.slurm.sbatch_option_table import (
    _ALIASES,
    _ENVIRONMENT,
    _LONG,
    HELP,
    SBATCH,
    USAGE,
    OptionTable,
    _Spec,
)
from emulator.slurm.sbatch_request import (
    array_requests,
    communication,
    emulated_runtime,
    gpus_per_node,
    job_extras,
    moldable,
    to_request,
)
from emulator.slurm.sbatch_script import (
    _check_script,
    _wrap_script,
    directive_arguments,
    sleep_total,
)
from emulator.slurm.sbatch_values import (
    GRES_INVALID,
    MAX_ARRAY_SIZE,
    ArraySpec,
    SbatchError,
    SbatchOptions,
    _error,
    _hostlist,
    _nodes,
    _number,
    _positive_int,
    c_long,
    check_recorded,
    parse_array,
    parse_constraint,
    parse_dependency,
    parse_gpu_count,
    parse_gres,
    parse_memory,
    parse_nice,
    parse_sized,
)
from emulator.slurm.srun_option_table import SALLOC, SRUN, help_text
from emulator.slurm.timefmt import TimeFormatError, parse_begin, parse_time_limit

__all__ = [
    "GRES_INVALID",
    "HELP",
    "MAX_ARRAY_SIZE",
    "SALLOC",
    "SBATCH",
    "SRUN",
    "USAGE",
    "ArraySpec",
    "CommandLine",
    "OptionTable",
    "SbatchError",
    "SbatchOptions",
    "array_requests",
    "communication",
    "directive_arguments",
    "emulated_runtime",
    "gpus_per_node",
    "help_text",
    "job_extras",
    "moldable",
    "parse_array",
    "parse_dependency",
    "parse_memory",
    "parse_sbatch",
    "sleep_total",
    "split_command_line",
    "to_request",
]


_Setting = tuple[str, str | None]  # (long name, value or None for a flag)


def _getopt(
    args: list[str], *, stop_at_positional: bool, table: OptionTable = SBATCH
) -> tuple[list[_Setting], list[str]]:
    """glibc getopt_long as sbatch (srun, salloc: ``table``) uses it (``+`` mode): options,
    then the rest."""
    program = table.program
    settings: list[_Setting] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            return settings, args[index:]
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            spec = _match_long(name, arg, table)
            if spec.arg == "none":
                if eq:
                    raise _usage(
                        f"{program}: option '--{spec.long}' doesn't allow an argument", program
                    )
                settings.append((spec.long, None))
            elif spec.arg == "optional":
                settings.append((spec.long, value if eq else None))
            else:
                if not eq:
                    if index >= len(args):
                        raise _usage(
                            f"{program}: option '--{spec.long}' requires an argument", program
                        )
                    value = args[index]
                    index += 1
                settings.append((spec.long, value))
        elif arg.startswith("-") and len(arg) > 1:
            position = 1
            while position < len(arg):
                letter = arg[position]
                position += 1
                short = table.short.get(letter)
                if short is None:
                    raise _usage(f"{program}: invalid option -- '{letter}'", program)
                if short.arg == "none":
                    settings.append((short.long, None))
                    continue
                value = arg[position:]
                if not value:
                    if index >= len(args):
                        raise _usage(
                            f"{program}: option requires an argument -- '{letter}'", program
                        )
                    value = args[index]
                    index += 1
                settings.append((short.long, value))
                break
        else:
            if stop_at_positional:
                return settings, args[index - 1 :]
            raise _error(f"Invalid directive found in batch script: {arg}")
    return settings, []


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
        if "usage" in names:
            return USAGE
        return "slurm-wlm 22.05.8\n" if "version" in names else None

    @property
    def script_path(self) -> str | None:
        """The batch script named on the command line (its first non-option), or ``None``."""
        return self.rest[0] if self.rest else None


def split_command_line(argv: Sequence[str], table: OptionTable = SBATCH) -> CommandLine:
    """sbatch's (or srun's, salloc's: ``table``) arguments (without ``argv[0]``) split by
    getopt; raises :class:`SbatchError` for an unknown, ambiguous or incomplete option, with
    the program's message."""
    settings, rest = _getopt(list(argv), stop_at_positional=True, table=table)
    return CommandLine(tuple(settings), tuple(rest))


def _usage(line: str, program: str = "sbatch") -> SbatchError:
    return SbatchError([line, f'Try "{program} --help" for more information'], 255)


def _match_long(name: str, arg: str, table: OptionTable) -> _Spec:
    if name in table.long:
        return table.long[name]
    matches = sorted(long for long in table.long if long.startswith(name)) if name else []
    targets = {table.aliases.get(long, long) for long in matches}
    program = table.program
    if len(targets) == 1:
        return table.long[matches[0]]
    if not matches:
        raise _usage(f"{program}: unrecognized option '{arg}'", program)
    options = " ".join(f"'--{long}'" for long in matches)
    # glibc 2.36 (Debian 12's) names the argument as typed, value included
    raise _usage(f"{program}: option '{arg}' is ambiguous; possibilities: {options}", program)


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
    for name in ("min-speed", "price-cap", "budget"):
        if (value := values.get(name)) is not None:
            fields[name.replace("-", "_")] = _number(value, f"--{name}")
    if fields.get("min_speed") == 0.0:
        raise _error("Invalid --min-speed specification")
    _effective_and_recorded(values, fields)
    return SbatchOptions(
        script=script,
        script_path=script_path,
        script_args=script_args,
        sleep_total=sleep_total(script),
        given=frozenset(values),
        # --exclusive=oversubscribe is the opposite (slurm_opt.c, arg_set_exclusive)
        exclusive="exclusive" in values and (values["exclusive"] or "").lower() != "oversubscribe",
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
        comment=values.get("comment"),
        qos=values.get("qos"),
        reservation=values.get("reservation"),
        licenses=values.get("licenses"),
        mail_type=values.get("mail-type"),
        mail_user=values.get("mail-user"),
        wckey=values.get("wckey"),
        power=values.get("power"),
        **fields,  # type: ignore[arg-type]
    )


def _effective_and_recorded(values: dict[str, str | None], fields: dict[str, object]) -> None:
    """The options beyond the model's request: those that change the emulation into
    ``fields``; every other value checked as sbatch checks it, and kept as given."""
    for name, value in values.items():
        check_recorded(name, value)
    if (value := values.get("mem-per-cpu")) is not None:
        fields["mem_per_cpu"] = parse_sized(value, "--mem-per-cpu")
    if (value := values.get("tmp")) is not None:
        fields["tmp_mb"] = parse_sized(value, "--tmp")
    if (value := values.get("time-min")) is not None:
        try:
            fields["time_min"] = parse_time_limit(value)
        except TimeFormatError:
            raise _error("Invalid --time-min specification") from None
    if (value := values.get("gres")) is not None:
        fields["gpus_per_node"] = parse_gres(value)
    if (value := values.get("gpus-per-node")) is not None:
        fields["gpus_per_node"] = parse_gpu_count(value)
    if (value := values.get("gpus")) is not None:
        fields["gpus"] = parse_gpu_count(value)
    if (value := values.get("gpus-per-task")) is not None:
        fields["gpus_per_task"] = parse_gpu_count(value)
    asks_gpus = any(name in fields for name in ("gpus_per_node", "gpus", "gpus_per_task"))
    if not asks_gpus and any(f"{name}-per-gpu" in values for name in ("cpus", "mem", "ntasks")):
        raise _error(GRES_INVALID, 1)  # what per GPU, without GPUs? (sbatch 22.05.8)
    if (value := values.get("constraint")) is not None:
        fields["constraint"] = parse_constraint(value)
    if "nice" in values:
        fields["nice"] = parse_nice(values["nice"])
    if (value := values.get("priority")) is not None:
        fields["priority"] = c_long(value)
    if "requeue" in values or "no-requeue" in values:
        fields["requeue"] = "requeue" in values and "no-requeue" not in values
