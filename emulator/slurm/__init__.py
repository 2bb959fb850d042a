"""Slurm command formats: pure text <-> model conversions (no engine, no sockets)."""
