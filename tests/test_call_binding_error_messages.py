"""The TypeError of a call that cannot bind its arguments, caught in the compiled frame
(``variables/arguments.py``).

Before, its message was unknown to the trace (the translator's own wording is not always CPython's:
"takes from 1 to 2 positional arguments", "missing 2 required positional arguments: 'a' and 'b'"), so
``str(e)`` in a handler was a graph break. Now the message is CPython's own, taken from a stand-in function with
the same parameters and the called function's ``__qualname__`` (``functools.wraps``'s included), so the handler
runs in the graph.
"""

import contextlib
import functools
import io

import pytest
import torch

import loom


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _module_level(a, b=1, *, k):
    return a + b + k


def _positional_only(a, /, b, *rest, **extra):
    return a + b


class _Holder:
    def method(self, a, b=2):
        return a + b


def _wrapped_target(a, b):
    return a * b


@functools.wraps(_wrapped_target)
def _wrapper(a, b):
    return _wrapped_target(a, b)


def _nested_calls():
    def inner(a, *, k=1):
        return a + k

    return [lambda: inner(1, 2), lambda: inner(1, z=3), lambda: inner()]


_CALLS = {
    "too_many": lambda: _module_level(1, 2, 3),
    "missing_keyword_only": lambda: _module_level(1),
    "unexpected_keyword": lambda: _module_level(1, k=2, z=3),
    "multiple_values": lambda: _module_level(1, a=2, k=3),
    "missing_two": lambda: _positional_only(),
    "positional_only_by_keyword": lambda: _positional_only(a=1, b=2),
    "method": lambda: _Holder().method(1, 2, 3),
    "wrapped_qualname": lambda: _wrapper(1),
}


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_binding_error_message_is_cpythons_and_in_graph(name):
    call = _CALLS[name]

    def program(x):
        try:
            call()
            return x, "no error"
        except TypeError as e:
            return x + 1, str(e)

    x = torch.randn(3)
    want = program(x)
    report = _explain(program, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(program, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]


def _nested_program(x):
    messages = []
    for call in _nested_calls():
        try:
            call()
        except TypeError as e:
            messages.append(str(e))
    return x * len(messages), messages


def test_functions_made_in_frame_use_their_qualname():
    x = torch.randn(3)
    want = _nested_program(x)
    assert "_nested_calls.<locals>.inner()" in want[1][0]
    report = _explain(_nested_program, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_nested_program, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]
