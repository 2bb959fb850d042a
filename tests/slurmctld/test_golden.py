"""The shipped command files against their stored transcripts (tests/slurmctld/golden/).

Regenerate after an intended change with ``python tests/slurmctld/test_golden.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from emulator.commandfile import CommandFile  # noqa: E402
from emulator.model.platform_file import load_platform  # noqa: E402
from emulator.slurmctld import Controller  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = {  # command file -> (platform, scheduler)
    "slurm-sample-scenario": ("lab", "easy"),
    "teaching-scenario": ("lab", "easy"),
    "arrays-and-dependencies": ("lab", "easy"),
    "multi-cluster": ("teaching-3sites", "easy"),
    "node-maintenance": ("lab", "easy"),
    "economic": ("teaching-3sites", "amp:cycle=0"),
}


def transcript(name: str) -> str:
    platform, scheduler = EXAMPLES[name]
    controller = Controller(load_platform(ROOT / f"resources/platforms/{platform}.toml"), scheduler)
    session = CommandFile(controller, name=f"{name}.txt")
    return session.run((ROOT / f"resources/commands/{name}.txt").read_text())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_golden(name: str) -> None:
    assert transcript(name) == (GOLDEN / f"{name}.out").read_text()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_deterministic(name: str) -> None:
    assert transcript(name) == transcript(name)


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for example in sorted(EXAMPLES):
        (GOLDEN / f"{example}.out").write_text(transcript(example))
        print(f"wrote {GOLDEN / example}.out")
