"""Structural pattern matching (``match`` statements): the MATCH_* instructions and GET_LEN."""

from __future__ import annotations

from ..errors import Unsupported, UserError
from ..variables import builtins as _builtins
from ..variables.constant import ConstantVariable
from ..variables.containers import DictVariable, TupleVariable
from ..variables.exception_values import SymbolicException, is_attribute_error
from ..variables.registry import wrap_constant_like
from ..versions import current as version
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


#: ``Py_TPFLAGS_SEQUENCE`` and ``Py_TPFLAGS_MAPPING``: what MATCH_SEQUENCE and MATCH_MAPPING test. A class
#: inherits at most one of them, from the first base of its MRO holding one (``class M(UserDict, Sequence)`` is
#: a mapping only), ``str``/``bytes``/``bytearray`` have neither, and ``Sequence.register(cls)`` sets it.
_SEQUENCE_FLAG = 1 << 5
_MAPPING_FLAG = 1 << 6


@handler("MATCH_MAPPING")
def match_mapping(tx, ins) -> None:
    tx.push(ConstantVariable(bool(_subject_type(tx, tx.peek()).__flags__ & _MAPPING_FLAG)))


@handler("MATCH_SEQUENCE")
def match_sequence(tx, ins) -> None:
    tx.push(ConstantVariable(bool(_subject_type(tx, tx.peek()).__flags__ & _SEQUENCE_FLAG)))


#: the default ``MATCH_KEYS`` hands a mapping's ``get``: a key it comes back for is missing
_MISSING = object()


@handler("MATCH_KEYS")
def match_keys(tx, ins) -> None:
    """What CPython's ``match_keys`` does: each key once (a repeated one is a ValueError), looked up with the
    subject's own ``get(key, missing)`` (a ``Mapping`` class's is inlined; a ``dict``'s reads its items and
    never calls ``__missing__``); a key it lacks makes the pattern fail (None)."""
    keys = tx.peek().as_python_constant()
    subject = tx.peek(2)
    plain_dict = isinstance(subject, DictVariable) and _subject_type(tx, subject).get is dict.get
    missing = wrap_constant_like(_MISSING)
    values = []
    for index, key in enumerate(keys):
        if key in keys[:index]:  # checked as each key comes: a key missing before it makes the pattern fail first
            raise UserError("mapping pattern", "a key is checked twice", exc_type=ValueError,
                            exc_args=(f"mapping pattern checks duplicate key ({key!r})",))
        if plain_dict:
            value = subject.items.get(key, missing)
        else:
            value = subject.call_method(tx, "get", [wrap_constant_like(key), missing], {})
        if value is missing or (getattr(value, "wraps_real_object", False) and value.value is _MISSING):
            tx.push(ConstantVariable(None))
            return
        values.append(value)
    tx.push(TupleVariable(values))


@handler("MATCH_CLASS")
def match_class(tx, ins) -> None:
    """What CPython's ``match_class`` does: ``__match_args__`` names the positional sub-patterns (a tuple of
    strings), else a class that matches itself (``int`` and the other builtins, their subclasses too) takes
    one; each attribute is read once, an AttributeError making the pattern fail (None)."""
    names = tx.pop().as_python_constant()
    cls_variable = tx.pop()
    cls = cls_variable.as_python_constant()
    subject = tx.pop()
    if not isinstance(cls, type):
        raise UserError("match class pattern", "called match pattern must be a class", exc_type=TypeError,
                        exc_args=(version.MATCH_CLASS_NOT_A_TYPE,))
    # isinstance() as CPython calls it: a metaclass's __instancecheck__, a Protocol's checks (and their errors)
    if not _builtins.call_builtin(tx, isinstance, [subject, cls_variable], {}).as_python_constant():
        tx.push(ConstantVariable(None))
        return
    positional = ins.arg
    attributes: list[str] = []
    values = []
    if positional:
        match_args = getattr(cls, "__match_args__", _MISSING)
        if match_args is not _MISSING and type(match_args) is not tuple:
            raise UserError("match class pattern", "__match_args__ is not a tuple", exc_type=TypeError,
                            exc_args=(f"{cls.__name__}.__match_args__ must be a tuple (got "
                                      f"{type(match_args).__name__})",))
        match_self = match_args is _MISSING and issubclass(cls, _SELF_MATCHING)
        allowed = 1 if match_self else 0 if match_args is _MISSING else len(match_args)
        if positional > allowed:
            plural = "" if allowed == 1 else "s"
            raise UserError("match class pattern", "too many positional sub-patterns", exc_type=TypeError,
                            exc_args=(f"{cls.__name__}() accepts {allowed} positional sub-pattern{plural} "
                                      f"({positional} given)",))
        if match_self:
            values.append(subject)
        else:
            for name in match_args[:positional]:
                if type(name) is not str:
                    raise UserError("match class pattern", "__match_args__ holds a non-string",
                                    exc_type=TypeError, exc_args=(f"__match_args__ elements must be strings "
                                                                  f"(got {type(name).__name__})",))
                attributes.append(name)
    attributes += list(names)

    for index, name in enumerate(attributes):
        if name in attributes[:index]:
            raise UserError("match class pattern", "one attribute matched twice", exc_type=TypeError,
                            exc_args=(f"{cls.__name__}() got multiple sub-patterns for attribute {name!r}",))
        try:
            values.append(subject.var_getattr(tx, name))  # read once: a __getattr__ runs once, as in CPython
        except (UserError, SymbolicException) as exc:
            if not is_attribute_error(exc):
                raise
            tx.push(ConstantVariable(None))
            return
    tx.push(TupleVariable(values))
