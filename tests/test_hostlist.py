"""Slurm hostlist expressions (emulator/model/hostlist.py): examples and round-trip properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.model.hostlist import HostlistError, compress, expand

# --- expand ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ("node[01-04]", ["node01", "node02", "node03", "node04"]),  # the lab's slurm.conf
        ("node[01-03]", ["node01", "node02", "node03"]),  # scontrol show hostnames sample
        ("a[1-3,5],b", ["a1", "a2", "a3", "a5", "b"]),
        ("n[008-011]", ["n008", "n009", "n010", "n011"]),  # zero padding kept across a carry
        ("n[8-11]", ["n8", "n9", "n10", "n11"]),  # no padding: widths grow
        ("n[098-101]", ["n098", "n099", "n100", "n101"]),
        ("n[5]", ["n5"]),
        ("n[07]", ["n07"]),
        ("n[1,3,2]", ["n1", "n3", "n2"]),  # order kept, not sorted
        ("n[1-2,2-3]", ["n1", "n2", "n2", "n3"]),  # duplicates kept
        ("login", ["login"]),
        ("node07", ["node07"]),
        ("b,a", ["b", "a"]),
        (
            "bordeaux-[001-003],lyon-[1-2],login",
            [
                "bordeaux-001",
                "bordeaux-002",
                "bordeaux-003",
                "lyon-1",
                "lyon-2",
                "login",
            ],
        ),
        ("c0n[0-1],c1n[0-1]", ["c0n0", "c0n1", "c1n0", "c1n1"]),
        ("rack[1-2]-ib", ["rack1-ib", "rack2-ib"]),  # suffix after the bracket
        ("  node[1-2]  ", ["node1", "node2"]),  # surrounding blanks ignored
        ("", []),
    ],
)
def test_expand(expression: str, names: list[str]) -> None:
    assert expand(expression) == names


def test_expand_large_range() -> None:
    names = expand("bordeaux-[001-640]")
    assert len(names) == 640
    assert (names[0], names[99], names[639]) == ("bordeaux-001", "bordeaux-100", "bordeaux-640")


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("n[1-", "invalid hostlist"),
        ("n[]", "invalid range ''"),
        ("n[a-b]", "invalid range 'a-b'"),
        ("n[1-b]", "invalid range '1-b'"),
        ("n[1--3]", "invalid range '1--3'"),
        ("n[-3]", "invalid range '-3'"),
        ("n[3-1]", "descending range '3-1'"),
        ("n[1,,2]", "invalid range ''"),
        ("n[1-2]x[3-4]", "invalid hostlist"),  # one bracket per name
        (",n1", "invalid hostlist"),
        ("n1,,n2", "invalid hostlist"),
    ],
)
def test_expand_errors(expression: str, fragment: str) -> None:
    with pytest.raises(HostlistError) as info:
        expand(expression)
    assert fragment in str(info.value)
    assert repr(expression) in str(info.value)


def test_hostlist_error_is_a_value_error() -> None:
    assert issubclass(HostlistError, ValueError)


def test_expand_blank_separated() -> None:
    assert expand("node01 node02") == ["node01", "node02"]


# --- compress --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expression"),
    [
        (["node01", "node02", "node03"], "node[01-03]"),  # scontrol show hostlist sample
        (["node01", "node02", "node03", "node04"], "node[01-04]"),
        (["node01", "node02", "node04", "login"], "node[01-02,04],login"),
        (["n1", "n3", "n5", "n6", "n7"], "n[1,3,5-7]"),
        (["n3", "n1", "n2"], "n[1-3]"),  # sorted within a group
        (["n1", "n1", "n2"], "n[1-2]"),  # duplicates merged
        (["b1", "a1", "b2"], "b[1-2],a1"),  # groups in first-seen order
        (["login", "n1", "n2", "gw"], "login,n[1-2],gw"),
        (["node07"], "node07"),  # a single numbered name keeps no bracket
        (["login"], "login"),
        (["n008", "n009", "n010"], "n[008-010]"),
        (["c0n0", "c0n1", "c1n0", "c1n1"], "c0n[0-1],c1n[0-1]"),
        (["rack1-ib", "rack2-ib"], "rack1-ib,rack2-ib"),  # no trailing number: plain names
        ([], ""),
    ],
)
def test_compress(names: list[str], expression: str) -> None:
    assert compress(names) == expression


def test_compress_accepts_any_iterable() -> None:
    assert compress(f"n{i:02d}" for i in (4, 2, 3)) == "n[02-04]"


def test_compress_keeps_digit_widths_apart() -> None:
    # Documented: names sharing a prefix AND a digit width share a bracket.
    assert compress(["n01", "n1", "n02"]) == "n[01-02],n1"


def test_compress_unpadded_widths_like_slurm() -> None:
    assert compress(expand("n[1-10]")) == "n[1-10]"
    assert compress(["n9", "n10"]) == "n[9-10]"


def test_all_digit_names_round_trip() -> None:
    assert expand(compress(["1", "2"])) == ["1", "2"]


# --- properties ------------------------------------------------------------------------------

LETTERS = "abcxyz-_"
# A prefix never ends with a digit (else its digits would join the node number) and never is
# empty (see test_all_digit_names_round_trip).
prefixes = st.builds(
    lambda body, last: body + last,
    st.text(alphabet=LETTERS + "0123456789", max_size=4),
    st.sampled_from(LETTERS),
)


@st.composite
def range_parts(draw: st.DrawFn) -> str:
    low = draw(st.integers(min_value=0, max_value=1200))
    width = draw(st.integers(min_value=len(str(low)), max_value=5))
    if draw(st.booleans()):
        return str(low).zfill(width)
    high = low + draw(st.integers(min_value=0, max_value=25))
    return f"{str(low).zfill(width)}-{str(high).zfill(width) if draw(st.booleans()) else high}"


@st.composite
def expressions(draw: st.DrawFn) -> str:
    entries = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        prefix = draw(prefixes)
        if draw(st.booleans()):
            entries.append(prefix)  # a plain name
            continue
        parts = draw(st.lists(range_parts(), min_size=1, max_size=4))
        suffix = draw(st.sampled_from(["", "", "-ib", "x"]))
        entries.append(f"{prefix}[{','.join(parts)}]{suffix}")
    return ",".join(entries)


@given(expressions())
def test_compress_of_expand_re_expands_to_the_same_set(expression: str) -> None:
    names = expand(expression)
    again = expand(compress(names))
    assert set(again) == set(names)


# A node name as (prefix, width, number), or a plain name as (prefix, 0, -1).
node_keys = st.one_of(
    st.tuples(prefixes, st.integers(1, 4), st.integers(0, 9999)).map(
        lambda t: (t[0], t[1], t[2] % 10 ** t[1])
    ),
    st.tuples(prefixes, st.just(0), st.just(-1)),
)


def name_of(key: tuple[str, int, int]) -> str:
    prefix, width, number = key
    return prefix if width == 0 else prefix + str(number).zfill(width)


@given(st.lists(node_keys, max_size=30, unique_by=name_of))
def test_expand_of_compress_gives_back_the_same_names(keys: list[tuple[str, int, int]]) -> None:
    names = [name_of(key) for key in keys]
    compressed = compress(names)
    assert sorted(expand(compressed)) == sorted(names)
    assert compress(expand(compressed)) == compressed  # already canonical


@given(prefixes, st.integers(0, 500), st.integers(0, 60), st.integers(1, 4))
def test_one_range_compresses_to_itself(prefix: str, low: int, span: int, width: int) -> None:
    width = max(width, len(str(low + span)))
    expression = f"{prefix}[{low:0{width}d}-{low + span:0{width}d}]"
    expected = expression if span else f"{prefix}{low:0{width}d}"
    assert compress(expand(expression)) == expected
