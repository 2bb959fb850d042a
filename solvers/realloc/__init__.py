"""Reallocation of waiting jobs between clusters (Caniou, Charrier, Desprez, *Analysis of Tasks
Reallocation in a Dedicated Grid Environment*; models.md §4.6).

:mod:`solvers.realloc.heuristics` holds the six heuristics and the two algorithms' rules as pure
functions over a table of ECTs; :mod:`solvers.realloc.policy` is the ``realloc`` grid policy.
"""
