"""batchlab's experiment cells, one module per family, registered in pyproject.toml under
``batchlab.experiments`` (the API: ``emulator.sweep.experiments``). A cell runs the same replay
and policies as everything else; an experiment never has an engine of its own."""
