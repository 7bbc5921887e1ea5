"""Methods of lists, tuples, dicts and sets while tracing, one small function each.

Each table maps a method name to ``fn(tx, receiver, args, kwargs) -> Variable``. Containers look
their methods up here, so ``list.append`` is found by grepping ``"append"``.
"""

from __future__ import annotations

import collections
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from . import iterators as _iterators
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .containers import (
    DICT_METHODS,
    LIST_METHODS,
    SEQUENCE_METHODS,
    SET_METHODS,
    DictVariable,
    ListVariable,
    Method,
    SetVariable,
    TupleVariable,
    key_variable,
    lookup,
)
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


NONE = ConstantVariable(None)


def _filler(table: dict[str, Method]) -> Callable[..., Callable[[Method], Method]]:
    """A decorator that adds its function to ``table`` (one of :mod:`.containers`' method tables)."""

    def method(*names: str) -> Callable[[Method], Method]:
        def register(fn: Method) -> Method:
            for name in names:
                table[name] = fn
            return fn

        return register

    return method


def _constant(arg: Variable, what: str) -> Any:
    if not arg.is_python_constant():
        raise Unsupported(f"{what} with a value known only at run time", "not modelled")
    return arg.as_python_constant()


def _equal(tx: InstructionTranslator, a: Variable, b: Variable) -> bool:
    return a is b or _operators.binary(tx, operator.eq, a, b).truth(tx)


# -- tuple (and list) ------------------------------------------------------------------------------
sequence_method = _filler(SEQUENCE_METHODS)


@sequence_method("count")
def seq_count(tx, seq, args, kwargs):
    return ConstantVariable(sum(1 for item in seq.items if _equal(tx, item, args[0])))


@sequence_method("index")
def seq_index(tx, seq, args, kwargs):
    n = len(seq.items)
    start = _constant(args[1], "index") if len(args) > 1 else 0
    stop = _constant(args[2], "index") if len(args) > 2 else n
    for i in range(*slice(start, stop).indices(n)):  # the bounds are clamped like a slice's
        if _equal(tx, seq.items[i], args[0]):
            return ConstantVariable(i)
    raise UserError(f"{seq.container_type.__name__}.index", "x not in sequence", exc_type=ValueError)


@sequence_method("__len__")
def seq_len(tx, seq, args, kwargs):
    return ConstantVariable(len(seq.items))


@sequence_method("__getitem__")
def seq_getitem(tx, seq, args, kwargs):
    return seq.getitem(tx, args[0])


@sequence_method("__contains__")
def seq_contains(tx, seq, args, kwargs):
    return _operators.contains(tx, seq, args[0])


# -- list --------------------------------------------------------------------------------------------
list_method = _filler(LIST_METHODS)
LIST_METHODS.update(SEQUENCE_METHODS)


@list_method("append")
def list_append(tx, lst, args, kwargs):
    lst.items.append(args[0])
    lst.mutated(tx)
    return NONE


@list_method("extend")
def list_extend(tx, lst, args, kwargs):
    lst.mutated(tx)  # first: an iterable that raises leaves the items before the error in the list
    for item in _iterators.each_item(tx, args[0]):
        lst.items.append(item)
    return NONE


@list_method("insert")
def list_insert(tx, lst, args, kwargs):
    lst.items.insert(_constant(args[0], "list.insert"), args[1])
    lst.mutated(tx)
    return NONE


@list_method("pop")
def list_pop(tx, lst, args, kwargs):
    index = _constant(args[0], "list.pop") if args else -1
    if not lst.items:
        raise UserError("list.pop", "pop from empty list", exc_type=IndexError)
    try:
        item = lst.items.pop(index)
    except IndexError as exc:
        raise UserError("list.pop", str(exc), exc_type=IndexError) from exc
    lst.mutated(tx)
    return item


@list_method("remove")
def list_remove(tx, lst, args, kwargs):
    for i, item in enumerate(lst.items):
        if _equal(tx, item, args[0]):
            del lst.items[i]
            lst.mutated(tx)
            return NONE
    raise UserError("list.remove", "list.remove(x): x not in list", exc_type=ValueError)


@list_method("clear")
def list_clear(tx, lst, args, kwargs):
    lst.items.clear()
    lst.mutated(tx)
    return NONE


