"""Building and unpacking containers, slices and strings."""

from __future__ import annotations

from ..errors import Unsupported, UserError, args_of
from ..variables.constant import ConstantVariable
from ..variables.containers import DictVariable, ListVariable, SetVariable, SliceVariable, TupleVariable
from ..variables.dict_methods import double_star_items
from ..variables.iterators import IteratorVariable, iterated_items
from ..variables.lazy_list import appending_to
from ..variables.operand_dispatch import constant_runs_python
from ..variables.specialising import NOT_CONCRETE, concrete, has_symbolic_int
from ..variables.tensor import length_hinted
from ..variables.text import builtin_format, formatted_text
from .registry import handler


@handler("BUILD_TUPLE")
def build_tuple(tx, ins) -> None:
    tx.push(TupleVariable(tx.popn(ins.arg)))


@handler("BUILD_LIST")
def build_list(tx, ins) -> None:
    tx.push(ListVariable(tx.popn(ins.arg)))


@handler("BUILD_SET")
def build_set(tx, ins) -> None:
    tx.push(SetVariable(tx.popn(ins.arg), tx=tx))


@handler("BUILD_MAP")
def build_map(tx, ins) -> None:
    flat = tx.popn(2 * ins.arg)
    items = {DictVariable.key_of(flat[i], tx): flat[i + 1] for i in range(0, len(flat), 2)}
    tx.push(DictVariable(items))


@handler("BUILD_CONST_KEY_MAP")
def build_const_key_map(tx, ins) -> None:
    keys = tx.pop().as_python_constant()
    values = tx.popn(ins.arg)
    tx.push(DictVariable(dict(zip(keys, values))))


@handler("BUILD_SLICE")
def build_slice(tx, ins) -> None:
    tx.push(make_slice(tx.popn(ins.arg)))


def make_slice(parts: list) -> ConstantVariable | SliceVariable:
    """``slice(start, stop[, step])`` (also 3.12's BINARY_SLICE and STORE_SLICE)."""
    if len(parts) == 2:
        parts.append(ConstantVariable(None))
    if all(p.is_python_constant() for p in parts):
        return ConstantVariable(slice(*(p.as_python_constant() for p in parts)))
    return SliceVariable(*parts)


@handler("BUILD_STRING")
def build_string(tx, ins) -> None:
    pieces = tx.popn(ins.arg)
    tx.push(ConstantVariable("".join(p.as_python_constant() for p in pieces)))


_CONVERSIONS = {0: None, 1: str, 2: repr, 3: ascii}


@handler("FORMAT_VALUE")
def format_value(tx, ins) -> None:
    flags = ins.arg
    spec = tx.pop() if flags & 0x04 else None
    tx.push(format_constant(tx.pop(), _CONVERSIONS[flags & 0x03], spec, tx))


def format_constant(value, convert=None, spec=None, tx=None) -> ConstantVariable:
    """``format(convert(value), spec)`` of a value known while tracing (f-strings: 3.11/3.12's
    FORMAT_VALUE, 3.13's CONVERT_VALUE, FORMAT_SIMPLE and FORMAT_WITH_SPEC); an object whose
    ``__str__``/``__repr__`` is Python (a deque made in the trace) is formatted through it."""
    # object.__format__ refuses a format spec: with one, only a converted value is formatted
    plain = convert is not None or spec is None or (spec.is_python_constant() and spec.as_python_constant() == "")
    if has_symbolic_int(value):  # a size formatted into a name: specialised, as torch.compile does
        known = concrete(tx, value)
        if known is not NOT_CONCRETE:
            value = ConstantVariable(known)
    # an object's text, or a constant's whose class writes __str__/__repr__/__format__ in Python (an enum's):
    # traced, never folded by calling it now
    traced = not value.is_python_constant() or constant_runs_python(value, "__str__", "__repr__", "__format__")
    if traced and tx is not None and plain:
        text = formatted_text(tx, value, convert)
        if text is not None:
            value, convert = text, None
    elif traced and tx is not None and convert is None and spec.is_python_constant():
        formatted = builtin_format(tx, [value, spec], {})  # f"{obj:spec}": the object's own __format__
        if formatted is not None:
            return formatted
    if not value.is_python_constant():
        raise Unsupported(f"formatting {value.describe()} into a string", "its text is known only at run time",
                          hint="format tensors outside the compiled function")
    raw = value.as_python_constant()
    try:
        return ConstantVariable(format(convert(raw) if convert else raw,
                                       spec.as_python_constant() if spec is not None else ""))
    except Exception as exc:
        raise UserError("f-string formatting", str(exc), exc_type=type(exc)) from exc


