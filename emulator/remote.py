"""A running daemon seen as a session: :class:`RemoteSession`, what ``batchlab gui`` draws and
drives (its own daemon, :mod:`emulator.child`, or one given with ``--socket``).

It offers what the window uses of :class:`emulator.session.Session` (``platform``, ``now``,
``scheduler``, ``idle``, :meth:`~RemoteSession.snapshot`,
:meth:`~RemoteSession.nodes_snapshot`, :meth:`~RemoteSession.command`,
:meth:`~RemoteSession.set_scheduler`, :meth:`~RemoteSession.step`, the transcript), but the
emulation runs in the daemon and its clock is authoritative: play, pause and speed are clock
requests (:meth:`~RemoteSession.steer`), as ``batchlab clock`` sends them, and only the daemon's
operator may send them. Snapshots come over the socket in the format of
:mod:`emulator.daemon.snapshots`, only when their version changed: the nodes alone (with the
version and the clock) at most every :data:`REFRESH_SECONDS`, the whole snapshot when a view
needs it. The job each node shows is worked out here, from the placements that nodes updates
carry (the daemon only records them: placing them is the windows' work). For a window
(:attr:`~RemoteSession.fetch_in_background`), neither is waited for while the daemon's clock
runs.

Nothing here blocks for long: quick requests time out after ``timeout`` seconds (the last
snapshot is kept meanwhile, :attr:`~RemoteSession.problem` says why, and the connection is
tried again a second later); what may wait for simulated time (``sleep``, ``@``, ``wait`` in the
console, the end of an ``sbatch -W``) waits on a connection of its own in a thread, and its
outcome joins the transcript when it comes.
"""

from __future__ import annotations

import dataclasses
import errno
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emulator.api.registry import SpecError, available, parse_spec
from emulator.daemon.client import (
    Client,
    DaemonError,
    DaemonUnavailable,
    checked,
)
from emulator.daemon.paths import default_socket
from emulator.daemon.snapshots import NodesUpdate, decode
from emulator.model.platform import Platform
from emulator.occupancy import Occupancy
from emulator.pacing import Pacer
from emulator.remote_console import RemoteConsole
from emulator.replay import save_files
from emulator.session import (
    ClusterSnapshot,
    CommandResult,
    NodeLists,
    Snapshot,
    node_columns,
)

# (the daemon's errors too: RemoteSession raises them, and its users import nothing of the daemon)
__all__ = ["REFRESH_SECONDS", "DaemonError", "DaemonUnavailable", "RemoteError", "RemoteSession"]

# The daemon is asked at most this often, unless a command ran: less than a window's frame
# period, so that every frame finds a fresh answer (at exactly the frame period, the frames that
# came a little early found none and were not redrawn)
REFRESH_SECONDS = 0.025
# A snapshot fetched in the background (see RemoteSession.snapshot) at most this often: the
# views drawn from it redraw once a second at most, and each one makes the daemon re-read the
# rows of every job that changed since the last
BEHIND_SECONDS = 0.5
RETRY_SECONDS = 1.0  # after losing the daemon, wait this long before connecting again
_LOST = (DaemonUnavailable, DaemonError, OSError)  # TimeoutError is an OSError


class RemoteError(Exception):
    """The daemon refused a clock request (only its operator steers the clock) or is gone."""


