"""Scheduler specs and the policy registry.

One syntax everywhere (CLI, daemon, GUI): ``NAME[:key=value,...]`` for one policy and
``GRID+LOCAL`` for a grid policy over a local one, e.g. ``easy``, ``coalloc:order=sjf``,
``oas:solver=glpk,slot=0.5``, ``mct+cbf``. Names are found in the ``batchlab.schedulers``
entry-point group, so a third-party package registers a policy exactly as batchlab's own do.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from emulator.api.policy import GridPolicy, LocalPolicy

GROUP = "batchlab.schedulers"
# the scheduler of every front end that is not told one: replay, run, the daemon, the window
DEFAULT_SCHEDULER = "easy"

PolicyClass = type[LocalPolicy] | type[GridPolicy]


class SpecError(ValueError):
    """A scheduler spec that names no policy or gives it options it does not have."""


@dataclass(frozen=True, slots=True)
class PolicySpec:
    name: str
    options: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.options)


@dataclass(frozen=True, slots=True)
class SchedulerSpec:
    """A parsed spec: one local policy (run on every cluster) and an optional grid policy."""

    local: PolicySpec
    grid: PolicySpec | None = None

    def __str__(self) -> str:
        return f"{self.grid}+{self.local}" if self.grid else str(self.local)


def parse_policy(text: str) -> PolicySpec:
    name, _, rest = text.strip().partition(":")
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise SpecError(f"invalid scheduler name {name!r} in {text!r}")
    options: list[tuple[str, str]] = []
    for item in filter(None, rest.split(",")):
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise SpecError(f"option {item!r} of scheduler {name!r} is not key=value")
        options.append((key.strip(), value.strip()))
    return PolicySpec(name.lower(), tuple(options))


def parse_spec(text: str) -> SchedulerSpec:
    """Parse ``NAME[:k=v,...]`` or ``GRID[:...]+LOCAL[:...]``, checking names and options."""
    parts = text.split("+")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        raise SpecError(f"invalid scheduler spec {text!r}: expected NAME[:k=v,...][+LOCAL]")
    first = parse_policy(parts[0])
    if len(parts) == 2:
        grid, local = first, parse_policy(parts[1])
        _require_kind(grid, "grid")
        _require_kind(local, "local")
    elif policy_class(first.name).kind == "grid":
        grid = first
        local = PolicySpec(typing.cast(type[GridPolicy], policy_class(first.name)).default_local)
    else:
        grid, local = None, first
    if grid is not None:
        _require_local(grid, local)
    spec = SchedulerSpec(local, grid)
    build(spec.local)  # validates the options now rather than at the first pass
    if spec.grid:
        build(spec.grid)
    return spec


def _require_local(grid: PolicySpec, local: PolicySpec) -> None:
    supported = typing.cast(type[GridPolicy], policy_class(grid.name)).local_policies
    if supported and local.name not in supported:
        raise SpecError(
            f"grid policy {grid.name!r} runs over local {' or '.join(supported)}, "
            f"not {local.name!r}"
        )


def _require_kind(spec: PolicySpec, kind: str) -> None:
    actual = policy_class(spec.name).kind
    if actual != kind:
        raise SpecError(f"scheduler {spec.name!r} is a {actual} policy, expected a {kind} one here")


@cache
def named_entry_points(group: str) -> dict[str, EntryPoint]:
    """The entry points of ``group`` by name: how batchlab finds anything it looks up by name
    (policies here, experiments in ``emulator.sweep.experiments``), its own and third parties'."""
    return {ep.name: ep for ep in entry_points(group=group)}


def first_doc_line(obj: object) -> str:
    """The one-line description a listing shows: the first line of ``obj``'s docstring."""
    return ((obj.__doc__ or "").strip().splitlines() or [""])[0]


def _entry_points() -> dict[str, Any]:
    return named_entry_points(GROUP)


def available() -> dict[str, str]:
    """Registered policy names with the first line of their docstring, sorted by name.

    A broken entry point (say, a third-party package's) is listed with its error, not fatal.
    """
    listing = {}
    for name in sorted(_entry_points()):
        try:
            listing[name] = first_doc_line(policy_class(name))
        except (SpecError, ImportError, AttributeError) as error:
            listing[name] = f"(cannot be loaded: {error})"
    return listing


@cache
def policy_class(name: str) -> PolicyClass:
    entry = _entry_points().get(name)
    if entry is None:
        known = ", ".join(sorted(_entry_points())) or "none: is batchlab installed?"
        raise SpecError(f"unknown scheduler {name!r} (available: {known})")
    cls = entry.load()
    if not (isinstance(cls, type) and issubclass(cls, LocalPolicy | GridPolicy)):
        raise SpecError(f"entry point {name!r} is not a LocalPolicy or GridPolicy class")
    return cls


def build(spec: PolicySpec) -> LocalPolicy | GridPolicy:
    """A fresh policy instance with the spec's options converted to its fields' types."""
    cls = policy_class(spec.name)
    options: tuple[dataclasses.Field[Any], ...] = (
        dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    )
    fields = {f.name: f for f in options if f.init}
    hints = typing.get_type_hints(cls) if spec.options else {}
    kwargs: dict[str, Any] = {}
    for key, raw in spec.options:
        if key not in fields:
            names = ", ".join(sorted(fields)) or "none"
            raise SpecError(f"scheduler {spec.name!r} has no option {key!r} (options: {names})")
        kwargs[key] = _convert(spec.name, key, raw, hints[key])
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise SpecError(f"scheduler {spec.name!r}: {error}") from None


def _convert(name: str, key: str, raw: str, hint: Any) -> Any:
    try:
        if hint is bool:
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(raw)
            return raw.lower() in ("true", "1", "yes")
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return hint(raw.lower())
        if hint in (int, float, str):
            return hint(raw)
        if typing.get_origin(hint) is typing.Union or isinstance(hint, type(int | None)):
            inner = [a for a in typing.get_args(hint) if a is not type(None)]
            return None if raw.lower() == "none" else _convert(name, key, raw, inner[0])
    except ValueError:
        allowed = ""
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            allowed = f" (one of: {', '.join(str(m.value) for m in hint)})"
        raise SpecError(f"scheduler {name!r}: invalid value {raw!r} for {key!r}{allowed}") from None
    raise SpecError(f"scheduler {name!r}: option {key!r} has an unsupported type {hint!r}")
