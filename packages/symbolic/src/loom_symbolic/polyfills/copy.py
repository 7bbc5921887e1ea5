"""``copy.deepcopy`` and ``copy.copy`` in a form the translator can follow.

The standard library's version keys its memo by ``id()`` (unknown while tracing for objects made
during the trace) and rebuilds plain objects through ``object.__reduce_ex__``, a C method. This one
keeps the memo as (original, copy) pairs compared by identity and rebuilds an instance of a plain
class (no ``__deepcopy__``, no custom reduction) as ``object.__new__`` plus a deep copy of its ``__dict__``
and its slots, which is what ``object.__reduce_ex__(4)`` leads ``copy`` to do. Anything else is handed to
the original, traced as it is.
"""

from __future__ import annotations

import collections as _collections
import copy as _copy
import types
import weakref
from typing import Any

import torch

from .registry import polyfill

#: What ``copy.deepcopy`` returns unchanged (its ``_deepcopy_atomic`` types, and torch's constants,
#: which reduce to their own names).
_ATOMIC = frozenset({
    type(None), int, float, bool, complex, bytes, str, types.CodeType, type, range, types.BuiltinFunctionType,
    types.FunctionType, weakref.ref, property, type(Ellipsis), type(NotImplemented),
    torch.dtype, torch.device, torch.layout, torch.memory_format,
})

_OBJECT_REDUCTION = (object.__reduce_ex__, object.__reduce__, getattr(object, "__getstate__", None))
_OBJECT_NEW = object.__new__
_PARAMETER_DEEPCOPY = torch.nn.Parameter.__deepcopy__


def _plain_class(cls: type, slotted: bool = False) -> bool:
    """Instances that ``object.__reduce_ex__`` copies as ``cls.__new__(cls)`` plus their ``__dict__`` (and, with
    ``slotted``, a class with ``__slots__``: plus the slots that are set)."""
    return (
        getattr(cls, "__deepcopy__", None) is None
        and cls.__reduce_ex__ is _OBJECT_REDUCTION[0]
        and cls.__reduce__ is _OBJECT_REDUCTION[1]
        and getattr(cls, "__getstate__", None) is _OBJECT_REDUCTION[2]
        and getattr(cls, "__setstate__", None) is None
        and getattr(cls, "__getnewargs_ex__", None) is None
        and getattr(cls, "__getnewargs__", None) is None
        and cls.__new__ is _OBJECT_NEW
        and (getattr(cls, "__slots__", None) is None) != slotted
    )


def _slot_names(cls: type) -> list[str]:
    """The slots ``object.__getstate__`` saves: ``copyreg._slotnames``' list (names mangled, ``__dict__`` and
    ``__weakref__`` left out), without the ``__slotnames__`` cache it stores on the class."""
    names = []
    mro = cls.__mro__
    for i, klass in enumerate(mro):
        # a class's own __slots__ (its __dict__ is not read in the trace): the object no class after it has
        slots = getattr(klass, "__slots__", None)
        if slots is None or any(getattr(later, "__slots__", None) is slots for later in mro[i + 1:]):
            continue
        for name in (slots,) if isinstance(slots, str) else slots or ():
            if name in ("__dict__", "__weakref__"):
                continue
            stripped = klass.__name__.lstrip("_")
            names.append(f"_{stripped}{name}" if name.startswith("__") and not name.endswith("__") and stripped else name)
    return names


def _rebuilt_slotted(x: Any, cls: type, memo: list | None) -> Any:
    """What ``object.__reduce_ex__(4)`` leads ``copy._reconstruct`` to for an instance with slots: ``cls.__new__(cls)``,
    its ``__dict__`` (where it has a non-empty one), then each slot that is set stored by ``setattr``; the state is
    read before anything is copied, and (``memo`` given) deep-copied dict first."""
    instance = cls.__new__(cls)
    if memo is not None:
        memo.append((x, instance))
    own = getattr(x, "__dict__", None) or None
    slots = {}
    for name in _slot_names(cls):
        try:
            slots[name] = getattr(x, name)
        except AttributeError:  # an empty slot is left out
            pass
    if own is not None:
        for key, value in (_deep(own, memo) if memo is not None else own).items():
            object.__setattr__(instance, key, value)
    if slots:
        for key, value in (_deep(slots, memo) if memo is not None else slots).items():
            setattr(instance, key, value)
    return instance