class RemoteSession:
    """The daemon on ``socket`` (default: ``$BATCHLAB_SOCKET`` or the per-user path).

    Raises :class:`~emulator.daemon.client.DaemonUnavailable` when nothing answers and
    :class:`~emulator.daemon.client.DaemonError` when the daemon keeps no snapshots.
    Commands run as the connecting user, in this process's directory and with its Slurm
    environment, exactly as ``batchlab sbatch ...`` typed in the same shell would.
    """

    def __init__(
        self,
        socket: Path | str | None = None,
        *,
        timeout: float = 5.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.path = Path(socket) if socket is not None else default_socket()
        self.timeout = timeout
        # wall seconds, for the refresh rate only (the pacer is the one reader of the wall clock)
        self._wall = clock or Pacer(paused=True).wall
        self._client: Client | None = None
        self._retry_at = -float("inf")
        self.problem: str | None = None  # why the daemon does not answer, while it does not
        who = self._connect().call("ping")
        self.user = str(who["user"])
        self.operator = bool(who["operator"])
        answer = self._connect().call("platform")
        self.platform: Platform = decode(Platform, answer["platform"], answer["attachment"])
        self._nodelists = NodeLists(self.platform)
        self.console = RemoteConsole(
            self.path, self.user, timeout=timeout, changed=self._changed, wall=self._wall
        )
        self.clock: dict[str, Any] = {}  # the daemon's clock, as ``clock show`` gives it
        self._snapshot: Snapshot | None = None
        self._nodes: NodesUpdate | None = None
        self._clusters: tuple[ClusterSnapshot, ...] = ()  # the last nodes update's, whole
        self._node_columns = node_columns(self.platform)  # what nodes updates leave out
        self._occupancy = Occupancy(self.platform)  # the jobs placed from nodes updates
        self.fetch_in_background = False  # see snapshot() and _poll()
        self._poller: Client | None = None  # a window's nodes requests (see _poll)
        self._polling = False  # a request is out on it
        self._steers = 0  # clock requests answered so far (see _poll)
        self._polled_steers = 0  # how many there were when the nodes request went out
        self._fetching: threading.Thread | None = None  # a snapshot on its way
        self.fetches = 0  # snapshots received and decoded (for the benchmark)
        # by kind (True: the nodes alone): the version held, when it was asked for, and whether
        # a command ran since (then it is asked for again at once)
        self._since: dict[bool, int | None] = {True: None, False: None}
        self._fresh = True  # keep the next snapshot, whatever its version
        self._fetched = {True: -float("inf"), False: -float("inf")}
        self._stale = {True: True, False: True}
        self.snapshot()

    # --- the connection ------------------------------------------------------------------------
    def _connect(self) -> Client:
        if self._client is None:
            self._client = Client(self.path, self.timeout).connect()
            self._connected()
        return self._client

    def _connected(self) -> None:
        """A connection was made, the first or after one was lost: maybe to another daemon,
        whose versions start again. Ask for everything (the next nodes update brings every
        running job), and keep the next snapshot whatever its version."""
        self._since = {True: None, False: None}
        self._fresh = True

    def _call(self, op: str, **fields: Any) -> dict[str, Any]:
        """A quick request; a lost connection is dropped (the next call connects again)."""
        try:
            return self._connect().call(op, **fields)
        except (DaemonUnavailable, OSError):
            self._lose()
            raise

    def _lose(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def close(self) -> None:
        self._lose()
        self.console.close()
        self._drop_poller()

    # --- state ---------------------------------------------------------------------------------
    def nodes_snapshot(self) -> tuple[ClusterSnapshot, ...]:
        """The daemon's nodes now (what :meth:`Session.nodes_snapshot
        <emulator.session.Session.nodes_snapshot>` gives), asked for at most every
        :data:`REFRESH_SECONDS`, at once after a command: the cheap request that also brings
        the daemon's clock and version. While the daemon is unreachable, the last ones."""
        self._latest()
        return self._clusters

    def _latest(self) -> NodesUpdate:
        """The last nodes update, after asking for a newer one as :meth:`nodes_snapshot` says."""
        self.console.take_later()
        if self.fetch_in_background and self._nodes is not None and not self._stale[True]:
            self._poll()
        else:
            answer = self._ask(nodes=True)
            if answer is not None:
                self._keep_nodes(answer)
        if self._nodes is None:  # the daemon went away before answering once
            raise DaemonUnavailable(self.problem or f"no answer from {self.path}")
        return self._nodes

    def _keep_nodes(self, answer: dict[str, Any]) -> None:
        """Decode a nodes answer; keep it unless a newer one came first."""
        if answer.get("unchanged"):
            return
        update = decode(NodesUpdate, answer["nodes"], answer["attachment"])
        placements = update.placements
        # an older answer than the one held is dropped: the newer one's placements cover its
        # own, and placing the older ones after them would put back jobs that since ended; so
        # is an older reset once a newer answer came since (re)connecting (a window's first
        # nodes request, answered after a command's fresher one, took the clock back)
        expected = placements.reset and self._since[True] is None
        if expected or self._nodes is None or update.version >= self._nodes.version:
            self._nodes = update
            self._since[True] = update.version
            if placements.reset:
                self._occupancy = Occupancy(self.platform)
            occupancy = self._occupancy
            occupancy.place(placements.records())
            self._clusters = tuple(
                ClusterSnapshot(
                    cluster.name,
                    k,
                    cluster.nodes[0].id,
                    *self._node_columns[k],
                    now.free,
                    occupancy.shown_on(cluster.nodes[0].id, len(cluster.nodes)),
                    now.out_of_service,
                )
                for k, (cluster, now) in enumerate(
                    zip(self.platform.clusters, update.clusters, strict=True)
                )
            )

    def _poll(self) -> None:
        """A window's nodes request, never waited for: on a connection of its own, take the
        answer to the request sent at an earlier frame if it has come, then send the next
        (at most every :data:`REFRESH_SECONDS`). The daemon answers between its simulation
        slices, and an instant of a big platform's may take it long: a window that waited
        for it would stall for as long."""
        wall = self._wall()
        try:
            poller = self._poller
            if poller is not None and self._polling:
                if poller.answered():
                    self._polling = False
                    answer = checked(poller.receive())
                    # its clock is stale if a clock request was answered since it was sent
                    self._answered(answer, current=self._polled_steers == self._steers)
                    self._keep_nodes(answer)
                elif wall - self._fetched[True] > self.timeout:
                    raise TimeoutError(f"no answer in {self.timeout:g} s")
            if self._polling or wall - self._fetched[True] < REFRESH_SECONDS:
                return
            if poller is None:
                if wall < self._retry_at:
                    return
                poller = self._poller = Client(self.path, self.timeout).connect()
                self._connected()
            poller.send({"op": "snapshot", "since": self._since[True], "nodes": True})
            self._polled_steers = self._steers
            self._polling = True
            self._fetched[True] = wall
        except _LOST as problem:
            self._drop_poller()
            self._unanswered(problem, wall)

    def wait_in_flight(self, timeout: float = 10.0) -> None:
        """Wait, at most ``timeout`` seconds each, for the answers on their way (a snapshot
        fetched in the background, a window's nodes request): the next call takes them."""
        if self._fetching is not None:
            self._fetching.join(timeout)
        if self._poller is not None and self._polling:
            self._poller.answered(timeout)

    def _drop_poller(self) -> None:
        if self._poller is not None:
            self._poller.close()
        self._poller = None
        self._polling = False

    def _answered(self, answer: dict[str, Any], *, current: bool = True) -> None:
        self.problem = None
        if current:
            self.clock = answer["clock"]

    def _unanswered(self, problem: Exception, wall: float) -> None:
        """Say why the daemon does not answer, and leave it alone for a while."""
        self.problem = f"the daemon on {self.path} does not answer: {problem}"
        self._retry_at = wall + RETRY_SECONDS

    def snapshot(self) -> Snapshot:
        """The daemon's latest snapshot, asked for when the daemon's version moved past the
        one held, at most every :data:`REFRESH_SECONDS` (at once after a command). With
        :attr:`fetch_in_background` (a window's), a newer one is fetched on a connection and
        thread of its own while the clock merely runs, at most every :data:`BEHIND_SECONDS`,
        and the last one is returned meanwhile: on a big platform a snapshot takes the daemon
        a while to make and this side to decode, and its megabytes cross the socket in the
        daemon's turns, which a window's thread must not wait for. While the daemon is
        unreachable, the last one."""
        version = self.version
        cached = self._snapshot
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and self.fetch_in_background and not self._stale[False]:
            self._fetch_behind()
            return cached
        answer = self._ask(nodes=False)
        if answer is not None and not answer.get("unchanged"):
            self._keep(answer)
        if self._snapshot is None:  # the daemon went away before the first one
            raise DaemonUnavailable(self.problem or f"no snapshot from {self.path}")
        return self._snapshot

    def _keep(self, answer: dict[str, Any]) -> None:
        """Decode a snapshot answer; keep it unless a newer one came first."""
        snapshot = decode(
            Snapshot, answer["snapshot"], answer["attachment"], nodelist=self._nodelists
        )
        # the daemon places no job on nodes (this side does, from the nodes updates): the
        # nodes of the latest one, which may be a little newer or older than the job table
        snapshot = dataclasses.replace(snapshot, clusters=self._clusters)
        held = self._snapshot
        if self._fresh or held is None or snapshot.version > held.version:
            self._fresh = False
            self._snapshot = snapshot
            self._since[False] = snapshot.version
            self.fetches += 1

    def _fetch_behind(self) -> None:
        """Start fetching a newer snapshot in a thread, unless one is on its way or was
        fetched less than :data:`BEHIND_SECONDS` ago."""
        wall = self._wall()
        if self._fetching is not None and self._fetching.is_alive():
            return
        if wall - self._fetched[False] < BEHIND_SECONDS:
            return
        self._fetched[False] = wall
        since = self._since[False]

        def fetch() -> None:
            try:
                with Client(self.path, self.timeout) as client:
                    answer = client.call("snapshot", since=since)
            except _LOST:
                return  # the next nodes request says why
            if not answer.get("unchanged"):
                self._keep(answer)

        self._fetching = threading.Thread(target=fetch, name="snapshot", daemon=True)
        self._fetching.start()

    def _ask(self, *, nodes: bool) -> dict[str, Any] | None:
        """A ``snapshot`` request for what changed since the last answer of its kind, unless
        one was made less than :data:`REFRESH_SECONDS` ago (and no command ran since) or the
        daemon is being left alone after a failure: then None."""
        wall = self._wall()
        if not self._stale[nodes] and wall - self._fetched[nodes] < REFRESH_SECONDS:
            return None
        if self._client is None and wall < self._retry_at:
            return None
        self._fetched[nodes] = wall
        try:
            self._connect()  # first: a new connection forgets the versions held
            answer = self._call("snapshot", since=self._since[nodes], nodes=nodes)
        except _LOST as problem:
            if (self._nodes if nodes else self._snapshot) is None:
                raise
            self._unanswered(problem, wall)
            return None
        self._answered(answer)
        self._stale[nodes] = False
        return answer

    @property
    def version(self) -> int:
        """The daemon's version (asked for at most as often as :meth:`nodes_snapshot` asks)."""
        return self._latest().version

    @property
    def held_version(self) -> int:
        """The version of the nodes last taken (:meth:`nodes_snapshot` gave them), without
        asking the daemon: what a window just drew from them."""
        return -1 if self._nodes is None else self._nodes.version

    @property
    def now(self) -> float:
        return self._latest().now

    @property
    def idle(self) -> bool:
        return self._latest().idle

    @property
    def origin(self) -> float:
        return (self._snapshot or self.snapshot()).origin  # the same in every snapshot

    @property
    def scheduler(self) -> str:
        return self.snapshot().scheduler

    @staticmethod
    def schedulers() -> dict[str, str]:
        """Registered policy names (the daemon runs from the same installation)."""
        return available()

    # --- the clock -----------------------------------------------------------------------------
    def steer(self, action: str, value: float | None = None) -> dict[str, Any]:
        """A quick clock request (``pause``, ``resume``, ``speed`` with ``value``: None is as
        fast as possible, ``step``); returns the answer, with the daemon's ``clock``. Raises
        :class:`RemoteError` with the daemon's message (e.g. not the operator)."""
        fields: dict[str, Any] = {"action": action}
        if action == "speed":
            fields["value"] = value
        self._changed()
        try:
            answer = self._call("clock", **fields)
        except _LOST as problem:
            raise RemoteError(getattr(problem, "message", str(problem))) from None
        self.clock = answer["clock"]
        self._steers += 1
        return answer

    def step(self) -> bool:
        """The daemon's clock to its next event (every event of that instant, and its pass);
        False when nothing is left to happen."""
        return "note" not in self.steer("step")

    def set_scheduler(self, spec: str) -> None:
        """``scontrol update scheduler=SPEC`` on the daemon (raises SpecError if refused)."""
        parse_spec(spec)
        result = self.console.run(("scontrol", "update", f"scheduler={spec}"))
        if result.exit_code:
            raise SpecError(result.stderr.strip() or result.stdout.strip())

    def save_results(self, directory: Path) -> None:
        """Write ``jobs.csv`` and ``summary.json`` of the jobs the daemon finished so far into
        ``directory``, as :meth:`Session.save_results <emulator.session.Session.save_results>`
        does (OSError if the daemon does not answer or the files cannot be written)."""
        try:
            files = self._call("results")["files"]
        except DaemonError as problem:
            raise OSError(errno.EPROTO, problem.message) from None
        except DaemonUnavailable as problem:
            raise OSError(errno.ECONNREFUSED, str(problem)) from None
        save_files(directory, {str(name): str(text) for name, text in files.items()})

    # --- the console -------------------------------------------------------------------------
    def command(
        self, line: str, user: str | None = None, stdin: str | None = None
    ) -> CommandResult:
        """Run one console line on the daemon and return what the CLI prints: the entry point
        of a window's console, as :meth:`Session.command <emulator.session.Session.command>`
        is an in-process one, with the same words (:mod:`emulator.shell`) and the same
        transcript. A Slurm command runs as ``user`` (or ``as NAME ...``: the operator's right)
        and is answered at once; ``cd``, ``export``, ``unset``, ``as NAME`` change this
        session's shell; ``sleep``, ``@ TIME`` (a date too), ``wait`` are clock requests,
        answered when the daemon's clock gets there, in the background (:meth:`reach`;
        :meth:`wait_for_clock` waits for them)."""
        return self.console.command(line, user, stdin, origin=self.origin, now=self.now)

    def wait_for_clock(self, timeout: float = 60.0) -> bool:
        """Wait until the daemon answered every clock request the console sent (``sleep``,
        ``@``, ``wait``), at most ``timeout`` seconds; False if one is still out. For a program
        that runs console lines in order, as ``batchlab run`` does, rather than a window."""
        return self.console.wait_for_clock(timeout)

    def reach(self, request: dict[str, Any], shown: str, *, fresh: bool = True) -> threading.Event:
        """A clock request answered when the daemon's clock gets there (see
        :meth:`RemoteConsole.reach <emulator.remote_console.RemoteConsole.reach>`)."""
        return self.console.reach(request, shown, fresh=fresh)

    @property
    def transcript(self) -> deque[str]:
        """The console lines run and their output, as ``batchlab run`` prints them; the newest."""
        return self.console.transcript

    @property
    def transcript_count(self) -> int:
        """Entries ever added to :attr:`transcript` (it drops the oldest)."""
        return self.console.transcript_count

    def _add(self, text: str) -> None:
        self.console.add(text)

    def _changed(self) -> None:
        """A command ran (maybe in a waiting thread): ask for the state again at once."""
        self._stale = {True: True, False: True}
