"""The BPU hybrid scheduler for moldable jobs (BPU paper; models.md §4.4).

:mod:`solvers.bpu.selection` holds the paper's site table, best-fit processor selection and
co-allocation as pure functions; :mod:`solvers.bpu.policy` the registered grid policy
``bpu:coalloc=yes|no,local_first=yes|no``.
"""