def _stateful_class(cls: type, hook: str) -> bool:
    """A class ``copy`` copies through ``object.__reduce_ex__`` with a ``__getstate__`` written in Python (and
    maybe a ``__setstate__``): no copy hook named ``hook``, no reduction, new-arguments, ``__new__`` or slots of
    its own."""
    setstate = getattr(cls, "__setstate__", None)
    return (
        type(cls) is type
        and getattr(cls, hook, None) is None
        and cls.__reduce_ex__ is _OBJECT_REDUCTION[0]
        and cls.__reduce__ is _OBJECT_REDUCTION[1]
        and isinstance(getattr(cls, "__getstate__", None), types.FunctionType)
        and (setstate is None or isinstance(setstate, types.FunctionType))
        and getattr(cls, "__getnewargs_ex__", None) is None
        and getattr(cls, "__getnewargs__", None) is None
        and cls.__new__ is _OBJECT_NEW
        and getattr(cls, "__slots__", None) is None
    )


def _rebuilt_from_state(x: Any, cls: type, memo: list | None) -> Any:
    """What ``copy._reconstruct`` makes of the reduction ``(copyreg.__newobj__, (cls,), x.__getstate__())``:
    ``cls.__new__(cls)``, then (a state other than None, deep-copied where ``memo`` is given) its ``__setstate__``,
    or the state's dict (and, a pair, its slot values) stored on it."""
    instance = cls.__new__(cls)
    if memo is not None:
        memo.append((x, instance))
    state = x.__getstate__()
    if state is None:
        return instance
    if memo is not None:
        state = _deep(state, memo)
    if hasattr(instance, "__setstate__"):
        instance.__setstate__(state)
        return instance
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        instance.__dict__.update(state)
    if slotstate:
        for key, value in slotstate.items():
            setattr(instance, key, value)
    return instance


def _module_class(cls: type) -> bool:
    """An ``nn.Module`` class that ``copy`` copies as ``nn.Module`` does: ``cls.__new__(cls)``, then
    ``__setstate__`` with a deep copy of ``__getstate__()`` (no reduction or copy hook of its own)."""
    module = torch.nn.Module
    return (
        issubclass(cls, module) and type(cls) is type
        and getattr(cls, "__deepcopy__", None) is None
        and cls.__reduce_ex__ is _OBJECT_REDUCTION[0]
        and cls.__reduce__ is _OBJECT_REDUCTION[1]
        and cls.__getstate__ is module.__getstate__
        and cls.__setstate__ is module.__setstate__
        and getattr(cls, "__getnewargs_ex__", None) is None
        and getattr(cls, "__getnewargs__", None) is None
        and cls.__new__ is _OBJECT_NEW
        and getattr(cls, "__slots__", None) is None
    )


#: The containers whose instances ``copy`` rebuilds from their reduction, by the ``__reduce__`` that makes it:
#: a dict or list subclass through ``object.__reduce_ex__`` (``cls.__new__(cls)``, its ``__dict__``, then the
#: items stored one by one, through the class's own ``__setitem__``/``append``), an OrderedDict as a new one
#: filled the same way, a set or frozenset (and their subclasses) as ``cls(list of items)`` with its ``__dict__``,
#: a Counter as ``cls(dict(items))`` and a defaultdict as ``cls(factory)`` filled item by item (neither with state).
_CONTAINER_REDUCTIONS = (
    (_collections.Counter, _collections.Counter.__reduce__),
    (_collections.defaultdict, _collections.defaultdict.__reduce__),
    (_collections.OrderedDict, _collections.OrderedDict.__reduce__),
    (dict, object.__reduce__), (list, object.__reduce__), (set, set.__reduce__), (frozenset, frozenset.__reduce__),
)


