"""Bulk-synchronous parallel workloads as CSV (OAS paper §3.1; models.md §2), and a generator.

One job per row, with the header naming at least ``job_id,submit,tasks,base_time,sigma,task_bw,
time_limit`` in any order, optionally ``user``, ``name`` and the moldable columns below::

    job_id,submit,tasks,base_time,sigma,task_bw,time_limit
    1,0,4,600,0.8,0.25,1200

A job is τ = ``tasks`` single-core tasks, runs ``base_time`` seconds on dedicated speed-1 nodes
(the submission's runtime; the engine applies eq. 1–7 on the nodes it gets), spends the fraction
``sigma`` ∈ [0, 1] of it computing, and each task draws ``task_bw`` on the inter-cluster links
(the platform's bandwidth unit). ``time_limit`` is in seconds. Rows must come in submit order
(the engine streams them). Blank lines and lines starting with ``#`` are skipped. Every bad row
raises :class:`BspCsvError` naming the file and line, because a silently skipped job would change
the schedule of all the others.

Moldable jobs (BPU paper; models.md §2): a row with a ``bpu`` value x_j > 0 asks for x_j BPUs
instead of ``tasks`` processors (``tasks`` is then its size for a local scheduler that cannot
mold it), runs ``base_time`` seconds on exactly x_j BPUs, with the optional Amdahl ``bpu_serial``
fraction in [0, 1); ``sigma`` and ``task_bw`` do not apply to it. ``home_site`` names its home
cluster (a hint for the ``bpu`` scheduler). Empty cells mean "not given".

Economic jobs (ALP/AMP paper; models.md §4.7), for the ``alp`` and ``amp`` schedulers: a row
with any of ``min_speed`` (> 0: nodes of at least that speed), ``price_cap`` (>= 0, per
core-second) or ``budget`` (>= 0, for the whole job) asks for them, as ``sbatch --min-speed``,
``--price-cap`` and ``--budget`` do.
"""

from __future__ import annotations

import csv
import math
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from emulator.model.job import Communication, Economic, Moldable, Request, Submission

REQUIRED = ("job_id", "submit", "tasks", "base_time", "sigma", "task_bw", "time_limit")
OPTIONAL = ("user", "name", "bpu", "bpu_serial", "home_site", "min_speed", "price_cap", "budget")


class BspCsvError(ValueError):
    """A CSV workload the reader cannot use; the message names the file and line."""


def read_bsp_csv(path: str | Path) -> Iterator[Submission]:
    """Stream the submissions of a BSP CSV workload (see the module docstring)."""
    file = Path(path)
    try:
        yield from _read(file)
    except UnicodeDecodeError as error:
        raise BspCsvError(f"{file}: not UTF-8 text ({error})") from None


def _read(file: Path) -> Iterator[Submission]:
    with file.open(encoding="utf-8-sig", newline="") as stream:
        rows = csv.reader(stream)
        header: dict[str, int] | None = None
        previous = -math.inf
        for row in rows:
            number = rows.line_num
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            where = f"{file}:{number}"
            if header is None:
                header = _header(where, row)
                continue
            submission = _submission(where, header, row)
            if submission.submit < previous:
                raise BspCsvError(
                    f"{where}: submit {submission.submit:g} is before the previous row's "
                    f"{previous:g}: rows must be in submit order"
                )
            previous = submission.submit
            yield submission
        if header is None:
            raise BspCsvError(f"{file}: no header line (expected {','.join(REQUIRED)})")


def _header(where: str, row: list[str]) -> dict[str, int]:
    names = [name.strip().lower() for name in row]
    unknown = [name for name in names if name not in REQUIRED + OPTIONAL]
    if unknown:
        raise BspCsvError(
            f"{where}: unknown column {unknown[0]!r} (columns: {', '.join(REQUIRED + OPTIONAL)})"
        )
    missing = [name for name in REQUIRED if name not in names]
    if missing:
        raise BspCsvError(f"{where}: missing column(s) {', '.join(missing)}")
    if len(set(names)) != len(names):
        raise BspCsvError(f"{where}: a column appears twice")
    return {name: index for index, name in enumerate(names)}


