"""Scheduler specs and the entry-point registry."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint

import pytest

from emulator.api import ClusterView, Decision, GridPolicy, GridView, LocalPolicy, registry
from emulator.api.registry import SpecError, available, build, parse_spec


class Order(enum.Enum):
    FCFS = "fcfs"
    SJF = "sjf"


@dataclass
class Tunable(LocalPolicy):
    """A test policy with one option of each supported type."""

    name = "tunable"
    depth: int = 1
    slot: float = 0.5
    label: str = "x"
    strict: bool = False
    order: Order = Order.FCFS
    limit: float | None = None

    def schedule(self, view: ClusterView) -> Iterator[Decision]:
        yield from ()


@dataclass
class Broker(GridPolicy):
    """A test grid policy whose default local policy is easy."""

    name = "broker"
    default_local = "easy"

    def schedule(self, view: GridView) -> Iterator[Decision]:
        yield from ()


@pytest.fixture(autouse=True)
def test_policies(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = dict(registry._entry_points())
    fake = {
        "tunable": EntryPoint("tunable", f"{__name__}:Tunable", registry.GROUP),
        "broker": EntryPoint("broker", f"{__name__}:Broker", registry.GROUP),
        "notapolicy": EntryPoint("notapolicy", f"{__name__}:Order", registry.GROUP),
    }
    monkeypatch.setattr(registry, "_entry_points", lambda: {**real, **fake})
    registry.policy_class.cache_clear()
    yield
    registry.policy_class.cache_clear()


def test_the_local_policies_are_registered() -> None:
    names = available()
    assert {"fcfs", "easy", "cbf", "lsf"} <= set(names)
    assert names["easy"].startswith("EASY backfilling")
    assert names["notapolicy"] == (
        "(cannot be loaded: entry point 'notapolicy' is not a LocalPolicy or GridPolicy class)"
    )


def test_options_are_converted_to_their_field_types() -> None:
    spec = parse_spec("tunable:depth=3,slot=0.25,label=abc,strict=yes,order=SJF,limit=none")
    policy = build(spec.local)
    assert policy == Tunable(3, 0.25, "abc", True, Order.SJF, None)
    assert build(parse_spec("tunable:limit=7.5").local) == Tunable(limit=7.5)
    assert str(spec) == "tunable:depth=3,slot=0.25,label=abc,strict=yes,order=SJF,limit=none"


def test_grid_and_local_specs() -> None:
    spec = parse_spec("broker+cbf")
    assert (spec.grid and spec.grid.name, spec.local.name, str(spec)) == (
        "broker",
        "cbf",
        "broker+cbf",
    )
    alone = parse_spec("broker")
    assert (alone.grid and alone.grid.name, alone.local.name) == ("broker", "easy")
    assert parse_spec("  EASY ").local.name == "easy" and parse_spec("easy").grid is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "nosuch",
            r"unknown scheduler 'nosuch' \(available: alp, amp, backfill, bpu, broker, cbf, "
            r".*easy, fcfs, lsf",
        ),
        ("easy:foo=1", r"scheduler 'easy' has no option 'foo' \(options: none\)"),
        ("tunable:depth=deep", r"invalid value 'deep' for 'depth'"),
        ("tunable:order=lpt", r"invalid value 'lpt' for 'order' \(one of: fcfs, sjf\)"),
        ("tunable:strict=maybe", r"invalid value 'maybe' for 'strict'"),
        ("tunable:depth", r"option 'depth' of scheduler 'tunable' is not key=value"),
        ("easy+cbf", r"scheduler 'easy' is a local policy, expected a grid one here"),
        ("broker+broker", r"scheduler 'broker' is a grid policy, expected a local one here"),
        ("a+b+c", r"expected NAME\[:k=v,...\]\[\+LOCAL\]"),
        ("easy+", r"expected NAME"),
        ("e$sy", r"invalid scheduler name"),
        ("notapolicy", r"entry point 'notapolicy' is not a LocalPolicy or GridPolicy class"),
    ],
)
def test_bad_specs_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec(text)


def test_each_build_is_a_fresh_instance() -> None:
    spec = parse_spec("cbf").local
    assert build(spec) is not build(spec)
