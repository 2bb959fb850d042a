"""The engine: applies arrivals, completions and policy decisions to the emulated platform."""

from emulator.engine.control import JobStateError
from emulator.engine.engine import Engine, SubmitError
from emulator.engine.node_control import NodeStateError
from emulator.engine.observer import Observer

__all__ = ["Engine", "JobStateError", "NodeStateError", "Observer", "SubmitError"]
