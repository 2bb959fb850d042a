"""Two-level grid brokers: ML, MPL, MLB, MCT and their admissible variants (Tchernykh et al.,
*Two Level Job-Scheduling Strategies for a Computational Grid*; models.md §4.5).

:mod:`solvers.brokers.rules` holds the paper's rules as pure functions over small data (sites
sorted by size, first(j), the available and admissible sets, the four selections).
"""
