"""Scheduling policies, one package per family: algorithms as plain functions over small data."""
