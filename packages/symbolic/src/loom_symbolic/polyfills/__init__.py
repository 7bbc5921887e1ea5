"""Python reimplementations of C builtins, traced in place of the originals (Dynamo calls them polyfills).

The translator cannot look inside a C function such as ``itertools.chain`` or ``functools.reduce``;
rather than a translator class per builtin, each one gets a small Python version here, one module per
standard-library module, tested against the real one on the same inputs (``tests/test_polyfills.py``).
When traced code calls an original, the translator inlines its replacement: the loop bodies, keys and
callbacks it runs become part of the graph like any Python code. Natively nothing changes: the
originals are never patched.

Adding one is a function decorated with ``@polyfill(original)`` in the module of its family; an
attribute of the original that is itself a callable (``chain.from_iterable``) is polyfilled by
``@polyfill(original, "attribute")``. A method of a C class, found on its instances and subclasses'
instances (``defaultdict.__missing__``, ``OrderedDict.move_to_end``), is ``@method(cls, "name")``.

A C class can also be replaced whole by a Python class (``deque``): ``@polyfill(original)`` on the
class, whose instances the trace models like any object made while tracing; ``rebuild(original)``
names the function that turns one into the real type when it outlives the frame.
"""

from __future__ import annotations

from . import (
    bisect,
    builtins,
    collections,
    copy,
    exceptions,
    functools,
    heapq,
    introspection,
    itertools,
    math,
    operator,
    os,
    torch_function,
    torch_fx,
    torch_shapes,
    types,
)
from .registry import (
    attribute_replacement,
    fallback_for,
    has_methods,
    method,
    method_replacement,
    modelled_slot,
    no_rebuild,
    originals,
    polyfill,
    real_class_of,
    rebuild,
    replacement_for,
)

__all__ = ["attribute_replacement", "bisect", "builtins", "collections", "copy", "exceptions", "fallback_for", "functools", "has_methods", "heapq", "introspection",
           "itertools", "math", "method", "method_replacement", "modelled_slot", "no_rebuild", "operator", "originals", "os", "polyfill",
           "real_class_of", "rebuild", "replacement_for", "torch_function", "torch_fx", "torch_shapes", "types"]
