"""Opening files as a window does: a workload or a command file, checked before any session
exists, so that a file that cannot be used is said in one line naming it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from emulator.commandfile import CommandFileError
from emulator.model.job import Submission
from emulator.model.platform import Platform
from emulator.session.core import Session

__all__ = ["OpenError", "open_session", "read_workload"]


class OpenError(ValueError):
    """A workload or command file a session cannot use; the message names the file and why."""


def read_workload(path: Path, platform: Platform) -> Iterator[Submission]:
    """The submissions of an SWF trace (``.swf``, ``.swf.gz``; replay rules, jobs larger than
    the largest cluster left out) or of a BSP CSV workload (``.csv``), streamed.

    The file is read through once first, so that a bad
    line raises :class:`OpenError` now rather than when the clock reaches it."""
    from workloads.bsp_csv import BspCsvError, read_bsp_csv
    from workloads.swf import Dropped, SwfError, SwfTrace, submissions

    if not path.is_file():
        raise OpenError(f"no such workload file: {path}")

    def stream() -> Iterator[Submission]:
        if path.suffix.lower() == ".csv":
            return read_bsp_csv(path)
        largest = max(cluster.cores for cluster in platform.clusters)
        return submissions(SwfTrace(path), largest, Dropped())

    try:
        for _ in stream():
            pass
    except (SwfError, BspCsvError) as error:  # the message names the file and line
        raise OpenError(str(error)) from None
    except (OSError, EOFError) as error:  # unreadable, or not gzip after all
        raise OpenError(f"{path}: cannot read: {error}") from None
    return stream()


def open_session(
    platform: Platform,
    scheduler: str = "easy",
    *,
    workload: Path | None = None,
    commands: Path | None = None,
) -> Session:
    """A session as ``batchlab gui --platform --workload|--commands`` opens it: ``platform``
    under ``scheduler``, fed ``workload`` (:func:`read_workload`) and having run the command
    file ``commands``. A file it cannot use raises :class:`OpenError` (a bad scheduler
    ``SpecError``) before any session exists, except for a failing command file line."""
    source = None if workload is None else read_workload(workload, platform)
    text = None
    if commands is not None:
        if not commands.is_file():
            raise OpenError(f"no such command file: {commands}")
        try:
            text = commands.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise OpenError(f"{commands}: cannot read: {error}") from None
    session = Session(platform, scheduler)
    if source is not None:
        session.submit_workload(source)
    if text is not None:
        try:
            session.run_commands(text, str(commands))
        except CommandFileError as error:
            raise OpenError(str(error)) from None
    return session
