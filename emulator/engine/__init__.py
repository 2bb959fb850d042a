"""The engine: applies arrivals, completions and policy decisions to the emulated platform."""

from emulator.engine.engine import Engine
from emulator.engine.errors import JobStateError, SubmitError
from emulator.engine.node_service import NodeStateError
from emulator.engine.observer import Observer

__all__ = ["Engine", "JobStateError", "NodeStateError", "Observer", "SubmitError"]
