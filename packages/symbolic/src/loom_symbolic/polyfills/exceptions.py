"""The methods of ``BaseExceptionGroup`` written in C (``split``, ``subgroup``, ``derive``), in Python.

They walk the group as CPython's ``exceptiongroup_split_recursive`` does: a condition is a type, a tuple
of types or a predicate; a group or leaf that matches as a whole is kept as it is (the same object), a
group that matches in part is rebuilt by ``derive`` on each side, with its traceback, ``__context__``,
``__cause__`` and a copy of its notes, and an empty side is None. Traced, the predicate and a user
class's ``derive`` are inlined like any Python code.
"""

from __future__ import annotations

from typing import Any

from .registry import method


def _message_of_bad_condition() -> str:
    """The TypeError's message for a condition that is neither a type, a tuple of types nor a
    predicate (the words changed in 3.13), read off the interpreter itself."""
    try:
        BaseExceptionGroup("", [Exception()]).split(0)
    except TypeError as exc:
        return str(exc)
    return "expected an exception type, a tuple of exception types, or a callable (other than a class)"


_BAD_CONDITION = _message_of_bad_condition()


def _is_exception_type(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def _matcher(condition: Any) -> Any:
    """What decides whether one exception (or group) matches: ``isinstance`` for a type or a tuple of
    types, else the predicate called on it; anything else is CPython's TypeError."""
    if _is_exception_type(condition) or (
            isinstance(condition, tuple) and all(_is_exception_type(kind) for kind in condition)):

        def is_instance(exc: BaseException) -> bool:
            return isinstance(exc, condition)

        return is_instance
    if callable(condition) and not isinstance(condition, type):
        return condition
    raise TypeError(_BAD_CONDITION)


def _derived(group: BaseExceptionGroup, excs: list) -> BaseExceptionGroup:
    """``group.derive(excs)`` carrying ``group``'s metadata, as ``exceptiongroup_subset`` does."""
    new = group.derive(excs)
    if not isinstance(new, BaseExceptionGroup):
        raise TypeError("derive must return an instance of BaseExceptionGroup")
    tb = group.__traceback__
    if tb is not None:
        new.__traceback__ = tb
    new.__context__ = group.__context__
    new.__cause__ = group.__cause__  # which sets __suppress_context__, as PyException_SetCause does
    notes = getattr(group, "__notes__", None)
    if isinstance(notes, (list, tuple)):
        new.__notes__ = list(notes)
    return new


def _split(exc: BaseException, matches: Any, with_rest: bool) -> tuple[Any, Any]:
    """(what of ``exc`` matches, what does not, or None where ``with_rest`` is false)."""
    if matches(exc):
        return exc, None
    if not isinstance(exc, BaseExceptionGroup):
        return None, exc if with_rest else None
    matched, rest = [], []
    for sub in exc.exceptions:
        sub_match, sub_rest = _split(sub, matches, with_rest)
        if sub_match is not None:
            matched.append(sub_match)
        if sub_rest is not None:
            rest.append(sub_rest)
    return (_derived(exc, matched) if matched else None,
            _derived(exc, rest) if with_rest and rest else None)


@method(BaseExceptionGroup, "split")
def split(group: BaseExceptionGroup, condition: Any, /) -> tuple[Any, Any]:
    """``group.split(condition)``: (the matching part, the rest), each a group or None."""
    return _split(group, _matcher(condition), True)


@method(BaseExceptionGroup, "subgroup")
def subgroup(group: BaseExceptionGroup, condition: Any, /) -> Any:
    """``group.subgroup(condition)``: the matching part of ``group``, or None."""
    return _split(group, _matcher(condition), False)[0]


@method(BaseExceptionGroup, "derive")
def derive(group: BaseExceptionGroup, excs: Any, /) -> BaseExceptionGroup:
    """``group.derive(excs)``: a new group with ``group``'s message (of the kind ``BaseExceptionGroup``
    picks for ``excs``), and nothing else of ``group``'s."""
    return BaseExceptionGroup(group.message, excs)