@handler("LIST_APPEND")
def list_append(tx, ins) -> None:
    value = tx.pop()
    target = tx.peek(ins.arg)
    if target.passed_on:  # a comprehension's list a resumed loop grows in every pass: appended at run time
        target.call_method(tx, "append", [value], {})
        return
    appending_to(target).append(value)
    target.mutated(tx)


@handler("SET_ADD")
def set_add(tx, ins) -> None:
    value = tx.pop()
    target = tx.peek(ins.arg)
    if target.passed_on:  # a comprehension's set a resumed loop grows in every pass: added at run time
        target.call_method(tx, "add", [value], {})
        return
    target.add(value, tx)
    target.mutated(tx)  # a set from a source (a comprehension resumed after a break) is written back


@handler("MAP_ADD")
def map_add(tx, ins) -> None:
    value = tx.pop()
    key = tx.pop()
    target = tx.peek(ins.arg)
    if target.passed_on:  # a comprehension's dict a resumed loop grows in every pass: stored at run time
        target.setitem(tx, key, value)
        return
    target.items[DictVariable.key_of(key, tx)] = value
    target.mutated(tx)


@handler("LIST_EXTEND")
def list_extend(tx, ins) -> None:
    values = tx.pop()
    target = tx.peek(ins.arg)
    target.items.extend(length_hinted(tx, values, _unpacked(tx, values, _star_in_list)))  # list.extend's hint
    target.mutated(tx)


@handler("SET_UPDATE")
def set_update(tx, ins) -> None:
    values = tx.pop()
    target = tx.peek(ins.arg)
    for item in _unpacked(tx, values, _star_in_set):
        target.add(item, tx)
    target.mutated(tx)


@handler("DICT_UPDATE", "DICT_MERGE")
def dict_update(tx, ins) -> None:
    update = tx.pop()
    target = tx.peek(ins.arg)
    update = double_star_items(tx, update)
    if not isinstance(update, DictVariable):
        raise Unsupported(f"** of {update.describe()}", "only dicts and mappings with keys() are unpacked while tracing")
    if ins.opname == "DICT_MERGE":
        duplicate = next((k for k in update.items if k in target.items), None)
        if duplicate is not None:
            raise UserError("keyword arguments", f"got multiple values for keyword argument {duplicate!r}",
                            exc_type=TypeError)
    target.items.update(update.items)
    target.mutated(tx)


@handler("LIST_TO_TUPLE")
def list_to_tuple(tx, ins) -> None:
    tx.push(TupleVariable(tx.pop().items))


@handler("UNPACK_SEQUENCE")
def unpack_sequence(tx, ins) -> None:
    value = tx.pop()
    if isinstance(value, IteratorVariable):
        # Python takes one item more than it needs, then stops: a generator is not drained.
        items = []
        while len(items) <= ins.arg and (item := value.next_item(tx)) is not None:
            items.append(item)
    else:
        items = _unpacked(tx, value, _unpack_two)
    if len(items) != ins.arg:
        message = (f"too many values to unpack (expected {ins.arg})" if len(items) > ins.arg
                   else f"not enough values to unpack (expected {ins.arg}, got {len(items)})")
        raise UserError("unpacking", message, exc_type=ValueError, exc_args=(message,))
    for item in reversed(items):
        tx.push(item)


@handler("UNPACK_EX")
def unpack_ex(tx, ins) -> None:
    before, after = ins.arg & 0xFF, ins.arg >> 8
    items = _unpacked(tx, tx.pop(), _unpack_starred)
    if len(items) < before + after:
        message = f"not enough values to unpack (expected at least {before + after}, got {len(items)})"
        raise UserError("unpacking", message, exc_type=ValueError, exc_args=(message,))
    middle = items[before : len(items) - after]
    for item in reversed(items[len(items) - after :]):
        tx.push(item)
    tx.push(ListVariable(middle))
    for item in reversed(items[:before]):
        tx.push(item)



def _unpacked(tx, value, real_form) -> list:
    """``value``'s items for an unpacking opcode. A constant that is not iterable raises the TypeError
    ``real_form`` (that opcode's own construct, run on the real value) raises, with CPython's message for
    that construct (``cannot unpack non-iterable int object``, ``Value after * must be an iterable, not
    int``), so a handler reading ``str(e)`` sees it."""
    if isinstance(value, ConstantVariable) and not _is_iterable(value.value):
        try:
            real_form(value.value)
        except TypeError as exc:
            raise UserError("unpacking", str(exc), exc_type=TypeError, exc_args=args_of(exc)) from exc
    return iterated_items(tx, value)


def _is_iterable(value) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _unpack_two(value) -> None:
    _first, _second = value


def _unpack_starred(value) -> None:
    _first, *_rest = value


def _star_in_list(value) -> list:
    return [*value]


def _star_in_set(value) -> set:
    return {*value}
