"""Starting, stopping and inspecting the daemon process; the clock's text; the shims."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from emulator.daemon.client import DaemonError, DaemonUnavailable, call
from emulator.daemon.server import StartError
from emulator.daemon.state import Settings, is_locked, open_daemon
from emulator.heap import settle_heap
from emulator.shell import ShellError, parse_sleep

POLL_SECONDS = 0.01
STOP_POLLS = 1000  # about 10 s


def run_foreground(settings: Settings, ready_fd: int | None = None) -> int:
    """Open the state dir and serve until stopped (SIGTERM/SIGINT stop it cleanly)."""
    try:
        daemon = open_daemon(settings)
    except StartError as problem:
        if ready_fd is not None:
            os.write(ready_fd, f"error {problem}\n".encode())
            os.close(ready_fd)
        else:
            print(f"batchlab: error: {problem}", file=sys.stderr)
        return 1
    daemon.install_signal_handlers()
    mode = "shared" if settings.shared else "private"
    daemon.log(f"listening on {settings.socket_path} ({mode}), pid {os.getpid()}")

    def ready() -> None:
        if ready_fd is not None:
            os.write(ready_fd, f"ready {os.getpid()}\n".encode())
            os.close(ready_fd)

    settle_heap(survivors=False)  # its platform and workload never scanned again
    daemon.serve(ready)
    return 0


def start_detached(settings: Settings) -> int:
    """Fork a detached daemon (double fork, new session, stdio to ``daemon.log``); return once
    its socket is ready, or with its start error."""
    settings.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    log_path = settings.state_dir / "daemon.log"
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked processes
        status = 1
        try:
            os.close(read_end)
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
            os.chdir("/")
            null = os.open(os.devnull, os.O_RDONLY)
            log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(null, 0)
            os.dup2(log, 1)
            os.dup2(log, 2)
            os.close(null)
            os.close(log)
            status = run_foreground(settings, ready_fd=write_end)
        except BaseException:
            traceback.print_exc()
            with contextlib.suppress(OSError):
                os.write(write_end, b"error the daemon failed to start: see daemon.log\n")
        finally:
            os._exit(status)
    os.close(write_end)
    os.waitpid(child, 0)
    chunks = []
    while chunk := os.read(read_end, 4096):
        chunks.append(chunk)
    os.close(read_end)
    answer = b"".join(chunks).decode(errors="replace").strip()
    if answer.startswith("ready "):
        pid = answer.split()[1]
        print(f"batchlab daemon: started, pid {pid}, socket {settings.socket_path}")
        print(f"  state dir {settings.state_dir} (log: {log_path})")
        return 0
    message = answer.removeprefix("error ") or f"the daemon exited at once; see {log_path}"
    print(f"batchlab: error: {message}", file=sys.stderr)
    return 1


def stop(socket_path: Path) -> int:
    """Ask the daemon to stop and wait until it has released its state dir."""
    try:
        status = call(socket_path, "status", timeout=10.0)
        call(socket_path, "shutdown", timeout=10.0)
    except DaemonUnavailable:
        print(f"batchlab daemon: not running (no daemon on {socket_path})", file=sys.stderr)
        return 1
    except DaemonError as problem:  # another user's daemon: a refusal, in one line
        print(f"batchlab daemon: error: {problem.message}", file=sys.stderr)
        return 1
    state_dir = Path(status["state_dir"])
    for _ in range(STOP_POLLS):
        if not os.path.lexists(socket_path) and not is_locked(state_dir):
            break
        time.sleep(POLL_SECONDS)
    else:
        print(f"batchlab: error: daemon pid {status['pid']} is still stopping", file=sys.stderr)
        return 1
    print(f"batchlab daemon: stopped (pid {status['pid']})")
    return 0


def show_status(socket_path: Path) -> int:
    try:
        status = call(socket_path, "status", timeout=10.0)
    except DaemonUnavailable:
        stale = " (stale socket file)" if os.path.lexists(socket_path) else ""
        print(f"batchlab daemon: not running (no daemon on {socket_path}){stale}")
        return 3
    mode = "shared" if status.get("shared") else "private"
    recovered = status.get("recovered", 0)
    print(f"batchlab daemon: running, pid {status['pid']}")
    rows = [
        ("socket", f"{status['socket']} ({mode})"),
        ("state dir", status["state_dir"]),
        ("platform", status.get("platform", "?")),
        ("scheduler", status.get("scheduler", "?")),
        ("feed", status.get("feed", "none")),
        ("journal", f"{status['journal_seq']} requests ({recovered} recovered at start)"),
        ("clients", str(status.get("connections", 0) - 1)),
        ("clock", format_clock(status["clock"])),
    ]
    for name, value in rows:
        print(f"  {name:<10} {value}")
    return 0


# --- the clock ---------------------------------------------------------------------------------


class ClockSyntaxError(ValueError):
    """A duration or time the clock command does not understand."""


def parse_clock_duration(text: str) -> float:
    """Seconds: ``90``, ``1.5``, ``90s``, ``10m``, ``2h``, ``1d``, ``1w``, or Slurm's
    ``M:S``, ``H:M:S``, ``D-H[:M[:S]]`` (a bare number means seconds here, not minutes): the
    console's ``sleep`` durations (:func:`emulator.shell.parse_sleep`)."""
    try:
        return parse_sleep(text)
    except ShellError:
        raise ClockSyntaxError(
            f"invalid duration {text!r} (e.g. 90, 90s, 10m, 2h, 1-00:00:00)"
        ) from None


def format_seconds(seconds: float) -> str:
    total = int(seconds)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"


def format_clock(clock: dict[str, Any]) -> str:
    now = float(clock["now"])
    text = f"t={now:.3f} s ({format_seconds(now)}), {clock['mode']}"
    upcoming = clock.get("next_event")
    text += "; idle" if upcoming is None else f"; next event at t={float(upcoming):.3f}"
    if clock.get("goals"):
        text += f"; {clock['goals']} clock request(s) running"
    return text


def clock_request(words: list[str]) -> dict[str, Any]:
    """The ``clock`` request for ``batchlab clock WORDS...``."""
    if not words or words == ["show"]:
        return {"action": "show"}
    action, rest = words[0], words[1:]
    if action in ("pause", "resume", "step", "show") and not rest:
        return {"action": action}
    if action == "speed" and len(rest) == 1:
        if rest[0].lower() in ("max", "inf", "fast", "unlimited"):
            return {"action": "speed", "value": None}
        try:
            speed = float(rest[0].removesuffix("x"))
        except ValueError:
            speed = math.nan
        if not (speed > 0 and math.isfinite(speed)):
            raise ClockSyntaxError(f"invalid speed {rest[0]!r}: a number > 0, or max")
        return {"action": "speed", "value": speed}
    if action == "advance" and len(rest) == 1:
        return {"action": "advance", "value": parse_clock_duration(rest[0])}
    if action == "until" and len(rest) == 1:
        if rest[0].lower() == "idle":
            return {"action": "idle"}
        if rest[0].startswith("+"):
            return {"action": "advance", "value": parse_clock_duration(rest[0][1:])}
        return {"action": "until", "value": parse_clock_duration(rest[0])}
    raise ClockSyntaxError(
        "usage: batchlab clock show|pause|resume|step|speed X|advance DURATION|"
        "until TIME|until idle"
    )