def _submission(where: str, header: dict[str, int], row: list[str]) -> Submission:
    if len(row) != len(header):
        raise BspCsvError(f"{where}: expected {len(header)} fields, found {len(row)}")

    def text(column: str) -> str:
        return row[header[column]].strip()

    def number(column: str) -> float:
        try:
            value = float(text(column))
        except ValueError:
            raise BspCsvError(f"{where}: {column} is not a number: {text(column)!r}") from None
        if math.isnan(value):
            raise BspCsvError(f"{where}: {column} is not a number: {text(column)!r}")
        return value

    def integer(column: str) -> int:
        value = number(column)
        if not value.is_integer():
            raise BspCsvError(f"{where}: {column} must be an integer, got {text(column)!r}")
        return int(value)

    job_id = integer("job_id")
    submit, tasks = number("submit"), integer("tasks")
    base_time, sigma = number("base_time"), number("sigma")
    task_bw, limit = number("task_bw"), number("time_limit")
    if job_id < 0:
        raise BspCsvError(f"{where}: job_id must be >= 0, got {job_id}")
    if not 0 <= submit < math.inf:
        raise BspCsvError(f"{where}: submit must be a time >= 0, got {text('submit')!r}")
    if tasks < 1:
        raise BspCsvError(f"{where}: tasks must be >= 1, got {tasks}")
    if not 0 <= base_time < math.inf:
        raise BspCsvError(f"{where}: base_time must be >= 0 seconds, got {text('base_time')!r}")
    if not 0 <= sigma <= 1:
        raise BspCsvError(f"{where}: sigma must be in [0, 1], got {text('sigma')!r}")
    if not 0 <= task_bw < math.inf:
        raise BspCsvError(f"{where}: task_bw must be >= 0, got {text('task_bw')!r}")
    if not limit > 0:
        raise BspCsvError(f"{where}: time_limit must be > 0 seconds, got {text('time_limit')!r}")
    moldable = _moldable(where, header, text, number)
    request = Request(
        tasks=tasks,
        time_limit=limit,
        communication=None if moldable else Communication(base_time, sigma, task_bw),
        moldable=moldable,
        economic=_economic(where, header, text, number),
        origin=text("home_site") if "home_site" in header else "",
    )
    user = text("user") if "user" in header else ""
    name = text("name") if "name" in header else ""
    if user or name:  # an empty cell keeps Request's default, as a missing column does
        request = replace(request, user=user or request.user, name=name or request.name)
    return Submission(job_id, submit, request, base_time)


def _moldable(
    where: str,
    header: dict[str, int],
    text: Callable[[str], str],
    number: Callable[[str], float],
) -> Moldable | None:
    """The row's BPU request, if its ``bpu`` cell is given (see the module docstring)."""
    if "bpu" not in header or not text("bpu"):
        if "bpu_serial" in header and text("bpu_serial"):
            raise BspCsvError(f"{where}: bpu_serial needs a bpu value")
        return None
    power = number("bpu")
    if not 0 < power < math.inf:
        raise BspCsvError(f"{where}: bpu must be > 0 BPUs, got {text('bpu')!r}")
    serial = number("bpu_serial") if "bpu_serial" in header and text("bpu_serial") else 0.0
    if not 0 <= serial < 1:
        raise BspCsvError(f"{where}: bpu_serial must be in [0, 1), got {text('bpu_serial')!r}")
    return Moldable(power, serial)


