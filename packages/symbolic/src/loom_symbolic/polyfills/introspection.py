"""``dir(obj)`` in Python: what CPython's ``dir`` and the ``__dir__`` of ``object`` and ``type`` compute.

``dir(obj)`` is ``sorted(type(obj).__dir__(obj))``. ``object.__dir__`` gives the names of the instance's
``__dict__`` and of its class's and every base's ``__dict__``; ``type.__dir__`` those of the class and its
bases; a class that writes ``__dir__`` in Python (``nn.Module``) has it run. Traced, each ``__dict__`` read
is the translator's own (its keys guarded where they come from the frame), so the list is a constant of the
trace, valid while those dicts hold the same names.
"""

from __future__ import annotations

import builtins as _builtins
from typing import Any

from .registry import polyfill


def class_names(cls: Any) -> list:
    """The names in the ``__dict__`` of ``cls`` and of its bases, recursively (CPython's ``merge_class_dict``);
    the translator folds a call of it for a real class to a constant, guarding each user class's dict."""
    names = set(cls.__dict__)
    for base in cls.__bases__:
        names.update(class_names(base))
    return list(names)


def object_dir(obj: Any) -> list:
    """``object.__dir__(obj)``, as a list in no particular order."""
    names: set = set()
    own = getattr(obj, "__dict__", None)
    if isinstance(own, dict):
        names.update(own)
    cls = getattr(obj, "__class__", None)
    if cls is not None:
        names.update(class_names(cls))
    return list(names)


def type_dir(cls: Any) -> list:
    """``type.__dir__(cls)``, as a list in no particular order."""
    return class_names(cls)


@polyfill(_builtins.dir, fallback=True)
def dir(*args: Any) -> list:
    """``dir(obj)`` (``dir()``, the frame's own names, the translator answers itself)."""
    if len(args) != 1:
        raise TypeError(f"dir expected at most 1 argument, got {len(args)}")
    obj = args[0]
    method = type(obj).__dir__
    if method is object.__dir__:
        return sorted(object_dir(obj))
    if method is type.__dir__:
        return sorted(type_dir(obj))
    return sorted(method(obj))


# -- type's own methods read on a class whose metaclass is type (``Cls.mro()``) --------------------------------
def type_mro(cls: Any) -> list:
    """``type.mro(cls)`` of a class whose metaclass is ``type``: its ``__mro__``, as a new list."""
    return list(cls.__mro__)


def type_instancecheck(cls: Any, obj: Any) -> bool:
    """``type.__instancecheck__(cls, obj)``: what ``isinstance`` answers where the metaclass is ``type``."""
    return isinstance(obj, cls)


def type_subclasscheck(cls: Any, sub: Any) -> bool:
    """``type.__subclasscheck__(cls, sub)``: what ``issubclass`` answers where the metaclass is ``type``."""
    return issubclass(sub, cls)


#: name -> the stand-in of ``type``'s method of that name, bound to the class it is read on
TYPE_METHODS = {"mro": type_mro, "__instancecheck__": type_instancecheck, "__subclasscheck__": type_subclasscheck}
