"""The scheduling API: what a policy sees (views), says (decisions) and is (policy classes).

Policies import from here and from :mod:`emulator.model` only; the engine implements the views and
applies the decisions, validating each one.
"""

from emulator.api.decisions import (
    Decision,
    Explain,
    Reject,
    Reserve,
    Route,
    Start,
    Wake,
    Withdraw,
)
from emulator.api.policy import GridPolicy, LocalPolicy, PolicyError
from emulator.api.profile import Profile
from emulator.api.view import ClusterView, Estimate, GridView, SiteChange

__all__ = [
    "ClusterView",
    "Decision",
    "Estimate",
    "Explain",
    "GridPolicy",
    "GridView",
    "LocalPolicy",
    "PolicyError",
    "Profile",
    "Reject",
    "Reserve",
    "Route",
    "SiteChange",
    "Start",
    "Wake",
    "Withdraw",
]
