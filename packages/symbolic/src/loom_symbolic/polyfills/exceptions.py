"""The methods of ``BaseExceptionGroup`` written in C (``split``, ``subgroup``, ``derive``), and
``BaseException.add_note``, in Python.

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


@method(BaseException, "add_note")
def add_note(exc: BaseException, note: Any, /) -> None:
    """``exc.add_note(note)``: appended to ``__notes__``, made a new list where there is none."""
    if not isinstance(note, str):
        raise TypeError(f"note must be a str, not '{type(note).__name__}'")
    try:
        notes = exc.__notes__
    except AttributeError:
        notes = []
        exc.__notes__ = notes
    else:
        if not isinstance(notes, list):
            raise TypeError("Cannot add note: __notes__ is not a list")
    notes.append(note)


def _leaves_into(exc: BaseException, leaves: list) -> None:
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            _leaves_into(sub, leaves)
    else:
        leaves.append(exc)


def _projection(orig: BaseExceptionGroup, kept: list) -> Any:
    """The part of ``orig`` whose leaves are (the same objects as) leaves of ``kept``, or None: CPython's
    ``exception_group_projection``, which matches leaves by identity and never a group as a whole."""
    leaves: list = []
    for exc in kept:
        _leaves_into(exc, leaves)

    def is_kept(exc: BaseException) -> bool:
        for leaf in leaves:
            if exc is leaf:
                return True
        return False

    return _split(orig, is_kept, False)[0]


def prep_reraise_star(orig: BaseException, excs: list, same_metadata: tuple) -> Any:
    """What a ``try``/``except*`` raises once its clauses ran (CPython's ``_PyExc_PrepReraiseStar``):
    ``excs`` holds what each clause raised (None for none) and the unmatched rest; ``same_metadata``
    says which of them carry ``orig``'s traceback, cause, context and notes (re-raised, not raised anew).
    The re-raised become the part of ``orig`` they cover; raised ones join it in a new group."""
    if not excs:
        return None
    if not isinstance(orig, BaseExceptionGroup):
        return excs[0]  # a naked exception was wrapped: one clause at most ran
    raised, reraised = [], []
    for exc, same in zip(excs, same_metadata):
        if exc is None:
            continue
        if same:
            reraised.append(exc)
        else:
            raised.append(exc)
    reraised_group = _projection(orig, reraised)
    if not raised:
        return reraised_group
    if reraised_group is not None:
        raised.append(reraised_group)
    return BaseExceptionGroup("", raised) if len(raised) > 1 else raised[0]
