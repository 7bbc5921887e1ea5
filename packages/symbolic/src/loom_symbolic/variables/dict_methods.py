"""Methods of dicts and their views while tracing, one small function each."""

from __future__ import annotations

import collections
import operator
import types
from typing import TYPE_CHECKING, Any

from .. import polyfills
from ..errors import Unsupported, UserError
from . import attributes as _attributes
from . import functions as _functions
from . import iterators as _iterators
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .container_method_kit import NONE, real_error_args, table_filler
from .containers import (
    DICT_METHODS,
    SET_METHODS,
    DictVariable,
    ListVariable,
    Method,
    SetVariable,
    TupleVariable,
    key_variable,
)
from .methods import MethodVariable
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


# -- dict --------------------------------------------------------------------------------------------
dict_method = table_filler(DICT_METHODS)


@dict_method("__getitem__")
def dict_getitem(tx, d, args, kwargs):
    return d.getitem(tx, args[0])


@dict_method("__setitem__")
def dict_setitem(tx, d, args, kwargs):
    d.setitem(tx, args[0], args[1])
    return NONE


@dict_method("__delitem__")
def dict_delitem(tx, d, args, kwargs):
    d.delitem(tx, args[0])
    return NONE


@dict_method("__contains__")
def dict_contains(tx, d, args, kwargs):
    return ConstantVariable(d.has_key(DictVariable.key_of(args[0], tx)))


@dict_method("__len__")
def dict_len(tx, d, args, kwargs):
    return ConstantVariable(len(d.items))


@dict_method("get")
def dict_get(tx, d, args, kwargs):
    value = d.lookup(DictVariable.key_of(args[0], tx))
    if value is not None:
        return value
    return args[1] if len(args) > 1 else NONE


def _make_view(kind: str) -> Method:
    def view(tx, d, args, kwargs):
        return DictViewVariable(d, kind)

    view.__name__ = f"dict_{kind}"
    return view


for _kind in ("keys", "values", "items"):
    DICT_METHODS[_kind] = _make_view(_kind)


@dict_method("pop")
def dict_pop(tx, d, args, kwargs):
    key = DictVariable.key_of(args[0], tx)
    if key in d.items:
        value = d.items.pop(key)
        d.mutated(tx)
        return value
    if len(args) > 1:
        return args[1]
    raise UserError("dict.pop", f"KeyError: {key!r}", exc_type=KeyError, exc_args=(key,))


@dict_method("popitem")
def dict_popitem(tx, d, args, kwargs):
    if not d.items:
        own = getattr(d.python_type(), "popitem", None) is dict.popitem  # (OrderedDict's says another thing)
        raise UserError("dict.popitem", "popitem(): dictionary is empty", exc_type=KeyError,
                        exc_args=real_error_args({}.popitem) if own else None)
    key, value = d.items.popitem()
    d.mutated(tx)
    return TupleVariable([key_variable(key), value])


@dict_method("setdefault")
def dict_setdefault(tx, d, args, kwargs):
    if d.python_type() is not collections.OrderedDict and issubclass(d.python_type(), collections.OrderedDict) \
            and any(_operators.has_python_special(d, n) for n in ("__contains__", "__getitem__", "__setitem__")):
        # an OrderedDict subclass's C setdefault asks ``key in d``, then ``d[key]`` or ``d[key] = default``
        setdefault = _functions.UserFunctionVariable(polyfills.collections.ordereddict_setdefault)
        return setdefault.call(tx, [d, *args], kwargs)
    key = DictVariable.key_of(args[0], tx)
    if key not in d.items:
        d.items[key] = args[1] if len(args) > 1 else NONE
        d.mutated(tx)
    return d.items[key]


def merged_by_keys(value: Variable) -> bool:
    """Whether dict's merge (``dict(d)``, ``d.update(other)``, ``{**d}``, ``f(**d)``) reads dict ``value`` by its
    ``keys()`` and ``value[key]``, as CPython does for a dict whose iteration is not dict's (an OrderedDict's), and
    its class writes either in Python, so that the difference shows (else its items are copied as they are)."""
    if not isinstance(value, DictVariable):
        return False
    cls = value.python_type()
    return _attributes.class_attribute(cls, "__iter__") is not dict.__iter__ and \
        (_operators.has_python_special(value, "__getitem__") or
         isinstance(_attributes.class_attribute(cls, "keys"), types.FunctionType))


