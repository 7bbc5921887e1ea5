"""Example programs for the demo and the benchmarks.

These files are user code as far as loom is concerned: :mod:`loom.skipfiles` exempts this folder from
the rule that skips loom's own frames, so loom compiles them like any program of yours.
"""