def _reduced_container(cls: type, hook: str) -> type | None:
    """The builtin container ``cls`` derives from when ``copy`` copies its instances by that container's plain
    reduction (no copy hook named ``hook``, no reduction, state, new-arguments or slots of its own); else None."""
    if type(cls) is not type or getattr(cls, hook, None) is not None or cls.__reduce_ex__ is not _OBJECT_REDUCTION[0]:
        return None
    if getattr(cls, "__getstate__", None) is not _OBJECT_REDUCTION[2] or getattr(cls, "__setstate__", None) is not None \
            or getattr(cls, "__getnewargs_ex__", None) is not None or getattr(cls, "__getnewargs__", None) is not None \
            or getattr(cls, "__slots__", None) is not None:
        return None
    for base, reduction in _CONTAINER_REDUCTIONS:
        if issubclass(cls, base):
            return base if cls.__reduce__ is reduction else None
    return None


def _rebuilt(x: Any, base: type, memo: list | None) -> Any:
    """What ``copy._reconstruct`` makes of ``x``'s reduction: a shallow copy, or (``memo`` given) a deep one."""
    cls = type(x)
    deep = (lambda v: _deep(v, memo)) if memo is not None else (lambda v: v)
    state = getattr(x, "__dict__", None) or None
    if base is _collections.Counter:
        made = cls(deep(dict(x)))
        if memo is not None:
            memo.append((x, made))
        return made
    if base is _collections.defaultdict:
        state = None
        made = cls() if x.default_factory is None else cls(deep(x.default_factory))
        if memo is not None:
            memo.append((x, made))
    elif base is set or base is frozenset:
        made = cls(deep(list(x)))
        if memo is not None:
            memo.append((x, made))
    else:
        made = cls() if base is _collections.OrderedDict else cls.__new__(cls)
        if memo is not None:
            memo.append((x, made))
    if state is not None:
        made.__dict__.update(deep(state))
    if base is list:
        for item in x:
            made.append(deep(item))
    elif base is not set and base is not frozenset:
        for key, value in x.items():
            made[deep(key)] = deep(value)
    return made


def _deep(x: Any, memo: list) -> Any:
    cls = type(x)
    if cls in _ATOMIC:
        return x
    for original, made in memo:
        if original is x:
            return made
    if cls is list:
        copied: list = []
        memo.append((x, copied))
        for item in x:
            copied.append(_deep(item, memo))
        return copied
    if cls is dict or cls is _collections.OrderedDict:  # an OrderedDict's reduction: a new one, the items in order
        mapping = cls()
        memo.append((x, mapping))
        for key, value in x.items():
            mapping[_deep(key, memo)] = _deep(value, memo)
        return mapping
    if cls is frozenset:  # its reduction: frozenset(a deep copy of its items), a new one even if unchanged
        made_frozenset = frozenset([_deep(item, memo) for item in x])
        memo.append((x, made_frozenset))
        return made_frozenset
    if cls is set:  # its reduction: set(a deep copy of its items), remembered once made
        made_set = {_deep(item, memo) for item in x}
        memo.append((x, made_set))
        return made_set
    if cls is tuple:
        items = [_deep(item, memo) for item in x]
        for old, new in zip(x, items):
            if old is not new:
                made_tuple = tuple(items)
                memo.append((x, made_tuple))
                return made_tuple
        return x
    if cls is _collections.deque:  # what its __reduce__ leads copy to: an empty one with its maxlen, then the items
        made_deque = _collections.deque(maxlen=x.maxlen)
        memo.append((x, made_deque))
        for item in x:
            made_deque.append(_deep(item, memo))
        return made_deque
    if isinstance(cls, type) and type(cls) is type and _plain_class(cls) and isinstance(getattr(x, "__dict__", None), dict):
        instance = cls.__new__(cls)
        memo.append((x, instance))
        state = _deep(x.__dict__, memo)
        for key, value in state.items():
            object.__setattr__(instance, key, value)
        return instance
    if isinstance(cls, type) and type(cls) is type and _plain_class(cls, slotted=True):
        return _rebuilt_slotted(x, cls, memo)
    if isinstance(cls, type) and _stateful_class(cls, "__deepcopy__"):
        return _rebuilt_from_state(x, cls, memo)
    if isinstance(cls, type) and _module_class(cls):
        module = cls.__new__(cls)
        memo.append((x, module))
        module.__setstate__(_deep(x.__getstate__(), memo))
        return module
    if cls is torch.nn.Parameter and cls.__deepcopy__ is _PARAMETER_DEEPCOPY:  # what it does, memo by identity
        parameter = cls(x.data.clone(memory_format=torch.preserve_format), x.requires_grad)
        memo.append((x, parameter))
        return parameter
    if cls is torch.Tensor:
        made = deepcopy_tensor(x)
        memo.append((x, made))
        return made
    base = _reduced_container(cls, "__deepcopy__")
    if base is not None:
        return _rebuilt(x, base, memo)
    return _original_deepcopy(x)


