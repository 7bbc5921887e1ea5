"""A ``classmethod`` over another descriptor, read on a class or instance (``@classmethod @property``).

On CPython 3.11 and 3.12 ``classmethod.__get__`` hands the class to what it wraps when that has a ``__get__``
of its own: a classmethod over a property reads the property's getter with the class (an ``IntEnum``'s
``POINT`` slice built from its members). 3.13 dropped the chaining (:data:`~loom_symbolic.versions` says
which): there a classmethod over a descriptor is a method whose function is the descriptor itself, which is
a break; over a plain function, on every version, the classmethod is a method bound to the class.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from ..errors import Unsupported
from ..versions import current as version
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def chained_classmethod(tx: InstructionTranslator, static: classmethod, cls: Variable,
                        raw_source: Callable[[], Any], bound: Callable[[], Variable]) -> Variable:
    """What reading ``static`` on the class ``cls`` gives: where the classmethod chains to a descriptor it
    wraps (3.11, 3.12), a property's getter called with the class (found through ``raw_source()``, where the
    classmethod sits in its class's ``__dict__``: reading it on the class would run the getter); else
    ``bound()``, the method bound to the class."""
    wrapped = static.__func__
    if isinstance(wrapped, types.FunctionType) or not hasattr(type(wrapped), "__get__"):
        return bound()
    if not version.CLASSMETHOD_WRAPS_DESCRIPTORS:
        # 3.13: a method whose function is the property object itself (calling it raises in eager), not modelled
        raise Unsupported(f"a classmethod over a {type(wrapped).__name__}",
                          "this Python binds the descriptor itself to the class, a method the translator does not model")
    if isinstance(wrapped, property) and wrapped.fget is not None:
        raw = raw_source()
        return wrap(tx, wrapped.fget, Attr(Attr(raw, "__func__"), "fget") if raw is not None else None).call(tx, [cls], {})
    raise Unsupported(f"a classmethod over a {type(wrapped).__name__}",
                      "only a classmethod over a function or a property with a getter is modelled")
