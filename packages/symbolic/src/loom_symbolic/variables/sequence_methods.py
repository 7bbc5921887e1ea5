"""Methods of tuples and lists while tracing, one small function each (``list.append`` is found by
grepping ``"append"``)."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from ..errors import Unsupported, UserError, args_of
from . import iterators as _iterators
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .container_method_kit import NONE, constant_arg, real_error_args, table_filler, values_equal
from .containers import LIST_METHODS, SEQUENCE_METHODS, ListVariable
from .lazy_list import appending_to

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


# -- tuple (and list) ------------------------------------------------------------------------------
sequence_method = table_filler(SEQUENCE_METHODS)


@sequence_method("count")
def seq_count(tx, seq, args, kwargs):
    return ConstantVariable(sum(1 for item in seq.items if values_equal(tx, item, args[0])))


@sequence_method("index")
def seq_index(tx, seq, args, kwargs):
    n = len(seq.items)
    start = constant_arg(args[1], "index") if len(args) > 1 else 0
    stop = constant_arg(args[2], "index") if len(args) > 2 else n
    for i in range(*slice(start, stop).indices(n)):  # the bounds are clamped like a slice's
        if i >= len(seq.items):
            break  # a comparison shortened the list: CPython's loop checks the length each time
        if values_equal(tx, seq.items[i], args[0]):
            return ConstantVariable(i)
    empty = [] if seq.container_type is list else ()
    raise UserError(f"{seq.container_type.__name__}.index", "x not in sequence", exc_type=ValueError,
                    exc_args=real_error_args(empty.index, args[0]))


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
list_method = table_filler(LIST_METHODS)
LIST_METHODS.update(SEQUENCE_METHODS)


@list_method("append")
def list_append(tx, lst, args, kwargs):
    appending_to(lst).append(args[0])  # a list from the frame never read: its tail, its length unguarded
    lst.mutated(tx)
    return NONE


@list_method("extend")
def list_extend(tx, lst, args, kwargs):
    lst.mutated(tx)  # first: an iterable that raises leaves the items before the error in the list
    for item in _iterators.each_item(tx, args[0]):
        appending_to(lst).append(item)  # asked per item: iterating the list itself reads it
    return NONE


@list_method("insert")
def list_insert(tx, lst, args, kwargs):
    lst.items.insert(constant_arg(args[0], "list.insert"), args[1])
    lst.mutated(tx)
    return NONE


@list_method("pop")
def list_pop(tx, lst, args, kwargs):
    index = constant_arg(args[0], "list.pop") if args else -1
    if not lst.items:
        raise UserError("list.pop", "pop from empty list", exc_type=IndexError, exc_args=real_error_args([].pop))
    try:
        item = lst.items.pop(index)
    except IndexError as exc:
        raise UserError("list.pop", str(exc), exc_type=IndexError, exc_args=exc.args) from exc
    lst.mutated(tx)
    return item


@list_method("remove")
def list_remove(tx, lst, args, kwargs):
    for i, item in enumerate(lst.items):
        if values_equal(tx, item, args[0]):
            del lst.items[i]
            lst.mutated(tx)
            return NONE
    raise UserError("list.remove", "list.remove(x): x not in list", exc_type=ValueError,
                    exc_args=real_error_args([].remove, args[0]))


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


class _TracedOrder:
    """A sort key whose ``<`` is the traced ``<`` of its variable: Python's own sort then makes the very
    comparisons CPython's makes at run time, each decided while tracing (a size comparison becomes a
    guard, a user ``__lt__`` is inlined); one that cannot be decided breaks the graph there."""

    __slots__ = ("tx", "value")

    def __init__(self, tx: InstructionTranslator, value: Variable) -> None:
        self.tx = tx
        self.value = value

    def __lt__(self, other: _TracedOrder) -> bool:
        return _operators.binary(self.tx, operator.lt, self.value, other.value).truth(self.tx)


@list_method("sort")
def list_sort(tx, lst, args, kwargs):
    items = list(lst.items)
    # CPython empties the list while it sorts: key functions and comparisons see it empty, and whatever
    # they add to it is dropped with a ValueError once the sorted items are back in place
    lst.items[:] = []
    try:
        items = _sorted_items(tx, items, kwargs)
    finally:
        modified = bool(lst.items)
        lst.items[:] = items
        lst.mutated(tx)
    if modified:
        raise UserError("list.sort", "list modified during sort", exc_type=ValueError,
                        exc_args=("list modified during sort",))
    return NONE


def _sorted_items(tx, items, kwargs):
    key = kwargs.get("key")
    if key is not None and not (key.is_python_constant() and key.as_python_constant() is None):
        keys = [key.call(tx, [item], {}) for item in items]  # a builtin (key=abs) too
    else:
        keys = items
    if all(k.is_python_constant() and not _operators.constant_runs_python(k, "__lt__", "__gt__") for k in keys):
        values = [k.as_python_constant() for k in keys]  # (an enum's own __lt__ is traced, below)
    else:
        values = [_TracedOrder(tx, k) for k in keys]
    reverse = bool(constant_arg(kwargs["reverse"], "list.sort")) if "reverse" in kwargs else False
    try:
        order = sorted(range(len(values)), key=values.__getitem__, reverse=reverse)
    except TypeError as exc:  # keys that do not compare: the program's own error
        raise UserError("sorting", str(exc), exc_type=TypeError, exc_args=args_of(exc)) from exc
    except Unsupported as exc:
        if not isinstance(exc, UserError):  # a comparison the trace cannot decide: say it was a sort's
            exc.reason.what = f"sorting ({exc.reason.what})"
        raise
    return [items[i] for i in order]


@list_method("__init__")
def list_init(tx, lst, args, kwargs):
    # list.__init__(self, iterable) of a subclass's __init__ (super().__init__(items)): refills the list
    lst.items[:] = []  # first, as CPython: list.__init__(lst, lst) leaves it empty
    lst.items[:] = list(_iterators.each_item(tx, args[0])) if args else []
    lst.mutated(tx)
    return NONE


@list_method("copy")
def list_copy(tx, lst, args, kwargs):
    return ListVariable(list(lst.items))


@list_method("__setitem__")
def list_setitem(tx, lst, args, kwargs):
    lst.setitem(tx, args[0], args[1])
    return NONE