def _economic(
    where: str,
    header: dict[str, int],
    text: Callable[[str], str],
    number: Callable[[str], float],
) -> Economic | None:
    """The row's economic request, if any of its cells is given (see the module docstring)."""
    given = {
        column: number(column)
        for column in ("min_speed", "price_cap", "budget")
        if column in header and text(column)
    }
    if not given:
        return None
    if not 0 < given.get("min_speed", 1.0) < math.inf:
        raise BspCsvError(f"{where}: min_speed must be > 0, got {text('min_speed')!r}")
    for column in ("price_cap", "budget"):
        if not 0 <= given.get(column, 0.0) < math.inf:
            raise BspCsvError(f"{where}: {column} must be >= 0, got {text(column)!r}")
    return Economic(given.get("min_speed", 0.0), given.get("price_cap"), given.get("budget"))


def write_bsp_csv(path: str | Path, submissions: Iterable[Submission]) -> int:
    """Write BSP submissions in the format :func:`read_bsp_csv` reads; returns the row count."""
    count = 0
    with Path(path).open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([*REQUIRED, *OPTIONAL])
        for item in submissions:
            request = item.request
            communication = request.communication or Communication(item.runtime)
            moldable = request.moldable
            writer.writerow(
                [
                    item.job_id,
                    _text(item.submit),
                    request.tasks,
                    _text(communication.base_time),
                    _text(communication.sigma),
                    _text(communication.task_bw),
                    _text(request.time_limit),
                    request.user,
                    request.name,
                    "" if moldable is None else _text(moldable.power),
                    ""
                    if moldable is None or not moldable.serial_fraction
                    else _text(moldable.serial_fraction),
                    request.origin,
                    *_economic_cells(request.economic),
                ]
            )
            count += 1
    return count


def _economic_cells(economic: Economic | None) -> list[str]:
    if economic is None:
        return ["", "", ""]
    return [
        _text(economic.min_speed) if economic.min_speed else "",
        "" if economic.price_cap is None else _text(economic.price_cap),
        "" if economic.budget is None else _text(economic.budget),
    ]


def _text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def bsp_jobs(
    count: int,
    cores: int,
    *,
    load: float = 0.85,
    max_tasks: int | None = None,
    max_task_bw: float = 1.0,
    seed: int = 1,
) -> Iterator[Submission]:
    """``count`` synthetic BSP jobs for a platform of ``cores`` cores at offered load ``load``.

    Tasks log-uniform over [1, max_tasks] (default ``cores // 4``), base times log-uniform over
    [60 s, 2 h], σ uniform over [0.3, 1], PTBW log-uniform over [max_task_bw / 50, max_task_bw],
    limits 1.5 to 3 times the base time rounded up to minutes, Poisson arrivals with the rate that
    offers ``load`` (work at speed 1 over capacity). Seeded: the same arguments give the same jobs,
    with values rounded so that :func:`write_bsp_csv` and :func:`read_bsp_csv` round-trip them.
    """
    if count < 0 or cores <= 0 or load <= 0:
        raise ValueError("count must be >= 0, cores and load > 0")
    largest = max_tasks or max(1, cores // 4)
    low_time, high_time = 60.0, 7200.0
    rng = random.Random(seed)
    mean_tasks = largest / math.log(largest + 1)  # of the continuous draw: a rough calibration
    mean_time = (high_time - low_time) / math.log(high_time / low_time)
    rate = load * cores / (mean_tasks * mean_time)
    now = 0.0
    for job_id in range(1, count + 1):
        now += rng.expovariate(rate)
        tasks = min(int(math.exp(rng.uniform(0.0, math.log(largest + 1)))), largest)
        base_time = round(math.exp(rng.uniform(math.log(low_time), math.log(high_time))))
        sigma = round(rng.uniform(0.3, 1.0), 2)
        task_bw = round(max_task_bw * math.exp(rng.uniform(math.log(1 / 50), 0.0)), 3)
        limit = math.ceil(base_time * rng.uniform(1.5, 3.0) / 60) * 60
        request = Request(
            tasks=tasks,
            time_limit=limit,
            name=f"bsp{job_id}",
            user=f"u{job_id % 31}",
            communication=Communication(float(base_time), sigma, task_bw),
        )
        yield Submission(job_id, round(now), request, float(base_time))
