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
    # --- sbatch 22.05's other options (sbatch.1): see sbatch_values for what each becomes ---
    _Spec(
        "acctg-freq", "", "required", "type=secs", "job accounting and profiling sampling intervals"
    ),
    _Spec("batch", "", "required", "list", "features of the batch host"),
    _Spec("bb", "", "required", "<spec>", "burst buffer specifications"),
    _Spec("bbf", "", "required", "<file_name>", "burst buffer specification file"),
    _Spec("comment", "", "required", "name", "arbitrary comment"),
    _Spec(
        "cpu-freq",
        "",
        "required",
        "min[-max[:gov]]",
        "requested cpu frequency (and governor)",
    ),
    _Spec("delay-boot", "", "required", "mins", "delay boot for desired node features"),
    _Spec("export", "", "required", "names", "specify environment variables to export"),
    _Spec(
        "export-file",
        "",
        "required",
        "file|fd",
        "specify environment variables file or file\ndescriptor to export",
    ),
    _Spec("get-user-env", "", "optional", "", "load environment from local cluster"),
    _Spec("gid", "", "required", "group_id", "group ID to run job as (user root only)"),
    _Spec("gres", "", "required", "list", "required generic resources"),
    _Spec("gres-flags", "", "required", "opts", "flags related to GRES management"),
    _Spec("ignore-pbs", "", "none", "", "Ignore #PBS and #BSUB options in the batch script"),
    _Spec("input", "i", "required", "in", "file for batch script's standard input"),
    _Spec(
        "kill-on-invalid-dep",
        "",
        "required",
        "yes|no",
        "cancel the job if its dependency can never be\nsatisfied",
    ),
    _Spec("no-kill", "k", "optional", "", "do not kill job on node failure"),
    _Spec("licenses", "L", "required", "names", "required license, comma separated"),
    _Spec("container", "", "required", "path", "Path to OCI container bundle"),
    _Spec(
        "distribution",
        "m",
        "required",
        "type",
        "distribution method for processes to nodes\n(type = block|cyclic|arbitrary)",
    ),
    _Spec(
        "mail-type",
        "",
        "required",
        "type",
        "notify on state change: BEGIN, END, FAIL or ALL",
    ),
    _Spec(
        "mail-user",
        "",
        "required",
        "user",
        "who to send email notification for job state\nchanges",
    ),
    _Spec("mcs-label", "", "required", "mcs", "mcs label if mcs plugin mcs/group is used"),
    _Spec("nice", "", "optional", "value", "decrease scheduling priority by value"),
    _Spec("no-requeue", "", "none", "", "if set, do not permit the job to be requeued"),
    _Spec("open-mode", "", "required", "append|truncate", "how to open the output files"),
    _Spec("overcommit", "O", "none", "", "overcommit resources"),
    _Spec("power", "", "required", "flags", "power management options"),
    _Spec("prefer", "", "required", "list", "features the job would rather have"),
    _Spec("priority", "", "required", "value", "set the priority of the job to value"),
    _Spec(
        "profile",
        "",
        "required",
        "value",
        "enable acct_gather_profile for detailed data\nvalue is all or none or any combination "
        "of\nenergy, lustre, network or task",
    ),
    _Spec(
        "propagate",
        "",
        "optional",
        "rlimits",
        "propagate all [or specific list of] rlimits",
    ),
    _Spec("qos", "q", "required", "qos", "quality of service"),
    _Spec("quiet", "Q", "none", "", "quiet mode (suppress informational messages)"),
    _Spec("reboot", "", "none", "", "reboot compute nodes before starting job"),
    _Spec("requeue", "", "none", "", "if set, permit the job to be requeued"),
    _Spec("oversubscribe", "s", "none", "", "over subscribe resources with other jobs"),
    _Spec("core-spec", "S", "required", "cores", "count of reserved cores"),
    _Spec(
        "signal",
        "",
        "required",
        "[[R][B]:]num[@time]",
        "send signal when time limit within time seconds",
    ),
    _Spec("spread-job", "", "none", "", "spread job across as many nodes as possible"),
    _Spec(
        "switches",
        "",
        "required",
        "max-switches{@max-time-to-wait}",
        "Optimum switches and max time to wait for optimum",
    ),
    _Spec("thread-spec", "", "required", "threads", "count of reserved threads"),
    _Spec("time-min", "", "required", "minutes", "minimum time limit (if distinct)"),
    _Spec("uid", "", "required", "user_id", "user ID to run job as (user root only)"),
    _Spec(
        "use-min-nodes",
        "",
        "none",
        "",
        "if a range of node counts is given, prefer the\nsmaller count",
    ),
    _Spec("verbose", "v", "none", "", "verbose mode (multiple -v's increase verbosity)"),
    _Spec("wckey", "", "required", "wckey", "wckey to run job under"),
    _Spec(
        "wait-all-nodes",
        "",
        "required",
        "0|1",
        "wait for all nodes to be booted before starting",
    ),
    _Spec(
        "cluster-constraint",
        "",
        "required",
        "[!]list",
        "specify a list of cluster constraints",
    ),
    _Spec("contiguous", "", "none", "", "demand a contiguous range of nodes"),
    _Spec("constraint", "C", "required", "list", "specify a list of constraints"),
    _Spec("nodefile", "F", "required", "filename", "request a specific list of hosts"),
    _Spec(
        "mincpus",
        "",
        "required",
        "n",
        "minimum number of logical processors (threads)\nper node",
    ),
    _Spec("reservation", "", "required", "name", "allocate resources from named reservation"),
    _Spec("tmp", "", "required", "MB", "minimum amount of temporary disk"),
    _Spec(
        "mem-per-cpu",
        "",
        "required",
        "MB",
        "maximum amount of real memory per allocated\ncpu required by the job.\n"
        "--mem >= --mem-per-cpu if --mem is specified.",
    ),
    _Spec("mem-bind", "", "required", "type", "bind memory to locality domains"),
    _Spec("sockets-per-node", "", "required", "S", "number of sockets per node to allocate"),
    _Spec("cores-per-socket", "", "required", "C", "number of cores per socket to allocate"),
    _Spec("threads-per-core", "", "required", "T", "number of threads per core to allocate"),
    _Spec(
        "extra-node-info",
        "B",
        "required",
        "S[:C[:T]]",
        "combine request of sockets per node,\ncores per socket and threads per core",
    ),
    _Spec("hint", "", "required", "type", "bind tasks according to application hints"),
    _Spec("ntasks-per-core", "", "required", "n", "number of tasks to invoke on each core"),
    _Spec("ntasks-per-socket", "", "required", "n", "number of tasks to invoke on each socket"),
    _Spec("ntasks-per-gpu", "", "required", "n", "number of tasks to invoke for each GPU"),
    _Spec("cpus-per-gpu", "", "required", "n", "number of CPUs required per allocated GPU"),
    _Spec("gpus", "G", "required", "n", "count of GPUs required for the job"),
    _Spec("gpu-bind", "", "required", "...", "task to gpu binding options"),
    _Spec("gpu-freq", "", "required", "...", "frequency and voltage of GPUs"),
    _Spec("gpus-per-node", "", "required", "n", "number of GPUs required per allocated node"),
    _Spec("gpus-per-socket", "", "required", "n", "number of GPUs required per allocated socket"),
    _Spec("gpus-per-task", "", "required", "n", "number of GPUs required per spawned task"),
    _Spec("mem-per-gpu", "", "required", "n", "real memory required per allocated GPU"),
    _Spec("network", "", "required", "type", "specify information pertaining to the switch"),
    _Spec("version", "V", "none", "", "output version information and exit"),
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