@list_method("reverse")
def list_reverse(tx, lst, args, kwargs):
    lst.items.reverse()
    lst.mutated(tx)
    return NONE


@list_method("sort")
def list_sort(tx, lst, args, kwargs):
    key = kwargs.get("key")
    if key is not None and not (key.is_python_constant() and key.as_python_constant() is None):
        keys = [key.call(tx, [item], {}) for item in lst.items]  # a builtin (key=abs) too
    else:
        keys = lst.items
    values = [_constant(k, "list.sort") for k in keys]
    reverse = bool(_constant(kwargs["reverse"], "list.sort")) if "reverse" in kwargs else False
    try:
        order = sorted(range(len(values)), key=values.__getitem__, reverse=reverse)
    except TypeError as exc:  # keys that do not compare: the program's own error
        raise UserError("sorting", str(exc), exc_type=TypeError) from exc
    lst.items[:] = [lst.items[i] for i in order]
    lst.mutated(tx)
    return NONE


@list_method("copy")
def list_copy(tx, lst, args, kwargs):
    return ListVariable(list(lst.items))


@list_method("__setitem__")
def list_setitem(tx, lst, args, kwargs):
    lst.setitem(tx, args[0], args[1])
    return NONE


# -- dict --------------------------------------------------------------------------------------------
dict_method = _filler(DICT_METHODS)


@dict_method("__getitem__")
def dict_getitem(tx, d, args, kwargs):
    return d.getitem(tx, args[0])


@dict_method("__setitem__")
def dict_setitem(tx, d, args, kwargs):
    d.setitem(tx, args[0], args[1])
    return NONE


@dict_method("__contains__")
def dict_contains(tx, d, args, kwargs):
    return ConstantVariable(d.has_key(DictVariable.key_of(args[0])))


@dict_method("__len__")
def dict_len(tx, d, args, kwargs):
    return ConstantVariable(len(d.items))


@dict_method("get")
def dict_get(tx, d, args, kwargs):
    value = d.lookup(DictVariable.key_of(args[0]))
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
    key = DictVariable.key_of(args[0])
    if key in d.items:
        value = d.items.pop(key)
        d.mutated(tx)
        return value
    if len(args) > 1:
        return args[1]
    raise UserError("dict.pop", f"KeyError: {key!r}", exc_type=KeyError)


@dict_method("popitem")
def dict_popitem(tx, d, args, kwargs):
    if not d.items:
        raise UserError("dict.popitem", "popitem(): dictionary is empty", exc_type=KeyError)
    key, value = d.items.popitem()
    d.mutated(tx)
    return TupleVariable([key_variable(key), value])


@dict_method("setdefault")
def dict_setdefault(tx, d, args, kwargs):
    key = DictVariable.key_of(args[0])
    if key not in d.items:
        d.items[key] = args[1] if len(args) > 1 else NONE
        d.mutated(tx)
    return d.items[key]


@dict_method("update")
def dict_update(tx, d, args, kwargs):
    d.mutated(tx)  # first: a bad item raises after the items before it were stored
    if args:
        other = args[0]
        if isinstance(other, DictVariable):
            d.items.update(other.items)
        else:
            update_from_pairs(tx, d.items, other)
    d.items.update(kwargs)
    return NONE


def update_from_pairs(tx: InstructionTranslator, items: dict[Any, Variable], pairs: Variable) -> None:
    """``dict(pairs)`` or ``d.update(pairs)``: store each (key, value) in turn; an item that is not a pair
    is the program's ValueError, raised after the items before it were stored, as in Python."""
    for number, pair in enumerate(_iterators.each_item(tx, pairs)):
        parts = _iterators.iterate(tx, pair).unpack(tx)
        if len(parts) != 2:
            raise UserError("dict update", f"dictionary update sequence element #{number} has length {len(parts)}; "
                            "2 is required", exc_type=ValueError)
        items[DictVariable.key_of(parts[0])] = parts[1]


@dict_method("__init__")
def dict_init(tx, d, args, kwargs):
    # dict.__init__(self, ...) of a subclass's __init__ (Counter's super().__init__()): an update
    if len(args) > 1:
        raise UserError("dict()", f"dict expected at most 1 argument, got {len(args)}", exc_type=TypeError)
    return dict_update(tx, d, args, kwargs)


