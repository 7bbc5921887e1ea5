"""C builtins that have a Python replacement in :mod:`loom_symbolic.polyfills`."""

from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, DictAttr, Item

from .. import polyfills
from ..errors import Unsupported, UserError
from ..polyfills import subclasses as _subclasses
from . import containers as _containers
from . import functions as _functions
from . import new_objects as _new_objects
from . import replaced_attributes as _replaced
from .base import Variable
from .constant import ConstantVariable, ObjectConstantVariable
from .new_objects import NewObjectVariable
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator



class PolyfilledVariable(ObjectConstantVariable):
    """``itertools.chain``, ``functools.reduce``, ...: a call is traced through the Python replacement;
    everything else (identity, being passed along, other attributes) sees the original."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        replacement = polyfills.replacement_for(self.value)
        if isinstance(replacement, type):  # a class standing in for a C class (deque): a new instance of it
            return wrap(tx, replacement, None).call(tx, args, kwargs)
        return _functions.UserFunctionVariable(replacement).call(tx, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        replacement = polyfills.attribute_replacement(self.value, name)
        if replacement is not None:  # chain.from_iterable: traced through the replacement, otherwise the original
            return _replaced.ReplacedAttributeVariable(replacement, getattr(self.value, name))
        method = polyfills.method_replacement(self.value, name) if isinstance(self.value, type) else None
        if method is not None and not method[1]:  # deque.__init__(self): the stand-in's, called unbound
            return _UnboundStandInMethod(method[0], self.value)
        if name in ("__name__", "__qualname__", "__module__"):  # fixed for builtins and C classes
            return ConstantVariable(getattr(self.value, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"{getattr(self.value, '__module__', '?')}.{getattr(self.value, '__qualname__', self.value)}"

    def __repr__(self) -> str:
        return f"PolyfilledVariable({self.describe()})"


class _UnboundStandInMethod(_functions.UserFunctionVariable):
    """``deque.append`` read from the C class: its stand-in's function, called with an object of the C
    class (or a subclass) first; any other receiver breaks the graph (the C descriptor's TypeError is not
    modelled)."""

    def __init__(self, fn: Any, owner: type) -> None:
        super().__init__(fn)
        self.owner = owner

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        try:
            fits = bool(args) and issubclass(args[0].python_type(), self.owner)
        except Exception:  # a value whose type the translator does not know
            fits = False
        if not fits:
            raise Unsupported(f"{self.owner.__qualname__}.{self.value.__name__}(...)",
                              f"called unbound on something that is not a {self.owner.__qualname__}")
        return super().call(tx, args, kwargs)


class RealStandInVariable(NewObjectVariable):
    """A real object of a C class with a stand-in (a ``deque`` from the frame), modelled as a stand-in
    instance holding its items: it is the real object whenever it is rebuilt, and its final items
    are given back to it after the graph if the trace changed them."""

    def __init__(self, cls: type, source: Any) -> None:
        super().__init__(cls, None)
        self.source = source

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_source(self.source)

    def describe(self) -> str:
        return f"{self.python_type().__name__} from {self.source}"


class RealSubclassStandInVariable(RealStandInVariable):
    """An object of a deque subclass from outside the frame (:func:`real_deque`), modelled by its shadow: its
    instance attributes are read, its items changed (and given back through ``deque``'s own methods), but
    an attribute stored or deleted on it is a graph break: the trace would not give that back."""

    def generic_setattr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        if name in _STAND_IN_STATE:  # the stand-in's own bookkeeping, given back by the refill
            super().generic_setattr(tx, name, value)
            return
        raise Unsupported(f"setting {name!r} on a {self.python_type().__qualname__} from outside the frame",
                          "attribute writes on a deque subclass handed in are not replayed")

    def generic_delattr(self, tx: InstructionTranslator, name: str) -> None:
        raise Unsupported(f"deleting {name!r} on a {self.python_type().__qualname__} from outside the frame",
                          "attribute writes on a deque subclass handed in are not replayed")

    def instance_dict(self) -> Variable:
        """``vars(d)``: not modelled (a write through it would not be given back)."""
        raise Unsupported(f"the __dict__ of a {self.python_type().__qualname__} from outside the frame",
                          "attribute writes on a deque subclass handed in are not replayed")


#: the attributes the deque stand-in keeps its state in
_STAND_IN_STATE = frozenset(("_items", "_maxlen", "_state"))


#: what the guards and the refill of a deque handed in read through the object (a subclass must not override)
_READ_THROUGH = ("__len__", "__getitem__", "__iter__", "__getattribute__", "__getattr__", "__setattr__",
                 "__delattr__", "maxlen", "__class__")


def real_deque(value: Any) -> bool:
    """Whether ``value`` is a real ``deque``, or an object of a subclass the shadow models from outside the
    frame (its own ``__dict__``, no slots set, none of :data:`_READ_THROUGH` overridden)."""
    cls = type(value)
    if cls is collections.deque:
        return True
    if not isinstance(value, collections.deque) or _subclasses.shadow_refusal(cls, collections.deque) is not None:
        return False
    chain = _subclasses.python_chain(cls, collections.deque)
    return not any(name in vars(k) for k in chain for name in _READ_THROUGH) and not any(
        isinstance(v, types.MemberDescriptorType) for k in chain for v in vars(k).values())


def wrap_real_deque(tx: InstructionTranslator | None, value: Any, source: Any) -> Variable:
    """A real ``collections.deque`` (or an object of a subclass :func:`real_deque` accepts) reached through
    ``source``: its length and items are guarded (a subclass's instance dict too)."""
    if tx is None or source is None:
        return ObjectConstantVariable(value, source)
    guards = tx.output.guards
    guards.add("type", source, value)
    guards.add("length", source, value)
    if type(value) is not collections.deque:
        stand_in = RealSubclassStandInVariable(_new_objects._shadow(tx, type(value), collections.deque), source)
        guards.add("dict_keys", Attr(source, "__dict__"), tuple(vars(value)))
        for name, attribute in vars(value).items():
            stand_in.attrs[name] = wrap(tx, attribute, DictAttr(source, name))
    else:
        stand_in = RealStandInVariable(polyfills.replacement_for(type(value)), source)
    stand_in.attrs["_items"] = _containers.ListVariable(
        [wrap(tx, item, Item(source, i)) for i, item in enumerate(value)])
    stand_in.attrs["_maxlen"] = wrap(tx, value.maxlen, Attr(source, "maxlen"))
    stand_in.attrs["_state"] = ConstantVariable(0)
    tx.output.side_effects.track_stand_in(stand_in, collections.deque)
    return stand_in


class CachedFunctionVariable(ObjectConstantVariable):
    """A function wrapped by ``functools.lru_cache`` or ``functools.cache``: a call traces the wrapped
    function (``__wrapped__``), as torch.compile does. The trace neither reads nor fills the real cache:
    what the function computes is the same either way, and is in the graph. Calls under one key in the
    trace share the first one's result, as the cache's hits do (``f(x) is f(x)``), and an unhashable
    argument is the cache's TypeError."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        key = _cache_key(tx, self.value, args, kwargs)
        memo = tx.output.cached_call_results
        if key is not None and key in memo:
            return memo[key]
        wrapped_source = Attr(self.source, "__wrapped__") if self.source is not None else None
        result = wrap(tx, self.value.__wrapped__, wrapped_source).call(tx, args, kwargs)
        if key is not None and tx.output.body_depth == 0:  # a result made in a sub-graph's body is that body's alone
            memo[key] = result
        return result

    def describe(self) -> str:
        return f"cached function {getattr(self.value, '__qualname__', self.value)}"



_KWARGS_MARK = object()  # between the positional and keyword parts of a key, as functools' own _make_key


def _cache_key(tx: InstructionTranslator, cached: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Any:
    """The function and the key ``lru_cache`` files this call under: each argument as a dict key (a constant
    by value, a tensor or object by identity; an unhashable one raises the program's TypeError), keywords in
    order after a mark, and with ``typed`` the arguments' types. None where an argument is no key the trace
    can name (the call is traced without sharing a result)."""
    parameters = getattr(cached, "cache_parameters", None)  # set by lru_cache, not by the bare C wrapper
    if parameters is None:
        return None
    try:
        key: tuple = tuple(_containers.DictVariable.key_of(arg, tx) for arg in args)
        if kwargs:
            key += (_KWARGS_MARK, *((name, _containers.DictVariable.key_of(v, tx)) for name, v in kwargs.items()))
    except UserError:
        raise  # an unhashable argument: the cache's own TypeError
    except Unsupported:
        return None
    if parameters()["typed"]:
        key += tuple(v.python_type() for v in (*args, *kwargs.values()))
    return id(cached), key
