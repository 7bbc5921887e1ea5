"""loom_guards."""
