"""The batchlab daemon: the Slurm controller behind a Unix-domain socket.

- ``protocol``: frames and requests
- ``server``: the socket loop (:class:`~emulator.daemon.server.Daemon`): reads, decodes, sends;
  ``listener``: its socket file, bound safely
- ``service``: what a request does (:class:`~emulator.daemon.service.Service`): commands, the
  clock and its goals, snapshots, the journal records and the clock checkpoint
- ``emulation``: the controller served, the session a window watches, and the ``Feed`` it starts
  with; ``accounting``: the controller's accounting as the daemon keeps it (written when read)
- ``journal``: the write-ahead journal and the clock checkpoint
- ``state``: the state directory, recovery, :func:`~emulator.daemon.state.open_daemon`
- ``client``: :class:`~emulator.daemon.client.Client` and the Slurm commands' front end
- ``control``: start/stop/status, clock text, shims; ``cli``: their argparse wiring
- ``commands``, ``paths``: what is known about Slurm's commands; default locations
- ``snapshots``: the wire format of the GUI's snapshots (``emulator.remote`` reads it)

The pacer the daemon runs its clock with is :mod:`emulator.pacing`. This ``__init__`` imports
nothing, so the client commands start fast.
"""
