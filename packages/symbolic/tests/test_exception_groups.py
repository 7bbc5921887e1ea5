"""Exception groups (PEP 654) made while tracing: ``BaseExceptionGroup.__new__``'s checks and its choice of
class (wrong answers before: a group of a BaseException, an empty list or a non-string message was made
without the error, and ``BaseExceptionGroup`` of plain exceptions stayed a ``BaseExceptionGroup``);
``message`` and ``exceptions``; ``split``, ``subgroup`` and ``derive`` traced from their Python versions
(``polyfills/exceptions.py``, checked here against the real methods, as is ``add_note``), all in one graph."""

from __future__ import annotations

import pytest
import torch
from harness import check

from loom_symbolic import polyfills

X = torch.ones(3)


def shape(exc):
    """A group as plain values: its class, message, members' shapes and metadata; a leaf's class and args."""
    if exc is None:
        return None
    if isinstance(exc, BaseExceptionGroup):
        return (type(exc).__name__, exc.message, tuple(shape(sub) for sub in exc.exceptions),
                repr(exc.__cause__), repr(exc.__context__), exc.__suppress_context__, getattr(exc, "__notes__", None))
    return type(exc).__name__, exc.args


def outcome(fn, *args):
    try:
        result = fn(*args)
    except Exception as exc:
        return "raised", type(exc), str(exc)
    return "value", tuple(shape(part) for part in result) if isinstance(result, tuple) else shape(result)


class _Derived(ExceptionGroup):
    def derive(self, excs):
        return _Derived(self.message + "!", excs)


class _BadDerive(ExceptionGroup):
    def derive(self, excs):
        return ValueError("not a group")


def _nested():
    group = ExceptionGroup("g1", [ValueError("V1"), OSError("OS1"),
                                  ExceptionGroup("g2", [OSError("OS2"), ValueError("V2"), TypeError("T")])])
    group.__cause__ = KeyError("cause")
    group.__context__ = IndexError("context")
    group.add_note("note")
    return group


GROUPS = [_nested, lambda: ExceptionGroup("flat", [ValueError(1), ValueError(2)]),
          lambda: BaseExceptionGroup("base", [KeyboardInterrupt(), ValueError(3)]),
          lambda: _Derived("custom", [ValueError(1), TypeError(2)]),
          lambda: _BadDerive("bad", [ValueError(1), TypeError(2)])]
CONDITIONS = [ValueError, (ValueError, TypeError), OSError, KeyError, Exception, BaseExceptionGroup, ExceptionGroup,
              lambda e: isinstance(e, ValueError) and e.args[0] != "V2", lambda e: False, 0, "ValueError"]


@pytest.mark.parametrize("make", GROUPS)
@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize("name", ["split", "subgroup"])
def test_split_and_subgroup_against_the_real_methods(make, condition, name):
    real = outcome(lambda: getattr(make(), name)(condition))
    ours = outcome(lambda: polyfills.method_replacement(BaseExceptionGroup, name)[0](make(), condition))
    assert ours == real


def test_a_whole_match_is_the_same_object_and_derive_keeps_only_the_message():
    group = ExceptionGroup("eg", [ValueError(1)])
    split = polyfills.method_replacement(BaseExceptionGroup, "split")[0]
    derive = polyfills.method_replacement(BaseExceptionGroup, "derive")[0]
    assert split(group, Exception)[0] is group
    assert shape(derive(_nested(), [KeyboardInterrupt()])) == shape(_nested().derive([KeyboardInterrupt()]))


def made_from_base_group(x):
    plain = BaseExceptionGroup("p", [ValueError(1), TypeError(2)])
    base = BaseExceptionGroup("b", [ValueError(1), KeyboardInterrupt()])
    return x + 1, type(plain) is ExceptionGroup, type(base) is BaseExceptionGroup, isinstance(plain, Exception)


def _error_of(make):
    try:
        make()
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, exc.args
    return None


class _Mine(ExceptionGroup):
    pass


def construction_errors(x):
    errors = (_error_of(lambda: ExceptionGroup("eg", [ValueError(1), KeyboardInterrupt()])),
              _error_of(lambda: _Mine("eg", [KeyboardInterrupt()])),
              _error_of(lambda: ExceptionGroup(42, [ValueError()])),
              _error_of(lambda: ExceptionGroup("eg")),
              _error_of(lambda: ExceptionGroup("eg", [])),
              _error_of(lambda: ExceptionGroup("eg", [ValueError(), 42])),
              _error_of(lambda: ExceptionGroup("eg", 5)))
    return x * 2, errors


def fields(x):
    members = [ValueError(1), TypeError(2)]
    group = ExceptionGroup("msg", members)
    members.append(KeyError(3))  # exceptions is the copy construction made
    return x + len(group.exceptions), group.message, group.exceptions[1].args, group.args[0]


def split_and_subgroup(x):
    group = ExceptionGroup("g1", [ValueError("V1"), OSError("OS1"),
                                  ExceptionGroup("g2", [OSError("OS2"), ValueError("V2"), TypeError("T")])])
    match, rest = group.split(ValueError)
    by_predicate = group.subgroup(lambda e: isinstance(e, OSError))
    whole, nothing = group.split(Exception)
    return (x + len(match.exceptions), match.message, [type(e) is OSError for e in rest.exceptions],
            rest.exceptions[1].message, len(by_predicate.exceptions), whole is group, nothing,
            group.subgroup(KeyError), match.__suppress_context__)


def derived_kinds(x):
    group = _Mine("mine", [ValueError(1), TypeError(2)])
    match, _ = group.split(ValueError)
    custom = _Derived("d", [ValueError(1), TypeError(2)])
    part, _ = custom.split(TypeError)
    return x - 1, type(match) is ExceptionGroup, type(group.derive([KeyboardInterrupt()])) is BaseExceptionGroup, \
        type(part) is _Derived, part.message


@pytest.mark.parametrize("fn", [made_from_base_group, construction_errors, fields, split_and_subgroup, derived_kinds])
def test_groups_in_one_graph(fn):
    check(fn, X)


def class_names(x):
    group = ExceptionGroup("eg", [ValueError(1)])
    return x + 1, type(group).__name__, ExceptionGroup.__qualname__, BaseExceptionGroup.__name__


def test_the_names_of_a_builtin_heap_class_are_read_with_a_guard():
    # ExceptionGroup is a heap type (its names can be reassigned): read, and guarded, not a break
    translation = check(class_names, X)
    assert "ExceptionGroup.__name__ == 'ExceptionGroup'" in translation.dump()


@pytest.mark.parametrize("initial", [None, ["a"], ("t",)])
@pytest.mark.parametrize("notes", [("n",), ("n", "m"), (3,), ("n", b"b")])
def test_add_note_against_the_real_method(initial, notes):
    add_note = polyfills.method_replacement(ValueError, "add_note")[0]

    def run(method):
        exc = ValueError("v")
        if initial is not None:
            exc.__notes__ = list(initial) if isinstance(initial, list) else initial
        try:
            for note in notes:
                method(exc, note)
        except TypeError as error:
            return "raised", str(error), getattr(exc, "__notes__", None)
        return "value", exc.__notes__

    assert run(add_note) == run(BaseException.add_note)
