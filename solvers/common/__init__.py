"""What every solver family may import: the domain helpers two families would otherwise copy.

A layer below the families (``solvers.local``, ``solvers.coalloc``, ``solvers.oas``, ...): it
imports the scheduling API and the model only, never a family, and a family imports another
family never (import-linter checks both). Modules:

- :mod:`solvers.common.links`: whether a load fits a link (the OAS paper's SAT^k >= 1, eq. 5)
  with one tolerance for float sums;
- :mod:`solvers.common.orders`: the queue orders of the OAS paper's §4.2;
- :mod:`solvers.common.demand`: a job as the OAS performance model sees it (τ, Tb, σ, PTBW).
"""