@dataclass(frozen=True)
class OptionTable:
    """One command's getopt table: its long and short options, its aliases, and the program
    name its messages start with (sbatch's here; srun's and salloc's in
    :mod:`emulator.slurm.srun_option_table`)."""

    program: str
    long: dict[str, _Spec]
    short: dict[str, _Spec]
    aliases: dict[str, str]


_LONG = {spec.long: spec for spec in _SPECS}
_SHORT = {spec.short: spec for spec in _SPECS if spec.short}
_ALIASES = {"tasks-per-node": "ntasks-per-node", "cluster": "clusters"}
SBATCH = OptionTable("sbatch", _LONG, _SHORT, _ALIASES)

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
    "SBATCH_ACCTG_FREQ": "acctg-freq",
    "SBATCH_BATCH": "batch",
    "SBATCH_CONSTRAINT": "constraint",
    "SBATCH_CONTAINER": "container",
    "SBATCH_CORE_SPEC": "core-spec",
    "SBATCH_CPUS_PER_GPU": "cpus-per-gpu",
    "SBATCH_DELAY_BOOT": "delay-boot",
    "SBATCH_DISTRIBUTION": "distribution",
    "SBATCH_EXPORT": "export",
    "SBATCH_GET_USER_ENV": "get-user-env",
    "SBATCH_GPUS": "gpus",
    "SBATCH_GPUS_PER_NODE": "gpus-per-node",
    "SBATCH_GPUS_PER_TASK": "gpus-per-task",
    "SBATCH_GPU_BIND": "gpu-bind",
    "SBATCH_GPU_FREQ": "gpu-freq",
    "SBATCH_GRES": "gres",
    "SBATCH_GRES_FLAGS": "gres-flags",
    "SBATCH_HINT": "hint",
    "SLURM_HINT": "hint",
    "SBATCH_IGNORE_PBS": "ignore-pbs",
    "SBATCH_INPUT": "input",
    "SBATCH_MEM_BIND": "mem-bind",
    "SBATCH_MEM_PER_CPU": "mem-per-cpu",
    "SBATCH_MEM_PER_GPU": "mem-per-gpu",
    "SBATCH_NETWORK": "network",
    "SBATCH_NO_KILL": "no-kill",
    "SBATCH_NO_REQUEUE": "no-requeue",
    "SBATCH_OPEN_MODE": "open-mode",
    "SBATCH_OVERCOMMIT": "overcommit",
    "SBATCH_POWER": "power",
    "SBATCH_PROFILE": "profile",
    "SBATCH_QOS": "qos",
    "SBATCH_REQUEUE": "requeue",
    "SBATCH_REQ_SWITCH": "switches",
    "SBATCH_RESERVATION": "reservation",
    "SBATCH_SIGNAL": "signal",
    "SBATCH_SPREAD_JOB": "spread-job",
    "SBATCH_THREADS_PER_CORE": "threads-per-core",
    "SBATCH_THREAD_SPEC": "thread-spec",
    "SBATCH_USE_MIN_NODES": "use-min-nodes",
    "SBATCH_WAIT_ALL_NODES": "wait-all-nodes",
    "SBATCH_WCKEY": "wckey",
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
                (
                    s
                    for s in _SPECS
                    if s.text and s.long not in (*_EXTENSIONS, "help", "usage", "version")
                ),
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
        "Other options:",
        *_help_lines([_LONG["version"]]),
        "",
    ]
)
