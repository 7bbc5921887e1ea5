"""``frozenset(f)`` of an exact frozenset ``f`` is ``f`` itself, as in CPython (``frozenset_vectorcall``
returns an exact frozenset argument unchanged): ``frozenset(p) is p`` is true, and so is ``is`` between the
result and the argument later on. A subclass instance, a set or any other iterable still makes a new one
(the handler of :mod:`.builtins`).
"""

from __future__ import annotations

from .builtins import HANDLERS
from .constant import ConstantVariable
from .sets import SetVariable

_make_frozenset = HANDLERS[frozenset]


def _frozenset_call(tx, args, kwargs):
    if len(args) == 1 and not kwargs:
        arg = args[0]
        if isinstance(arg, SetVariable) and arg.frozen and arg.python_type() is frozenset:
            return arg
        if isinstance(arg, ConstantVariable) and type(arg.value) is frozenset:
            return arg
    return _make_frozenset(tx, args, kwargs)


HANDLERS[frozenset] = _frozenset_call
