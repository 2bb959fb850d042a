"""Link capacity tests shared by every policy that plans link loads (OAS paper §3.1, eq. 4-5).

Loads are float sums of eq. 4 terms, so a load that exactly fills a link may come out a hair
above its capacity; one relative tolerance decides for every family, so that the MIP, the list
heuristics and the live co-allocator agree on what fits.
"""

from __future__ import annotations

#: Relative slack when comparing a link's load with its capacity (float sums of eq. 4 terms).
LOAD_TOLERANCE = 1e-9


def fits_link(load: float, capacity: float) -> bool:
    """True when ``load`` does not saturate a link of ``capacity`` (SAT^k >= 1, eq. 5)."""
    return load <= capacity + LOAD_TOLERANCE * max(1.0, capacity)
