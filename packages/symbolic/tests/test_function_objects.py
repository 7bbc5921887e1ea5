"""Attributes of function objects while tracing (issue 29): ``fn.__class__.__name__`` (torchvision's
``_log_api_usage_once``), the names, ``__doc__``, ``__dict__`` and ``__wrapped__`` of functions from
outside and of functions made in the trace, ``functools.wraps`` and ``@contextlib.contextmanager`` run
inside the compiled code: captured in one graph, and a function made in the trace keeps what was set on
it when it leaves the graph."""

import contextlib
import functools

import pytest
import torch
from harness import CaseRegistry, assert_same, check, run_rewritten

from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


def helper(a):
    """The helper's docstring."""
    return a * 3


helper.tag = 4


@case(X)
def class_name_of_a_function(x):
    return x + 1, helper.__class__.__name__, type(helper).__name__


class Scaler:
    def scale(self, a):
        return a * 2


SCALER = Scaler()


@case(X)
def class_of_a_method_and_a_function_made_here(x):
    def inner(a):
        return a

    return SCALER.scale(x), inner.__class__.__name__, SCALER.scale.__class__.__name__


@case(X)
def names_and_doc_of_a_function(x):
    return x + helper.__dict__["tag"], helper.__name__, helper.__qualname__, helper.__module__, helper.__doc__


@case(X)
def names_and_doc_of_a_function_made_here(x):
    def inner(a):
        """Inner's docstring."""
        return a

    def bare(a):
        return "not a docstring"

    return x + 1, inner.__name__, inner.__qualname__, inner.__module__, inner.__doc__, bare.__doc__, \
        (lambda: 1).__name__, (lambda: 1).__doc__


@case(X)
def attributes_set_on_a_function_made_here(x):
    def inner(a):
        return a

    inner.tag = 5
    inner.__dict__["more"] = 6
    return x + inner.tag + inner.more, inner.__dict__["tag"], sorted(inner.__dict__), hasattr(inner, "missing")


@case(X)
def functools_wraps_inside(x):
    @functools.wraps(helper)
    def wrapper(a):
        return helper(a) + 1

    return (wrapper(x), wrapper.__name__, wrapper.__qualname__, wrapper.__doc__, wrapper.__module__,
            wrapper.__wrapped__ is helper, wrapper.tag, wrapper.__dict__["__wrapped__"] is helper)


@case(X)
def a_decorator_made_inside(x):
    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args) * 2

        return wrapper

    @logged
    def scaled(a):
        """Scales."""
        return a + 1

    return scaled(x), scaled.__name__, scaled.__doc__, scaled.__wrapped__.__name__


@case(X)
def contextmanager_defined_inside(x):
    @contextlib.contextmanager
    def shifted(amount):
        yield amount * 2

    with shifted(3) as value:
        out = x + value
    return out, shifted.__name__


def test_a_missing_attribute_raises_as_in_eager():
    def fn(x):
        def inner(a):
            return a

        try:
            inner.missing
        except AttributeError:
            return x + 1, "missing"

    check(fn, X, graphs=1)


def _made_and_returned(x):
    @functools.wraps(helper)
    def wrapper(a):
        return helper(a)

    wrapper.extra = x.shape[0]
    return x + 1, wrapper


def test_a_function_made_here_keeps_its_attributes_when_rebuilt():
    translation = translate_function(_made_and_returned, X)
    assert not translation.breaks, translation.dump()
    _, wrapper = run_rewritten(_made_and_returned, translation, (X,), {})
    _, expected = _made_and_returned(X)
    for name in ("__name__", "__qualname__", "__doc__", "__module__", "__wrapped__", "tag", "extra"):
        assert getattr(wrapper, name) == getattr(expected, name), name
    assert wrapper.__dict__ == expected.__dict__
    torch.testing.assert_close(wrapper(X), expected(X))


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_function_objects_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def closure_cells_read(x):
    k = 4
    t = x * 2

    def inner(v):
        return v + k + t

    cells = inner.__closure__
    code = inner.__code__
    return inner(x) + cells[0].cell_contents + cells[1].cell_contents, len(cells), (lambda: 0).__closure__, \
        code.co_freevars, code.co_name, code is inner.__code__


def test_closure_cells_of_a_made_function_are_read():
    """``fn.__closure__`` of a function made in the trace, its cells' ``cell_contents``, and its ``__code__``
    (test_funcattrs; a graph break before)."""
    check(closure_cells_read, torch.arange(3.0))


def defaults_assigned(x):
    def f(t, k=1, *, m=2):
        return t * k + m

    before = f(x)
    f.__defaults__ = (5,)
    middle = f(x)
    f.__defaults__ = None
    try:
        f(x)
    except TypeError:
        middle = middle + 100
    f.__defaults__ = (3,)
    return before + middle, f, f.__defaults__


def test_defaults_assigned_to_a_made_function():
    """``fn.__defaults__ = ...`` on a function made in the trace: later calls use them, and the function
    leaves the graph with them (a graph break before)."""
    x = torch.arange(3.0)
    translation = translate_function(defaults_assigned, x)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    out, f, defaults = run_rewritten(defaults_assigned, translation, (x,), {})
    expected, g, expected_defaults = defaults_assigned(x)
    assert torch.equal(out, expected) and defaults == expected_defaults == f.__defaults__
    assert f.__kwdefaults__ == g.__kwdefaults__ and torch.equal(f(x), g(x))


def kwdefaults_assigned_then_changed(x):
    def f(t, *, m=0):
        return t + m

    d = {"m": 2}
    f.__kwdefaults__ = d
    d["m"] = 7  # the function holds this very dict
    return f(x)


def test_kwdefaults_assignment_keeps_the_dict_itself():
    x = torch.arange(3.0)
    translation = translate_function(kwdefaults_assigned_then_changed, x)
    assert_same(run_rewritten(kwdefaults_assigned_then_changed, translation, (x,), {}), kwdefaults_assigned_then_changed(x))
