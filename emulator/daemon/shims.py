"""``batchlab shims DIR``: Slurm's command names as small scripts that every local user can run.

A shim runs the daemon's client (:mod:`emulator.daemon.client`: the standard library and a few
pure modules of batchlab). On a ``--shared`` daemon other users run the shims too, and the
environment batchlab runs from may be closed to them (a root's venv under ``/root`` is). So the
installer copies the modules the client imports into ``DIR/.batchlab-client``, readable by all,
and the shims run them with an interpreter every user may execute: this one if they may, else
the system's ``python3`` (3.11 or later). Run ``batchlab shims`` again after upgrading batchlab.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from emulator.daemon.commands import CLIENT_COMMANDS
from emulator.daemon.server import StartError

SHIM_MARKER = "# batchlab shim"
CLIENT_DIR = ".batchlab-client"
SYSTEM_PYTHONS = ("/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3")

# Imports what a shim may import (sbatch's options parser is imported on first use), then
# lists the files of batchlab's modules among them.
_LIST_MODULES = """
import sys
import emulator.daemon.client
from emulator.daemon.commands import sbatch_script
sbatch_script(["sbatch", "job.sh"])
for name, module in sorted(sys.modules.items()):
    if name.split(".")[0] == "emulator":
        print(module.__file__)
"""


def everyone_may_run(path: Path) -> bool:
    """Whether any local user may execute ``path``: the file and every directory above it."""
    real = path.resolve()
    try:
        return all(os.stat(part).st_mode & 0o001 for part in (real, *real.parents))
    except OSError:
        return False


def shared_python() -> str:
    """An interpreter every user may run, this one preferred."""
    for candidate in (sys.executable, *SYSTEM_PYTHONS):
        path = Path(candidate)
        if not path.is_file() or not everyone_may_run(path):
            continue
        if candidate == sys.executable:
            return candidate
        check = [candidate, "-c", "import sys; raise SystemExit(sys.version_info < (3, 11))"]
        if subprocess.run(check, capture_output=True, check=False).returncode == 0:
            return candidate
    raise StartError(
        f"no Python 3.11 or later that every user may run ({sys.executable} is closed to "
        f"others, and none of {', '.join(SYSTEM_PYTHONS)} will do)"
    )


def copy_client(directory: Path, python: str) -> Path:
    """Copy the client's modules into ``directory/.batchlab-client``, readable by all, and
    compile them for ``python``; returns that directory."""
    listed = subprocess.run(
        [sys.executable, "-c", _LIST_MODULES], capture_output=True, text=True, check=True
    ).stdout.split()
    root = Path(__file__).resolve().parents[2]  # the directory holding the emulator package
    target = directory / CLIENT_DIR
    staging = directory / f"{CLIENT_DIR}.new"
    shutil.rmtree(staging, ignore_errors=True)
    for name in listed:
        source = Path(name).resolve()
        copied = staging / source.relative_to(root)
        copied.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, copied)
    compile_all = [python, "-m", "compileall", "-q", str(staging)]
    subprocess.run(compile_all, capture_output=True, check=False)  # only start-up speed
    for path in (staging, *staging.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


def shim_text(command: str, python: str, client: Path, socket_path: Path | None = None) -> str:
    lines = ["#!/bin/sh", f"{SHIM_MARKER}: Slurm's {command}, answered by the batchlab daemon"]
    if socket_path is not None:
        quoted = shlex.quote(str(socket_path))
        lines.append(f': "${{BATCHLAB_SOCKET:={quoted}}}"; export BATCHLAB_SOCKET')
    lines.append(f"PYTHONPATH={shlex.quote(str(client))}; export PYTHONPATH")
    lines.append(f'exec {shlex.quote(python)} -P -m emulator.daemon.client {command} "$@"')
    return "\n".join(lines) + "\n"


def write_shims(directory: Path, socket_path: Path | None = None) -> list[Path]:
    """Write executables ``sbatch``, ``squeue``, ... into ``directory``, with the client they
    run. A file there that is not a batchlab shim is left alone (an error)."""
    directory.mkdir(parents=True, exist_ok=True)
    for command in CLIENT_COMMANDS:
        path = directory / command
        if path.exists():
            try:
                ours = SHIM_MARKER in path.read_text(errors="replace")
            except OSError:
                ours = False
            if not ours:
                raise StartError(f"{path} exists and is not a batchlab shim; not replacing it")
    python = shared_python()
    client = copy_client(directory.absolute(), python)
    written = []
    for command in CLIENT_COMMANDS:
        path = directory / command
        temporary = directory / f".{command}.tmp"
        temporary.write_text(shim_text(command, python, client, socket_path))
        temporary.chmod(0o755)
        temporary.replace(path)
        written.append(path)
    return written
