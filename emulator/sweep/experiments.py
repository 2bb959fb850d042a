"""The experiment cell API and the registry that finds cells by name.

An experiment is a plain, deterministic function registered under the entry-point group
``batchlab.experiments`` (the way policies are under ``batchlab.schedulers``, through the same
``named_entry_points``)::

    def cell(params: Mapping[str, object], seed: int) -> dict[str, float | int | str | bool]:
        \"\"\"One-line description, shown by ``batchlab sweep --list``.\"\"\"

``params`` holds one grid point of a sweep spec (TOML scalars: int, float, str, bool), ``seed``
one of its seeds; the result is a flat record of metrics. The same (params, seed) must give the
same record on any worker, so a cell seeds every random draw from ``seed`` and never reads the
clock into its metrics (a solver's wall time is the one honest exception, and its name says so).
Cells live outside ``emulator`` (in ``experiments/`` for batchlab's own), because the engine
never imports policies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache

from emulator.api.registry import first_doc_line, named_entry_points

GROUP = "batchlab.experiments"

Scalar = int | float | str | bool
Metrics = dict[str, Scalar]
Cell = Callable[[Mapping[str, object], int], Metrics]


class ExperimentError(ValueError):
    """A name that no installed package registers as an experiment, or that is not a cell."""


@cache
def experiment(name: str) -> Cell:
    """The cell registered as ``name``."""
    entry = named_entry_points(GROUP).get(name)
    if entry is None:
        known = ", ".join(sorted(named_entry_points(GROUP))) or "none: is batchlab installed?"
        raise ExperimentError(f"unknown experiment {name!r} (available: {known})")
    cell = entry.load()
    if not callable(cell):
        raise ExperimentError(f"entry point {name!r} ({entry.value}) is not a function")
    found: Cell = cell
    return found


def available() -> dict[str, str]:
    """Registered experiment names with their one-line description, sorted by name; a broken
    entry point is listed with its error rather than stopping the listing."""
    listing = {}
    for name in sorted(named_entry_points(GROUP)):
        try:
            listing[name] = first_doc_line(experiment(name))
        except (ExperimentError, ImportError, AttributeError) as error:
            listing[name] = f"(cannot be loaded: {error})"
    return listing
