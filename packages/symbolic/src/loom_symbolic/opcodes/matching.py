"""Structural pattern matching (``match`` statements): the MATCH_* instructions and GET_LEN."""

from __future__ import annotations

import collections.abc

from ..errors import Unsupported, UserError
from ..variables import builtins as _builtins
from ..variables.constant import ConstantVariable
from ..variables.containers import DictVariable, TupleVariable
from ..variables.registry import wrap_constant_like
from .registry import handler

#: Builtins whose single positional sub-pattern matches the subject itself (``case int(n):``).
_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def _subject_type(tx, subject) -> type:
    try:
        return subject.python_type()
    except Unsupported:
        raise Unsupported(f"a match on {subject.describe()}", "its type is not known while tracing") from None


@handler("GET_LEN")
def get_len(tx, ins) -> None:
    tx.push(_builtins.call_builtin(tx, len, [tx.peek()], {}))


@handler("MATCH_MAPPING")
def match_mapping(tx, ins) -> None:
    tx.push(ConstantVariable(issubclass(_subject_type(tx, tx.peek()), collections.abc.Mapping)))


@handler("MATCH_SEQUENCE")
def match_sequence(tx, ins) -> None:
    cls = _subject_type(tx, tx.peek())
    is_sequence = issubclass(cls, collections.abc.Sequence) and not issubclass(cls, (str, bytes, bytearray))
    tx.push(ConstantVariable(is_sequence))


@handler("MATCH_KEYS")
def match_keys(tx, ins) -> None:
    keys = tx.peek().as_python_constant()
    subject = tx.peek(2)
    if not isinstance(subject, DictVariable):
        raise Unsupported(f"a mapping pattern on {subject.describe()}", "only dicts are matched while tracing")
    if all(k in subject.items for k in keys):
        tx.push(TupleVariable([subject.items[k] for k in keys]))
    else:
        tx.push(ConstantVariable(None))


@handler("MATCH_CLASS")
def match_class(tx, ins) -> None:
    names = tx.pop().as_python_constant()
    cls = tx.pop().as_python_constant()
    subject = tx.pop()
    if not isinstance(cls, type):
        raise UserError("match class pattern", "called match pattern must be a class", exc_type=TypeError)
    if not issubclass(_subject_type(tx, subject), cls):
        tx.push(ConstantVariable(None))
        return
    positional = ins.arg
    attributes: list[str] = []
    if positional:
        if cls in _SELF_MATCHING or any(cls is base for base in _SELF_MATCHING):
            if positional > 1:
                raise UserError("match class pattern", f"{cls.__name__}() accepts 1 positional sub-pattern",
                                exc_type=TypeError)
            values = [subject]
        else:
            match_args = getattr(cls, "__match_args__", ())
            if positional > len(match_args):
                raise UserError("match class pattern", f"{cls.__name__}() accepts {len(match_args)} positional "
                                f"sub-patterns ({positional} given)", exc_type=TypeError)
            attributes = list(match_args[:positional])
            values = []
    else:
        values = []
    attributes += list(names)

    for name in attributes:
        has = _builtins.call_builtin(tx, hasattr, [subject, wrap_constant_like(name)], {})
        if not has.as_python_constant():
            tx.push(ConstantVariable(None))
            return
        values.append(subject.var_getattr(tx, name))
    tx.push(TupleVariable(values))
