"""Warning classes of loom-backends (importing this module imports nothing heavy)."""

from __future__ import annotations


class CompilerWarning(RuntimeWarning):
    """A code generator could not compile a graph here (no C compiler, no OpenMP, a compiler that
    fails, ...): the graph runs through ATen instead, so results stay right but are not faster.

    Issued once per distinct cause and process; filter it with
    ``warnings.filterwarnings("ignore", category=loom_backends.CompilerWarning)``.
    """
