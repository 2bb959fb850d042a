"""The journal file: appends, torn tails, damage, checkpoints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.daemon.journal import (
    Journal,
    JournalError,
    JournalReader,
    read_checkpoint,
    write_checkpoint,
)


def read_records(path: Path) -> list[dict[str, Any]]:
    return list(JournalReader(path))


def _journal(path: Path, count: int) -> None:
    journal = Journal(path)
    journal.write_header({"platform": "x"})
    for number in range(count):
        journal.append({"t": float(number), "argv": ["sbatch", f"j{number}"]})
    journal.sync()
    journal.close()


def test_records_come_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path, 3)
    records = list(read_records(path))
    assert records[0]["kind"] == "init"
    assert [r["seq"] for r in records[1:]] == [1, 2, 3]
    assert records[3]["argv"] == ["sbatch", "j2"]


def test_appending_after_recovery_continues_the_sequence(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path, 2)
    journal = Journal(path, seq=2)
    assert journal.append({"t": 9.0}) == 3
    journal.close()
    assert [r.get("seq") for r in read_records(path)] == [None, 1, 2, 3]


@pytest.mark.parametrize("tail", [b'{"kind":"exec","seq":4,"t":1', b"\x00"])
def test_a_torn_last_line_is_reported_and_cut_off_only_on_repair(
    tmp_path: Path, tail: bytes
) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path, 3)
    size = path.stat().st_size
    with open(path, "ab") as file:
        file.write(tail)  # no newline: the write never completed, so it was never answered
    reader = JournalReader(path)
    assert len(list(reader)) == 4
    assert path.stat().st_size == size + len(tail)  # reading changes nothing
    assert reader.tail is not None and not reader.tail.complete
    assert reader.tail.line == 5 and reader.tail.size == len(tail)
    assert reader.tail.seq == (4 if b"seq" in tail else None)
    message = reader.tail.describe(path)
    assert f"{path}:5: torn last record" in message and "not been acknowledged" in message
    reader.repair()
    assert path.stat().st_size == size


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path, 3)
    whole = path.read_bytes()
    path.write_bytes(whole[:-1])  # the last record lacks only its newline
    reader = JournalReader(path)
    records = list(reader)
    assert [r.get("seq") for r in records] == [None, 1, 2, 3]
    assert reader.tail is not None and reader.tail.complete and reader.tail.seq == 3
    assert "lacks its newline: kept" in reader.tail.describe(path)
    reader.repair()
    assert path.read_bytes() == whole
    journal = Journal(path, seq=3)
    journal.append({"t": 9.0})
    journal.close()
    assert [r.get("seq") for r in read_records(path)] == [None, 1, 2, 3, 4]


def test_clock_records_are_written_with_the_next_sync(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path, 1)
    journal = Journal(path, seq=1)
    journal.clock(12.5)
    journal.sync()
    journal.close()
    assert read_records(path)[-1] == {"kind": "clock", "t": 12.5}


def test_damage_before_the_end_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path, 3)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = b"garbage\n"
    path.write_bytes(b"".join(lines))
    with pytest.raises(JournalError, match=":3: damaged"):
        list(read_records(path))


def test_checkpoints_replace_each_other_whole(tmp_path: Path) -> None:
    path = tmp_path / "clock.json"
    assert read_checkpoint(path) is None
    write_checkpoint(path, {"t": 1.5, "seq": 2})
    write_checkpoint(path, {"t": 3.0, "seq": 2})
    assert read_checkpoint(path) == {"t": 3.0, "seq": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock.json"]
    path.write_text("{broken")
    assert read_checkpoint(path) is None
