"""The batch script as sbatch reads it: its checks, ``#SBATCH`` lines and ``sleep`` lines.

Kept apart from the option table: these read the script's text, not the command line.
"""

from __future__ import annotations

import re
import shlex

from emulator.slurm.sbatch_values import SbatchError, _error


def _check_script(script: str) -> None:
    if not script:
        raise _error("Batch script is empty!", 1)
    if not script.strip():
        raise _error("Batch script contains only whitespace!", 1)
    if not script.startswith("#!"):
        raise SbatchError(
            [
                "sbatch: error: This does not look like a batch script.  The first",
                "sbatch: error: line must start with #! followed by the path to an interpreter.",
                "sbatch: error: For instance: #!/bin/sh",
            ],
            1,
        )
    if "\0" in script:
        raise _error("The SLURM controller does not allow scripts that contain a NULL character", 1)
    if "\r\n" in script:
        raise SbatchError(
            [
                "sbatch: error: Batch script contains DOS line breaks (\\r\\n)",
                "sbatch: error: instead of expected UNIX line breaks (\\n).",
            ],
            1,
        )


def directive_arguments(script: str) -> list[str]:
    """The ``#SBATCH`` arguments of a script, in order (only those before the first command)."""
    arguments: list[str] = []
    for line in script.split("\n")[1:]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        if line.startswith("#SBATCH") and (len(line) == 7 or line[7] in " \t"):
            try:
                arguments.extend(shlex.split(line[7:], comments=True))
            except ValueError:
                arguments.extend(line[7:].split())
    return arguments


_SLEEP = re.compile(r"^\s*sleep\s+(\d+(?:\.\d*)?)([smhd]?)\s*(?:[;#].*)?$")
_SLEEP_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def sleep_total(script: str) -> float | None:
    """Sum of the script's ``sleep N[smhd]`` lines, or ``None`` when there are none."""
    total = 0.0
    found = False
    for line in script.split("\n"):
        match = _SLEEP.match(line)
        if match:
            found = True
            total += float(match[1]) * _SLEEP_UNITS[match[2]]
    return total if found else None


def _wrap_script(command: str) -> str:
    return f"#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{command}\n"