@dict_method("clear")
def dict_clear(tx, d, args, kwargs):
    d.items.clear()
    d.mutated(tx)
    return NONE


@dict_method("copy")
def dict_copy(tx, d, args, kwargs):
    # dict.copy() gives a plain dict even for subclasses; OrderedDict.copy() keeps the class.
    return DictVariable(dict(d.items), cls=collections.OrderedDict if d.cls is collections.OrderedDict else dict)


# -- set ---------------------------------------------------------------------------------------------
set_method = _filler(SET_METHODS)


def _set_mutator(fn: Method) -> Method:
    def method(tx, s, args, kwargs):
        s.mutated(tx)  # first: a failing update keeps what it added before the error
        return fn(tx, s, args, kwargs)

    method.__name__ = fn.__name__
    return method


@set_method("add")
@_set_mutator
def set_add(tx, s, args, kwargs):
    s.add(args[0])
    return NONE


@set_method("update")
@_set_mutator
def set_update(tx, s, args, kwargs):
    for other in args:
        for item in _iterators.each_item(tx, other):
            s.add(item)
    return NONE


@set_method("discard")
@_set_mutator
def set_discard(tx, s, args, kwargs):
    s.values.pop(DictVariable.key_of(args[0]), None)
    return NONE


@set_method("remove")
@_set_mutator
def set_remove(tx, s, args, kwargs):
    key = DictVariable.key_of(args[0])
    if key not in s.values:
        raise UserError("set.remove", f"KeyError: {key!r}", exc_type=KeyError)
    del s.values[key]
    return NONE


@set_method("clear")
@_set_mutator
def set_clear(tx, s, args, kwargs):
    s.values.clear()
    return NONE


def _set_update_in_place(name: str) -> Method:
    def update(tx, s, args, kwargs):
        others = [set(DictVariable.key_of(i) for i in a.unpack(tx)) for a in args]
        kept = set(s.values)
        getattr(kept, name)(*others)
        s.values = {k: s.values.get(k) or key_variable(k) for k in kept}
        return NONE

    update.__name__ = f"set_{name}"
    return _set_mutator(update)


for _name in ("difference_update", "symmetric_difference_update"):
    SET_METHODS[_name] = _set_update_in_place(_name)


@set_method("__contains__")
def set_contains(tx, s, args, kwargs):
    return ConstantVariable(DictVariable.key_of(args[0]) in s.values)


def _set_algebra(name: str) -> Method:
    def algebra(tx, s, args, kwargs):
        others = [set(DictVariable.key_of(i) for i in a.unpack(tx)) for a in args]
        result = getattr(set(s.values), name)(*others)
        return wrap_constant_like(result) if not isinstance(result, set) else SetVariable(
            [s.values.get(k) or key_variable(k) for k in result], frozen=s.frozen
        )

    algebra.__name__ = f"set_{name}"
    return algebra


for _name in ("union", "difference", "symmetric_difference"):
    SET_METHODS[_name] = _set_algebra(_name)


def _first_item_where(found: bool, name: str) -> Method:
    """``set.name(iterable)`` that stops at the first item whose membership in the set is ``found``, as
    CPython does for an iterable that is not a set: a generator runs no further than in eager."""
    whole = _set_algebra(name)

    def search(tx, s, args, kwargs):
        if len(args) != 1 or kwargs:
            return whole(tx, s, args, kwargs)  # the builtin's own argument error
        for item in _iterators.each_item(tx, args[0]):
            if (DictVariable.key_of(item) in s.values) is found:
                return ConstantVariable(False)
        return ConstantVariable(True)

    search.__name__ = f"set_{name}"
    return search


#: ``isdisjoint`` is False at the first item in the set, ``issuperset`` at the first item not in it
#: (``union``, ``difference`` and ``symmetric_difference`` read their arguments whole, in CPython too).
SET_METHODS["isdisjoint"] = _first_item_where(True, "isdisjoint")
SET_METHODS["issuperset"] = _first_item_where(False, "issuperset")


