"""The paper's SlotGenerator and JobGenerator (Toporkov et al., ICCS 2011, §5; models.md §4.7):
a random slot list sorted by start and a random job batch, every range settable.

The paper gives ranges and says every value is uniform in its range. Readings left open, ours:
counts (slots, jobs, nodes per job) are integers, everything else is real; each slot is on a
node of its own (the paper generates slots, not nodes); the first slot starts at 0 and each
next one shares the previous start with probability ``same_start`` or else starts a uniform
gap later; the price cap of a job is C = base^P_req, the list price of a node of the requested
performance (the reading that reproduces the paper's costs, models.md §4.7).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, fields

from solvers.economic.slots import Request, Slot


@dataclass(frozen=True, slots=True)
class Settings:
    """The generators' parameters; the defaults are the paper's §5 values."""

    slots_min: int = 120
    slots_max: int = 150
    slot_length_min: float = 50.0
    slot_length_max: float = 300.0
    performance_min: float = 1.0
    performance_max: float = 3.0
    same_start: float = 0.4
    gap_min: float = 0.0
    gap_max: float = 10.0
    price_base: float = 1.7
    """p = price_base ** performance, the node's list price per time unit."""
    price_spread: float = 0.25
    """A slot's price is uniform in [(1 − spread)·p, (1 + spread)·p]."""
    jobs_min: int = 3
    jobs_max: int = 7
    nodes_min: int = 1
    nodes_max: int = 6
    job_length_min: float = 50.0
    job_length_max: float = 150.0
    min_performance_min: float = 1.0
    min_performance_max: float = 2.0
    budget_factor: float = 1.0
    """rho in AMP's budget S = rho·C·t·N (§6; 1 in the paper's experiment)."""

    def __post_init__(self) -> None:
        for low, high in _RANGES:
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} must not exceed {high}")
        for name in ("slots_min", "jobs_min", "nodes_min"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("slot_length_min", "performance_min", "job_length_min", "price_base"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")
        if self.gap_min < 0:
            raise ValueError("gap_min must not be negative")
        if not 0 <= self.same_start <= 1:
            raise ValueError("same_start must be a probability in [0, 1]")
        if not 0 <= self.price_spread < 1:
            raise ValueError("price_spread must be in [0, 1)")
        if not self.budget_factor > 0:
            raise ValueError("budget_factor must be positive")

    @classmethod
    def parameter_names(cls) -> list[str]:
        """The names ``from_params`` reads."""
        return [field.name for field in fields(cls)]

    @classmethod
    def from_params(cls, params: Mapping[str, object]) -> Settings:
        """Settings from a sweep cell's parameters: the known names, each checked for type;
        other parameters are not the generator's and are left alone."""
        values: dict[str, int | float] = {}
        for field in fields(cls):
            if field.name not in params:
                continue
            value = params[field.name]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{field.name} must be a number, got {value!r}")
            if field.type == "int" and not isinstance(value, int):
                raise ValueError(f"{field.name} must be an integer, got {value!r}")
            values[field.name] = value if field.type == "int" else float(value)
        return cls(**values)  # type: ignore[arg-type]


_RANGES = [
    ("slots_min", "slots_max"),
    ("slot_length_min", "slot_length_max"),
    ("performance_min", "performance_max"),
    ("gap_min", "gap_max"),
    ("jobs_min", "jobs_max"),
    ("nodes_min", "nodes_max"),
    ("job_length_min", "job_length_max"),
    ("min_performance_min", "min_performance_max"),
]


def slot_list(settings: Settings, rng: random.Random) -> list[Slot]:
    """SlotGenerator: an ordered list of vacant slots, one node each."""
    slots = []
    start = 0.0
    for node in range(rng.randint(settings.slots_min, settings.slots_max)):
        if node and rng.random() >= settings.same_start:
            start += rng.uniform(settings.gap_min, settings.gap_max)
        performance = rng.uniform(settings.performance_min, settings.performance_max)
        list_price = settings.price_base**performance
        price = list_price * rng.uniform(1 - settings.price_spread, 1 + settings.price_spread)
        length = rng.uniform(settings.slot_length_min, settings.slot_length_max)
        slots.append(Slot(node, start, start + length, performance, price))
    return slots


def job_batch(settings: Settings, rng: random.Random) -> list[Request]:
    """JobGenerator: a batch in priority order (first job first)."""
    batch = []
    for _ in range(rng.randint(settings.jobs_min, settings.jobs_max)):
        nodes = rng.randint(settings.nodes_min, settings.nodes_max)
        length = rng.uniform(settings.job_length_min, settings.job_length_max)
        floor = rng.uniform(settings.min_performance_min, settings.min_performance_max)
        cap = settings.price_base**floor
        batch.append(Request(nodes, length, floor, cap, settings.budget_factor))
    return batch
