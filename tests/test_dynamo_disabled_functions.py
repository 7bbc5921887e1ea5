"""Functions wrapped by ``torch._dynamo.disable`` / ``torch.compiler.disable`` as the traced code meets them:
the wrapper made inside the frame (a decorator on a nested function, a call on a lambda, ``disable(recursive=
False)`` as a decorator) is a value whose call is one graph break, where it is made for real and runs natively;
before, the trace went into ``disable`` itself and broke on torch's backend cache as well. A wrapper made
outside reads its metadata (``__name__``, ``__wrapped__``, ``_torchdynamo_orig_callable``) as any function
does; before, any attribute of it was a graph break."""

import functools

import torch

import loom


def _compiled(fn, *args):
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    return result, loom.stats()


def _check(fn, *args, graphs, breaks):
    expected = fn(*args)
    result, stats = _compiled(fn, *args)
    torch.testing.assert_close(result, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
    return result


def disable_lambda_in_frame(x):
    y = torch._dynamo.disable(lambda t: t * 2)(x + 1)
    return y + 1


def compiler_disable_decorator_in_frame(x):
    @torch.compiler.disable(recursive=False)
    def inner(t):
        return t.cos() * 3

    return inner(x.sin()) - 1


def disable_torch_function_and_partial_in_frame(x):
    sin = torch._dynamo.disable(torch.sin)
    add = torch.compiler.disable(functools.partial(torch.add, alpha=2))
    return sin(x) + 1, add(x, x)


def disabled_wrapper_returned(x):
    k = 4
    wrapped = torch._dynamo.disable(lambda t: t * k)
    return x + 1, wrapped


def test_disable_called_in_the_frame_breaks_once_at_the_call():
    _check(disable_lambda_in_frame, torch.arange(3.0), graphs=2, breaks=1)
    _check(compiler_disable_decorator_in_frame, torch.arange(3.0), graphs=2, breaks=1)
    _check(disable_torch_function_and_partial_in_frame, torch.arange(3.0), graphs=1, breaks=2)


def test_disabled_wrapper_made_in_the_frame_is_rebuilt_as_torch_makes_it():
    (y, wrapped), stats = _compiled(disabled_wrapper_returned, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    torch.testing.assert_close(y, torch.arange(3.0) + 1)
    assert wrapped(torch.ones(2)).tolist() == [4.0, 4.0]
    assert wrapped._torchdynamo_orig_callable(2) == 8


@torch._dynamo.disable
def _disabled_scale(t):
    """Scales by 3."""
    return t * 3


@functools.wraps(_disabled_scale)
def _wraps_disabled(t):
    return _disabled_scale(t) + 1


def disabled_metadata(x):
    return x + 1, hasattr(_disabled_scale, "_torchdynamo_orig_callable"), _disabled_scale.__name__, \
        _disabled_scale.__doc__, _wraps_disabled.__wrapped__ is _disabled_scale


def test_attributes_of_a_disabled_function_are_read_in_the_trace():
    result, stats = _compiled(disabled_metadata, torch.arange(3.0))
    assert result[1:] == (True, "_disabled_scale", "Scales by 3.", True)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
