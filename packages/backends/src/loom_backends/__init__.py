"""loom_backends."""