def _stores_through_setitem(d: DictVariable) -> bool:
    """Whether ``d``'s update is OrderedDict's C one, which stores each item with ``d[key] = value``, and its class
    writes ``__setitem__`` in Python (a ``ModelOutput``'s): then the stand-in runs, and that method with it."""
    return issubclass(d.python_type(), collections.OrderedDict) and _operators.has_python_special(d, "__setitem__")


@dict_method("update")
def dict_update(tx, d, args, kwargs):
    if _stores_through_setitem(d):
        update = _functions.UserFunctionVariable(polyfills.collections.ordereddict_update)
        return update.call(tx, [d, *args], kwargs)
    return plain_dict_update(tx, d, args, kwargs)


def plain_dict_update(tx: InstructionTranslator, d: DictVariable, args: list[Variable],
                      kwargs: dict[str, Variable]) -> Variable:
    """dict's own ``update``: the items stored in the dict layer, no ``__setitem__`` runs (every dict's, and what
    ``dict.update(od, ...)`` does to an OrderedDict)."""
    d.mutated(tx)  # first: a bad item raises after the items before it were stored
    if args:
        other = args[0]
        if isinstance(other, DictVariable) and not merged_by_keys(other):
            d.items.update(other.items)
        else:
            update_from_pairs(tx, d.items, other)
    d.items.update(kwargs)
    return NONE


def _mapping_keys(tx: InstructionTranslator, other: Variable) -> Variable | None:
    """``other.keys`` when ``other``, an object of a Python class, has one: then CPython's ``dict(other)`` and
    ``d.update(other)`` read ``other[k]`` for each ``k`` in ``other.keys()`` instead of iterating pairs."""
    try:
        module = other.python_type().__module__
    except Unsupported:
        return None
    if module == "builtins":
        return None
    try:
        return other.var_getattr(tx, "keys")
    except UserError as exc:
        if issubclass(exc.exc_type, AttributeError):
            return None
        raise


def double_star_items(tx: InstructionTranslator, value: Variable) -> Variable:
    """What ``**value`` unpacks: a dict as it is; for an object of a Python class with ``keys`` (a
    ``MutableMapping``), a dict of ``value[k]`` for each ``k`` in ``value.keys()``, read in that order as
    CPython's merge does; any other value unchanged (the caller breaks on it)."""
    if (isinstance(value, DictVariable) and not merged_by_keys(value)) or _mapping_keys(tx, value) is None:
        return value
    items: dict[Any, Variable] = {}
    update_from_pairs(tx, items, value)
    return DictVariable(items)


def update_from_pairs(tx: InstructionTranslator, items: dict[Any, Variable], pairs: Variable) -> None:
    """``dict(pairs)`` or ``d.update(pairs)``: store each (key, value) in turn; an item that is not a pair
    is the program's ValueError, raised after the items before it were stored, as in Python. An object
    with ``keys`` is a mapping: its keys, each with ``pairs[key]``."""
    keys = _mapping_keys(tx, pairs)
    if keys is not None:
        for key in _iterators.each_item(tx, keys.call(tx, [], {})):
            items[DictVariable.key_of(key, tx)] = _operators.getitem(tx, pairs, key)
        return
    for number, pair in enumerate(_iterators.each_item(tx, pairs)):
        try:
            parts = _iterators.iterate(tx, pair).unpack(tx)
        except UserError as error:
            if error.exc_type is not TypeError:
                raise
            message = f"cannot convert dictionary update sequence element #{number} to a sequence"
            raise UserError("dict update", message, exc_type=TypeError, exc_args=(message,)) from None
        if len(parts) != 2:
            message = f"dictionary update sequence element #{number} has length {len(parts)}; 2 is required"
            raise UserError("dict update", message, exc_type=ValueError, exc_args=(message,))
        items[DictVariable.key_of(parts[0], tx)] = parts[1]


@dict_method("__init__")
def dict_init(tx, d, args, kwargs):
    # dict.__init__(self, ...) of a subclass's __init__ (Counter's super().__init__()): an update
    if len(args) > 1 and _stores_through_setitem(d):  # OrderedDict's own words
        message = f"expected at most 1 arguments, got {len(args)}"
        raise UserError("OrderedDict()", message, exc_type=TypeError, exc_args=(message,))
    if len(args) > 1:
        raise UserError("dict()", f"dict expected at most 1 argument, got {len(args)}", exc_type=TypeError)
    return dict_update(tx, d, args, kwargs)


