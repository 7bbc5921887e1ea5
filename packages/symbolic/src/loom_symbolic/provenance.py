"""What a translation's result depends on beyond its guards: the files whose code it ran and the library
globals it took as fixed.

Within one process the guards are the whole story: the code the translator inlined cannot change under a
compiled frame without changing an object a guard holds. A result kept on disk for another process
(``loom``'s frame cache) must also know that process runs the same code: the files named here are
compared by the cache when it loads the result, and the fixed globals (torch's and the standard library's,
read without a guard) are read again there.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field


def is_frozen_module(filename: str) -> bool:
    """Whether ``co_filename`` names a module frozen into the interpreter (``<frozen _collections_abc>``):
    no file on disk, and it changes only with the Python version."""
    return filename.startswith("<frozen ") and filename.endswith(">")


@dataclass
class Provenance:
    """Filled while translating: ``code_files`` holds ``co_filename`` of the frame's code and of every code
    run in place (inlined functions, generators, the translator's own stand-ins); ``fixed_globals`` holds
    ``(module name, global name)`` for each global of trusted library code that was read unguarded.

    Code whose ``co_filename`` names no file (``<string>``: the methods dataclasses and namedtuple make by
    ``exec``) has no file to compare: it goes to ``unfiled_code`` instead, and a cache can keep the result
    only when each such code is in ``pinned_code`` (or nested in code there): code an identity guard on a
    function's ``__code__`` holds, or trusted library code, which changes only with the library's version."""

    code_files: set[str] = field(default_factory=set)
    fixed_globals: set[tuple[str, str]] = field(default_factory=set)
    unfiled_code: set[types.CodeType] = field(default_factory=set)
    pinned_code: set[types.CodeType] = field(default_factory=set)

    def note_code(self, code: types.CodeType) -> None:
        """Record that ``code`` runs in place (in ``code_files``, or in ``unfiled_code`` when its file name is
        ``<...>``; a module frozen into the interpreter, ``<frozen ...>``, counts as a file)."""
        filename = code.co_filename
        if filename.startswith("<") and not is_frozen_module(filename):
            self.unfiled_code.add(code)
        else:
            self.code_files.add(filename)

    def unpinned_code(self) -> list[types.CodeType]:
        """The code of ``unfiled_code`` that nothing pins: neither in ``pinned_code`` nor nested in code there."""
        pinned: set[types.CodeType] = set()
        todo = list(self.pinned_code)
        while todo:
            code = todo.pop()
            if code not in pinned:
                pinned.add(code)
                todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        return [code for code in self.unfiled_code if code not in pinned]
