"""The batchlab daemon: one emulated batch system behind a Unix-domain socket.

- ``protocol``: frames, requests, and the :class:`~emulator.daemon.protocol.Handler` it drives
- ``journal``: the write-ahead journal and the clock checkpoint
- ``server``: the selectors loop (:class:`~emulator.daemon.server.Daemon`)
- ``state``: the state directory, recovery, :func:`~emulator.daemon.state.open_daemon`
- ``client``: :class:`~emulator.daemon.client.Client` and the Slurm commands' front end
- ``control``: start/stop/status, clock text, shims; ``cli``: their argparse wiring
- ``commands``, ``paths``: what is known about Slurm's commands; default locations
- ``handlers``: ``make_handler`` (the real controller, imported lazily) and friends;
  ``accounting``: the controller's accounting as the daemon keeps it (written when read)
- ``snapshots``: the wire format of the GUI's snapshots (``emulator.remote`` reads it)
- ``toy``: a tiny deterministic batch system for tests and benchmarks

This ``__init__`` imports nothing, so the client commands start fast.
"""
