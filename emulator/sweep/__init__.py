"""Experiment campaigns: sweep specs, the Dask runner, the results store and reports.

The engine only; the experiments themselves are cells registered under the entry-point group
``batchlab.experiments`` (batchlab's own in the top-level ``experiments`` package).
"""