def plain_dict_init(tx: InstructionTranslator, d: DictVariable, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
    """``dict.__init__(od, ...)``: dict's own, an update in the dict layer."""
    if len(args) > 1:
        raise UserError("dict()", f"dict expected at most 1 argument, got {len(args)}", exc_type=TypeError)
    return plain_dict_update(tx, d, args, kwargs)


#: dict's own writers, for ``dict.update(d, ...)`` read unbound from ``dict``: whatever ``d``'s class is, they
#: store in the dict layer (OrderedDict's own ``update`` stores through ``__setitem__``).
PLAIN_DICT_WRITES = {"update": plain_dict_update, "__init__": plain_dict_init}


@dict_method("clear")
def dict_clear(tx, d, args, kwargs):
    d.items.clear()
    d.mutated(tx)
    return NONE


@dict_method("copy")
def dict_copy(tx, d, args, kwargs):
    # dict.copy() gives a plain dict even for subclasses; OrderedDict.copy() keeps the class.
    return DictVariable(dict(d.items), cls=collections.OrderedDict if d.cls is collections.OrderedDict else dict)




#: Attributes of a dict view modelled by modules above this one (``.mapping``: a mappingproxy of the dict,
#: from :mod:`.mapping_proxy`): ``fn(view)`` returning a variable, or None to pass.
VIEW_ATTRIBUTES: dict[str, Any] = {}


class DictViewVariable(Variable):
    """``d.keys()``, ``d.values()`` or ``d.items()``: iterable, sized, rebuilt in bytecode as a view of its dict."""

    def __init__(self, target: DictVariable, kind: str) -> None:
        self.target = target
        self.kind = kind

    def _base(self) -> type:
        """dict, or OrderedDict, whose views are classes of their own (``odict_keys``)."""
        return collections.OrderedDict if issubclass(self.target.python_type(), collections.OrderedDict) else dict

    def _own_method(self) -> bool:
        """Whether the dict's class takes the view method from its base (a Python ``keys()`` makes no view)."""
        return getattr(self.target.python_type(), self.kind) is getattr(self._base(), self.kind)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if not self._own_method():
            super().reconstruct(codegen)
            return
        codegen.load_callable(getattr(self._base(), self.kind))
        codegen.reconstruct(self.target)  # the dict's variable is rebuilt once: the view is of that very dict
        codegen.call(1)

    def python_type(self) -> type:
        return type(getattr(self._base()(), self.kind)())

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        items = self.target.items
        if self.kind == "keys":
            return [key_variable(k) for k in items]
        if self.kind == "values":
            return list(items.values())
        return [TupleVariable([key_variable(k), v]) for k, v in items.items()]

    def iterate(self, tx: InstructionTranslator) -> Variable:
        return _iterators.DictIterator(self.target, self.kind)

    def truth(self, tx: InstructionTranslator) -> bool:
        # a view is true when its dict has items, whatever the values are (tensors included)
        return bool(self.target.items)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _VIEW_METHODS and hasattr(self.python_type(), name):
            return MethodVariable(self, name)
        if name == "__class__" and self._own_method():
            return wrap_constant_like(self.python_type())
        if name in VIEW_ATTRIBUTES and self._own_method():
            found = VIEW_ATTRIBUTES[name](self)
            if found is not None:
                return found
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "__len__":
            return ConstantVariable(len(self.target.items))
        if name == "__contains__" and len(args) == 1 and not kwargs:
            return self.contains(tx, args[0])
        if name == "isdisjoint" and self.kind != "values" and len(args) == 1 and not kwargs:
            return self.isdisjoint(tx, args[0])
        raise Unsupported(f"dict view method {name}", "not modelled")

    def isdisjoint(self, tx: InstructionTranslator, other: Variable) -> Variable:
        """``view.isdisjoint(other)``: on real values when both sides are known; otherwise as CPython does, by
        looking each item of ``other`` up in the view, or, when ``other`` is a larger set or keys/items view,
        each member of the view up in ``other``."""
        real_self, real_other = self.real_view(tx), _real_operand(tx, other)
        if real_self is not None and real_other is not None:
            try:
                return ConstantVariable(real_self.isdisjoint(real_other))
            except TypeError as exc:
                raise UserError("dict view isdisjoint", str(exc), exc_type=TypeError, exc_args=exc.args) from exc
        if other is self:
            return ConstantVariable(not self.target.items)
        if isinstance(other, SetVariable) or (isinstance(other, DictViewVariable) and other.kind != "values"):
            size = len(other.values) if isinstance(other, SetVariable) else len(other.target.items)
            walk, look = (self, other) if size > len(self.target.items) else (other, self)
            for item in walk.unpack(tx):
                found = look.contains(tx, item) if isinstance(look, DictViewVariable) else \
                    SET_METHODS["__contains__"](tx, look, [item], {})
                if found.as_python_constant():
                    return ConstantVariable(False)
            return ConstantVariable(True)
        for item in _iterators.each_item(tx, other):
            if self.contains(tx, item).as_python_constant():
                return ConstantVariable(False)
        return ConstantVariable(True)

    def contains(self, tx: InstructionTranslator, item: Variable) -> Variable:
        """``item in view``, as the C views answer it: keys by hash lookup (through the dict's own
        ``has_key``, so a lazy dict guards only that key), items by looking the key up and comparing
        the value, values by ``==`` in order."""
        if self.kind == "keys":
            return ConstantVariable(self.target.has_key(DictVariable.key_of(item, tx)))
        if self.kind == "values":
            return ConstantVariable(_operators.any_equal(tx, self.unpack(tx), item))
        pair = item.unpack(tx) if issubclass(item.python_type(), tuple) else ()
        if len(pair) != 2:
            return ConstantVariable(False)
        key, value = pair
        key = DictVariable.key_of(key, tx)
        if not self.target.has_key(key):
            return ConstantVariable(False)
        return ConstantVariable(_operators.any_equal(tx, [self.target.lookup(key)], value))

    def real_view(self, tx: InstructionTranslator) -> Any:
        """A real view of a real dict with the same keys in the same order (and, for ``values()`` and
        ``items()``, the same values when they are constants), or None when the values are not known."""
        if self.kind != "items":  # a values view's operators only raise TypeError: its values do not matter
            return getattr(dict.fromkeys(self.target.items), self.kind)()
        values = list(self.target.items.values())
        if not all(v.is_python_constant() for v in values):
            return None
        real = dict(zip(self.target.items, (v.as_python_constant() for v in values)))
        return getattr(real, self.kind)()

    def describe(self) -> str:
        return f"dict {self.kind} view"


#: The methods of a view read as attributes (``k.isdisjoint``); ``isdisjoint`` only exists on keys and items views.
_VIEW_METHODS = frozenset({"__len__", "__contains__", "isdisjoint"})

#: The operators a dict view has beyond iteration (keys and items views are set-like: set algebra and
#: the subset comparisons).
_VIEW_OPERATORS = {operator.or_, operator.and_, operator.sub, operator.xor, operator.eq, operator.ne, operator.lt,
                   operator.le, operator.gt, operator.ge}


def _real_operand(tx: InstructionTranslator, value: Variable) -> Any:
    """The real value a view operator reads from ``value``, or None when it cannot be known."""
    if isinstance(value, DictViewVariable):
        return value.real_view(tx)
    if isinstance(value, SetVariable):
        return value.layout if not value.frozen else frozenset(value.layout)
    if value.is_python_constant():
        return value.as_python_constant()
    if isinstance(value, (TupleVariable, ListVariable)):
        keys = [DictVariable.key_of(i, tx) for i in value.items]
        return keys if isinstance(value, ListVariable) else tuple(keys)
    return None


def view_operator(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``keys() & other``, ``items() | other``, ...: CPython answers with a new set, computed here on real
    views of dicts with the same keys (members held in the trace keep their variables)."""
    if not (isinstance(left, DictViewVariable) or isinstance(right, DictViewVariable)):
        return None
    # A view has no in-place operators, and a set's declines a view: ``view |= s`` and ``s |= view`` are
    # ``view | s`` and ``s | view``, a new set bound to the name (the operands stay as they were).
    op = _operators.INPLACE.get(op, op)
    if op not in _VIEW_OPERATORS:
        return None
    real_left, real_right = _real_operand(tx, left), _real_operand(tx, right)
    if real_left is None or real_right is None:
        return None
    try:
        result = op(real_left, real_right)
    except TypeError as exc:
        raise UserError("dict view operator", str(exc), exc_type=TypeError, exc_args=exc.args) from exc
    if isinstance(result, bool):
        return ConstantVariable(result)
    if not isinstance(result, set):
        return None
    known = [v for v in (left, right) if isinstance(v, SetVariable)]
    known += [SetVariable(v.unpack(tx), tx=tx) for v in (left, right) if isinstance(v, DictViewVariable) and v.kind == "keys"]
    return SetVariable.from_layout(result, *known)


_operators.CONTAINER_OPERATORS.append(view_operator)

