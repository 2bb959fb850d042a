"""Workloads: trace readers and writers (SWF, CSV) and synthetic generators."""
