"""srun's and salloc's option tables: sbatch's options but those only sbatch has, plus their
own (srun.1, salloc.1 of 22.05), which change nothing in the emulation; and their ``--help``."""

from __future__ import annotations

from emulator.slurm.sbatch_option_table import (
    _ALIASES,
    _EXTENSIONS,
    _SPECS,
    OptionTable,
    _help_lines,
    _Spec,
)

_SBATCH_ONLY = frozenset(
    [
        "array",
        "batch",
        "export-file",
        "get-user-env",
        "ignore-pbs",
        "kill-on-invalid-dep",
        "no-requeue",
        "parsable",
        "requeue",
        "wait-all-nodes",
        "wrap",
        "wait",
        "test-only",
    ]
)
_SRUN_ONLY = (
    _Spec("accel-bind", "", "required", "type", "bind tasks to accelerators"),
    _Spec("bcast", "", "optional", "dest_path", "Copy executable file to compute nodes"),
    _Spec("bcast-exclude", "", "required", "paths", "Shared object directory paths to exclude"),
    _Spec("compress", "", "optional", "library", "data compression library used with --bcast"),
    _Spec("cpu-bind", "", "required", "type", "bind tasks to CPUs"),
    _Spec("disable-status", "X", "none", "", "Disable Ctrl-C status feature"),
    _Spec("epilog", "", "required", "program", 'run "program" after launching job step'),
    _Spec("exact", "", "none", "", "use only the resources requested for the step"),
    _Spec(
        "het-group", "", "required", "value", "hetjob component allocation(s) in which to launch"
    ),
    _Spec("immediate", "I", "optional", "secs", 'exit if resources not available in "secs"'),
    _Spec("jobid", "", "required", "id", "run under already allocated job"),
    _Spec(
        "kill-on-bad-exit",
        "K",
        "optional",
        "",
        "kill the job if any task terminates with a\nnon-zero exit code",
    ),
    _Spec("label", "l", "none", "", "prepend task number to lines of stdout/err"),
    _Spec("mpi", "", "required", "type", "type of MPI being used"),
    _Spec("msg-timeout", "", "required", "secs", "timeout for messages to slurmd"),
    _Spec(
        "multi-prog",
        "",
        "none",
        "",
        "if set the program name specified is the\nconfiguration specification for multiple "
        "programs",
    ),
    _Spec("no-allocate", "Z", "none", "", "don't allocate nodes (must supply -w)"),
    _Spec("overlap", "", "none", "", "Allow other steps to overlap this step"),
    _Spec(
        "preserve-env",
        "E",
        "none",
        "",
        "env vars for node and task counts override\ncommand-line flags",
    ),
    _Spec("prolog", "", "required", "program", 'run "program" before launching job step'),
    _Spec("pty", "", "none", "", "run task zero in pseudo terminal"),
    _Spec("quit-on-interrupt", "", "none", "", "quit on single Ctrl-C"),
    _Spec("relative", "r", "required", "n", "run job step relative to node n of allocation"),
    _Spec("resv-ports", "", "optional", "", "reserve communication ports"),
    _Spec("send-libs", "", "optional", "yes|no", "autodetect and broadcast shared objects"),
    _Spec("slurmd-debug", "", "required", "level", "slurmd debug level"),
    _Spec("task-epilog", "", "required", "program", 'run "program" after launching task'),
    _Spec("task-prolog", "", "required", "program", 'run "program" before launching task'),
    _Spec("threads", "T", "required", "threads", "set srun launch fanout"),
    _Spec("unbuffered", "u", "none", "", "do not line-buffer stdout/err"),
    _Spec("wait", "W", "required", "sec", "seconds to wait after first task exits"),  # not -W
    _Spec("x11", "", "optional", "all|first|last", "forward X11 graphics"),
)
_SALLOC_ONLY = (
    _Spec("bell", "", "none", "", "ring the terminal bell when the job is allocated"),
    _Spec("immediate", "I", "optional", "secs", 'exit if resources not available in "secs"'),
    _Spec("kill-command", "K", "optional", "signal", "signal to send terminating job"),
    _Spec("no-bell", "", "none", "", "do NOT ring the terminal bell"),
    _Spec(
        "no-shell",
        "",
        "none",
        "",
        "immediately exit after allocating resources,\nwithout running a command",
    ),
    _Spec("x11", "", "optional", "all|first|last", "forward X11 graphics"),
)


def _table(program: str, own: tuple[_Spec, ...]) -> OptionTable:
    own_names = {spec.long for spec in own}
    specs = [s for s in _SPECS if s.long not in _SBATCH_ONLY and s.long not in own_names]
    specs += own
    short = {spec.short: spec for spec in specs if spec.short}
    return OptionTable(program, {s.long: s for s in specs}, short, _ALIASES)


_USAGES = {
    "srun": "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
    "executable(N) [args(N)...]",
    "salloc": "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]",
}

SRUN = _table("srun", _SRUN_ONLY)
SALLOC = _table("salloc", _SALLOC_ONLY)


def help_text(table: OptionTable) -> str:
    """``--help``: the usage line and every option the table describes, by letter or name."""
    listed = sorted(
        (s for s in table.long.values() if s.text and s.long not in (*_EXTENSIONS, "help")),
        key=lambda s: (s.short or s.long).lower(),
    )
    usage = _USAGES[table.program]
    return "\n".join([usage, "", "Parallel run options:", *_help_lines(listed), ""])
