"""Scheduling policies, one package per family; each algorithm is plain functions over small data."""
