"""Economic slot selection: ALP and AMP, the multi-variant search and the batch choice by
dynamic programming (Toporkov et al., *Resource Selection Algorithms for Economic Scheduling in
Distributed Systems*, ICCS 2011; models.md §4.7), as pure functions over small data.

:mod:`solvers.economic.slots` holds the slot list and its subtraction, :mod:`.search` the two
scans and the rounds over a batch, :mod:`.batch` the backward run of eq. 1 with T* (eq. 2) and
B* (eq. 3), :mod:`.generator` the random slot lists and batches of the paper's §5.
"""
