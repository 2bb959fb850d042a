"""The daemon's accounting, written when read, answers exactly as the one written at every event."""

from __future__ import annotations

import pytest

from emulator.commandfile import Session
from emulator.daemon.accounting import AccountingOnRead
from emulator.model.platform_file import load_platform
from emulator.slurmctld import Controller
from tests.slurmctld.test_golden import EXAMPLES, GOLDEN, ROOT


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_command_files_print_the_same(name: str) -> None:
    platform, scheduler = EXAMPLES[name]
    controller = Controller(
        load_platform(ROOT / f"resources/platforms/{platform}.toml"),
        scheduler,
        accounting=AccountingOnRead(),
    )
    session = Session(controller, name=f"{name}.txt")
    text = (ROOT / f"resources/commands/{name}.txt").read_text()
    assert "sacct" in text
    assert session.run(text) == (GOLDEN / f"{name}.out").read_text()


def test_rows_are_written_when_read() -> None:
    lab = load_platform(ROOT / "resources/platforms/lab.toml")
    controller = Controller(lab, "easy")
    quiet = Controller(lab, "easy", accounting=AccountingOnRead())
    controller.execute(["sbatch", "--wrap", "sleep 5"])
    quiet.execute(["sbatch", "--wrap", "sleep 5"])
    for ctl in (controller, quiet):
        ctl.advance(10)
    written = quiet.accounting.db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]
    assert written == 0  # nothing until a reader asks
    assert quiet.execute(["sacct", "-X"]).stdout == controller.execute(["sacct", "-X"]).stdout
