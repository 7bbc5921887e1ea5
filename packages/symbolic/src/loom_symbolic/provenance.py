"""What a translation's result depends on beyond its guards: the files whose code it ran and the library
globals it took as fixed.

Within one process the guards are the whole story: the code the translator inlined cannot change under a
compiled frame without changing an object a guard holds. A result kept on disk for another process
(``loom``'s frame cache) must also know that process runs the same code: the files named here are
compared by the cache when it loads the result, and the fixed globals (torch's and the standard library's,
read without a guard) are read again there.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Provenance:
    """Filled while translating: ``code_files`` holds ``co_filename`` of the frame's code and of every code
    run in place (inlined functions, generators, the translator's own stand-ins); ``fixed_globals`` holds
    ``(module name, global name)`` for each global of trusted library code that was read unguarded."""

    code_files: set[str] = field(default_factory=set)
    fixed_globals: set[tuple[str, str]] = field(default_factory=set)
