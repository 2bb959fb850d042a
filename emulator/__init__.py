"""batchlab's core: simulated clock, platform and job model, scheduling API and engine."""