#: ``copy.deepcopy`` itself under another function object: traced where the polyfill hands over (a call
#: of ``copy.deepcopy`` would come back to the polyfill).
_original_deepcopy = types.FunctionType(_copy.deepcopy.__code__, _copy.deepcopy.__globals__, "deepcopy",
                                        _copy.deepcopy.__defaults__, _copy.deepcopy.__closure__)


def deepcopy_tensor(x: torch.Tensor) -> torch.Tensor:
    """``copy.deepcopy`` of a plain tensor: the translator answers it itself (a ``clone`` in the graph
    where that is the copy eager makes, else this original, traced)."""
    return _original_deepcopy(x)


@polyfill(_copy.deepcopy)
def deepcopy(x: Any, memo: Any = None, _nil: Any = None) -> Any:
    """``copy.deepcopy(x)``: lists, dicts, tuples and plain objects copied through an identity memo."""
    if memo is not None:
        return _original_deepcopy(x, memo)
    return _deep(x, [])


#: ``copy.copy`` itself under another function object: traced where the polyfill hands over (a call
#: of ``copy.copy`` would come back to the polyfill).
_original_copy = types.FunctionType(_copy.copy.__code__, _copy.copy.__globals__, "copy", _copy.copy.__defaults__,
                                    _copy.copy.__closure__)


@polyfill(_copy.copy)
def copy(x: Any) -> Any:
    """``copy.copy(x)``: a deque's own ``__copy__`` (a deque made in the trace is a stand-in, whose class
    the standard library's version cannot read), a list's, dict's or set's ``copy()``, immutable values
    themselves, an instance of a plain class as a new one sharing its attribute values; anything else as
    the original does it, traced."""
    if type(x) is _collections.deque:
        return x.__copy__()
    if type(x) is list or type(x) is dict:  # what copy's dispatch table does for them: their own copy()
        return x.copy()
    if type(x) is set:
        return set(x)
    if type(x) in _ATOMIC or type(x) in (tuple, frozenset):
        return x
    cls = type(x)
    if type(cls) is type and _plain_class(cls) and getattr(cls, "__copy__", None) is None \
            and isinstance(getattr(x, "__dict__", None), dict):
        # what object.__reduce_ex__(4) leads copy._reconstruct to: cls.__new__(cls), then its __dict__
        # updated with the original's (the same values, not copies; no __setattr__ of the class runs)
        instance = cls.__new__(cls)
        for key, value in x.__dict__.items():
            object.__setattr__(instance, key, value)
        return instance
    if type(cls) is type and _plain_class(cls, slotted=True) and getattr(cls, "__copy__", None) is None:
        return _rebuilt_slotted(x, cls, None)
    if _stateful_class(cls, "__copy__"):
        return _rebuilt_from_state(x, cls, None)
    base = _reduced_container(cls, "__copy__")
    if base is not None:
        return _rebuilt(x, base, None)
    return _original_copy(x)

