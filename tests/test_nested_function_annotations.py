"""Annotations of a function made while tracing (issue 29, Paddle's SOT make-function tests): MAKE_FUNCTION
(3.13: SET_FUNCTION_ATTRIBUTE) hands them over; ``fn.__annotations__`` reads them in the trace, and the
function rebuilt after the graph carries them (before, it was rebuilt without: an empty dict, a KeyError).
``fn.__defaults__`` reads the defaults the calls use."""

import torch
from breaks_harness import compare


def annotations_read(x):
    def f(a: int, b: "torch.Tensor" = None, *, c: float = 1.0) -> float:
        return a

    return x + f(1), f.__annotations__["a"] is int, dict(f.__annotations__), f.__defaults__


def annotations_of_escaping_function(x):
    def f(a: int) -> int:
        return a

    return x * 2, f


def no_annotations(x):
    def f(a, b=2):
        return a + b

    g = lambda t: t
    return f(x), f.__annotations__, g.__annotations__, g.__defaults__


def test_annotations_are_read_in_the_graph():
    for fn in (annotations_read, no_annotations):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)


def test_the_rebuilt_function_carries_its_annotations():
    import loom

    loom.reset()
    _, made = loom.compile(annotations_of_escaping_function, backend="eager")(torch.arange(3.0))
    assert made.__annotations__ == {"a": int, "return": int}
    assert made(5) == 5
