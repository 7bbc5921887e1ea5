"""Functions with closures in portable guards: a decorated function reached by name is kept with what its
cells hold, and a function no name reaches (the one a decorator wraps) is rebuilt from the frame."""

from __future__ import annotations

import json
import textwrap

import pytest

from loom_guards import Attr, Closure, Global, Identity, Item, Local, compile, from_records, to_records
from loom_guards.portable_objects import unnamed_function_facts

from .portable_helpers import write_subject

DECORATED = textwrap.dedent(
    """
    import functools


    def scaled(factor):
        def decorate(fn):
            @functools.wraps(fn)
            def wrapped(x):
                if x is None:  # keeps the wrapper in its own closure, as transformers' wrappers are
                    return wrapped(x)
                return fn(x) * factor

            return wrapped

        return decorate


    @scaled(2.0)
    def double_plus_one(x):
        return x + 1
    """
)


@pytest.fixture
def subject(tmp_path):
    return write_subject(tmp_path, DECORATED)


class _Frame:
    def __init__(self, f_locals=None, f_globals=None):
        self.f_locals = f_locals or {}
        self.f_globals = f_globals or {}
        self.f_builtins = {}
        self.closure = None


def _records(guards):
    records, why = to_records(guards)
    assert why is None, why
    return json.loads(json.dumps(records))


def test_a_decorated_function_is_kept_with_its_cells(subject):
    fn = subject.double_plus_one
    records = _records([Identity(Local("f"), fn)])
    closure = records[0]["obj"]["closure"]
    kinds = sorted(cell["t"] for cell in closure)
    # the wrapped function (no name reaches it), the float, and the wrapper itself (a reference, not a loop)
    assert kinds == ["enclosing_function", "float", "inner_function"]
    rebuilt, why = from_records(records)
    assert why is None and rebuilt[0].obj is fn
    assert compile(rebuilt)(_Frame({"f": fn})) and not compile(rebuilt)(_Frame({"f": len}))


def test_other_cell_contents_refuse_the_rebuild(subject):
    fn = subject.double_plus_one
    records = _records([Identity(Local("f"), fn)])
    factor = next(cell for name, cell in zip(fn.__code__.co_freevars, fn.__closure__) if name == "factor")
    factor.cell_contents = 3.0  # the same name and code, another value captured
    try:
        rebuilt, why = from_records(records)
    finally:
        factor.cell_contents = 2.0
    assert rebuilt is None and "other code" not in why and "double_plus_one" in why


def test_other_code_in_the_wrapped_function_refuses_the_rebuild(subject):
    fn = subject.double_plus_one
    records = _records([Identity(Local("f"), fn)])
    inner_cell = next(cell for name, cell in zip(fn.__code__.co_freevars, fn.__closure__) if name == "fn")
    original = inner_cell.cell_contents
    inner_cell.cell_contents = lambda x: x - 1
    try:
        rebuilt, _ = from_records(records)
    finally:
        inner_cell.cell_contents = original
    assert rebuilt is None


def test_a_function_no_name_reaches_is_rebuilt_from_the_frame(subject):
    fn = subject.double_plus_one
    index = fn.__code__.co_freevars.index("fn")
    source = Attr(Item(Attr(Global("double_plus_one"), "__closure__"), index), "cell_contents")
    inner = fn.__closure__[index].cell_contents
    guard = Identity(source, inner)
    records = _records([guard])
    assert records[0]["function"] == unnamed_function_facts(inner)
    frame = _Frame(f_globals=vars(subject))
    rebuilt, why = from_records(records, frame=frame)
    assert why is None and rebuilt[0].obj is inner and compile(rebuilt)(frame)
    assert from_records(records)[0] is None  # no frame to read it from: refused
    other = _Frame(f_globals={**vars(subject), "double_plus_one": subject.scaled(2.0)(lambda x: x - 1)})
    refused, why = from_records(records, frame=other)
    assert refused is None and "other function" in why


def test_a_closure_cell_of_an_unnamed_instance_is_refused(subject):
    def make():
        box = object()

        def uses_box():
            return box

        return uses_box

    records, why = to_records([Identity(Closure("f"), make())])
    assert records is None and why


def test_deeply_nested_wrappers_are_refused_not_recursed(subject):
    fn = subject.double_plus_one
    for _ in range(30):
        fn = subject.scaled(1.0)(fn)
    subject.deep = fn
    fn.__qualname__ = "deep"
    records, why = to_records([Identity(Local("f"), fn)])
    assert records is None and "nested more than" in why
