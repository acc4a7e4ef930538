"""Showing runs: the UI pump, publishing a run's output from any thread, one rendering per
transcript state, what the magics print, and what the shell tells of who drives it."""
