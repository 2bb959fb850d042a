"""The options sbatch knows: their names, arguments, ``SBATCH_*`` variables and ``--help``.

Data, not parsing: :mod:`emulator.slurm.sbatch_options` reads this table to split a command
line, and ``--help``/``--usage`` print the text built here from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
    _Spec("min-speed", "", "required", "speed", "economic job: nodes of at least this speed only"),
    _Spec(
        "price-cap",
        "",
        "required",
        "price",
        "economic job: the most a core may cost, per\ncore-second (alp)",
    ),
    _Spec(
        "budget",
        "",
        "required",
        "cost",
        "economic job: the most the whole job may cost\n(amp; default: price-cap x cores x limit)",
    ),
)
_EXTENSIONS = (
    "emulate-runtime",
    "bsp-sigma",
    "bsp-task-bw",
    "bpu",
    "bpu-serial",
    "home-site",
    "min-speed",
    "price-cap",
    "budget",
)
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
        "--min-speed, --price-cap and --budget make an economic job (ALP/AMP paper)",
        "for the alp and amp grid schedulers: each core is a slot of its node's",
        "speed and price (the platform file's, per core-second); a task of time",
        "limit t runs t / speed on it and costs price x t / speed. alp takes",
        "only cores priced at most --price-cap; amp takes the cheapest cores",
        "of a window costing at most --budget in all.",
        "",
        "Help options:",
        *_help_lines([_LONG["help"], _LONG["usage"]]),
        "",
    ]
)
