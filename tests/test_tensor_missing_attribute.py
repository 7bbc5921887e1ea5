"""A missing attribute of a tensor, caught: the AttributeError the trace makes is Python's own (message,
``args``, ``name``, ``obj``), so handlers that read it stay in the graph."""

from __future__ import annotations

import torch

import loom


def compiled(fn, *args):
    """Eager's result and loom's, and loom's (graphs, breaks)."""
    expected = fn(*args)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(*args)
    stats = loom.stats()
    return expected, actual, (stats["graphs"], stats["graph_breaks"])


def test_the_message_and_args_are_eagers():
    def fn(x):
        try:
            x.foo
        except AttributeError as e:
            return x + 1, str(e), e.args, repr(e)
        return x, "", (), ""

    x = torch.ones(3)
    expected, actual, counts = compiled(fn, x)
    assert expected[1] == "'Tensor' object has no attribute 'foo'"
    assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
    assert counts == (1, 0)


def test_name_and_obj_are_eagers():
    def fn(x):
        y = x * 2
        try:
            return y.missing + 1
        except AttributeError as e:
            return e.obj is y, e.name, e.obj - 1

    expected, actual, counts = compiled(fn, torch.ones(3))
    assert actual[:2] == expected[:2] == (True, "missing")
    assert torch.equal(actual[2], expected[2])
    assert counts == (1, 0)


def test_a_parameter_is_named_as_its_class():
    def fn(p, x):
        try:
            p.foo
        except AttributeError as e:
            return x + 1, str(e)
        return x, ""

    p = torch.nn.Parameter(torch.ones(2))
    expected, actual, counts = compiled(fn, p, torch.ones(2))
    assert actual[1] == expected[1] == "'Parameter' object has no attribute 'foo'"
    assert counts == (1, 0)


def test_the_exception_escaping_keeps_name_and_obj():
    def fn(x):
        try:
            x.foo
        except AttributeError as e:
            return x + 1, e
        return x, None

    x = torch.ones(2)
    _, (_, eager), _ = compiled(fn, x)
    loom.reset()
    _, error = loom.compile(fn, backend="eager")(x)
    assert type(error) is AttributeError and error.args == eager.args
    assert error.name == "foo" and error.obj is x


def test_a_class_with_its_own_getattr_stays_unknown():
    class Lenient(torch.Tensor):
        def __getattr__(self, name):
            raise AttributeError(f"no {name} here")

    def fn(x):
        try:
            x.foo
        except AttributeError as e:
            return str(e)
        return ""

    x = torch.ones(2).as_subclass(Lenient)
    loom.reset()
    assert loom.compile(fn, backend="eager")(x) == fn(x) == "no foo here"