def _intersect(tx: InstructionTranslator, kept: set, other: Variable) -> set:
    """The keys of ``kept`` found in iterable ``other``, taking its items as CPython's intersection does:
    it stops as soon as every key of ``kept`` has been found (an empty ``kept`` reads ``other`` whole)."""
    found: set = set()
    for item in _iterators.each_item(tx, other):
        key = DictVariable.key_of(item)
        if key in kept:
            found.add(key)
            if len(found) >= len(kept):
                break
    return found


@set_method("intersection")
def set_intersection(tx, s, args, kwargs):
    kept = set(s.values)
    for other in args:  # one argument after the other, each against what is left
        kept = _intersect(tx, kept, other)
    return SetVariable([s.values.get(k) or key_variable(k) for k in kept], frozen=s.frozen)


@set_method("intersection_update")
@_set_mutator
def set_intersection_update(tx, s, args, kwargs):
    kept = set(s.values)
    for other in args:
        kept = _intersect(tx, kept, other)
    s.values = {k: v for k, v in s.values.items() if k in kept}
    return NONE


def _issubset_intersects() -> bool:
    """Whether this CPython's ``set.issubset`` of an iterable that is not a set intersects it, stopping
    once every member was found (3.12 and later), rather than reading it whole into a set first (3.11)."""
    taken = []

    def items():
        for i in (0, 1):
            taken.append(i)
            yield i

    {0}.issubset(items())
    return len(taken) == 1


_ISSUBSET_INTERSECTS = _issubset_intersects()


@set_method("issubset")
def set_issubset(tx, s, args, kwargs):
    if len(args) != 1 or kwargs or not _ISSUBSET_INTERSECTS:
        return _set_algebra("issubset")(tx, s, args, kwargs)
    kept = set(s.values)
    return ConstantVariable(len(_intersect(tx, kept, args[0])) == len(kept))


class DictViewVariable(Variable):
    """``d.keys()``, ``d.values()`` or ``d.items()``: iterable, sized, never rebuilt in bytecode."""

    def __init__(self, target: DictVariable, kind: str) -> None:
        self.target = target
        self.kind = kind

    def python_type(self) -> type:
        return type(getattr({}, self.kind)())

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        items = self.target.items
        if self.kind == "keys":
            return [key_variable(k) for k in items]
        if self.kind == "values":
            return list(items.values())
        return [TupleVariable([key_variable(k), v]) for k, v in items.items()]

    def iterate(self, tx: InstructionTranslator) -> Variable:
        return _iterators.DictIterator(self.target, self.kind)

    def call_method(self, tx, name, args, kwargs):
        if name == "__len__":
            return ConstantVariable(len(self.target.items))
        if name == "__contains__" and self.kind == "keys":
            return ConstantVariable(DictVariable.key_of(args[0]) in self.target.items)
        raise Unsupported(f"dict view method {name}", "not modelled")

    def describe(self) -> str:
        return f"dict {self.kind} view"


class UnboundMethodVariable(Variable):
    """``dict.pop``, ``list.append``, ... read from the builtin class: called with a container of that
    class (or a subclass) first, it is that container's own builtin method, whatever a subclass
    overrides (what C code reaching the dict layer directly does, and polyfills written like it)."""

    def __init__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        receiver = args[0] if args else None
        if receiver is None or lookup(receiver, self.name) is None or not issubclass(receiver.python_type(), self.owner):
            what = receiver.describe() if receiver is not None else "no arguments"
            raise Unsupported(f"{self.owner.__name__}.{self.name} called on {what}", "not modelled")
        return receiver.call_builtin_method(tx, self.name, args[1:], kwargs)

    def reconstruct(self, codegen: Any) -> None:
        codegen.load_const(getattr(self.owner, self.name))

    def describe(self) -> str:
        return f"{self.owner.__name__}.{self.name}"


#: The builtin classes whose methods, read unbound, :class:`UnboundMethodVariable` models.
_UNBOUND_TABLES = {dict: DICT_METHODS, list: LIST_METHODS}


def unbound_method(owner: Any, name: str) -> Variable | None:
    """``owner.name`` for a builtin container class and a method its table models, else None."""
    table = _UNBOUND_TABLES.get(owner) if isinstance(owner, type) else None
    if table is None or name not in table:
        return None
    return UnboundMethodVariable(owner, name)
