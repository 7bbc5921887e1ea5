"""loom_symbolic."""
