"""The window's views. Each has ``show_snapshot(snapshot)`` and redraws only from it."""
