"""The truth of a tensor whose element count is known not to be one (misc9 item 1): eager's ``bool(t)`` raises
``RuntimeError("Boolean value of Tensor with more than one value is ambiguous")`` (``... with no values ...``
for an empty one) without reading a value, so the trace raises it too and a handler around it stays in the
graph. The shape guards keep it right: a one-element tensor compiles again and branches on its value."""

import pytest
import torch
from breaks_harness import compare

import loom


def in_list(x):
    y = x.clone()
    try:
        r = y in [x]
    except RuntimeError as e:
        r = str(e)
    return x + 1, r, x in [x], x in (x, 1)


def if_branch(x):
    try:
        if x:
            return x + 1
        return x - 5
    except RuntimeError as e:
        return x - 1, str(e)


def bool_not_and(x):
    out = []
    for thunk in (lambda: bool(x), lambda: not x, lambda: x and 3, lambda: x or 3, lambda: 1 < x < 3,
                  lambda: [x] == [x.clone()], lambda: [x].index(x.clone()), lambda: [x].count(x.clone())):
        try:
            out.append(thunk())
        except RuntimeError as e:
            out.append(type(e).__name__ + str(e))
    return x * 2, out


def uncaught(x):
    x = x + 1
    if x:
        return x
    return -x


@pytest.mark.parametrize("shape", [(3,), (0,), (2, 0), (2, 3)], ids=str)
@pytest.mark.parametrize("fn", [in_list, if_branch, bool_not_and])
def test_the_runtime_error_is_raised_in_the_graph(fn, shape):
    stats = compare(fn, torch.arange(float(torch.Size(shape).numel())).reshape(shape))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_uncaught_it_leaves_the_compiled_function_as_in_eager():
    compare(uncaught, torch.arange(3.0))
    loom.reset()
    with pytest.raises(RuntimeError, match="with more than one value is ambiguous"):
        loom.compile(uncaught, backend="eager")(torch.arange(3.0))
    with pytest.raises(RuntimeError, match="with no values is ambiguous"):
        loom.compile(uncaught, backend="eager")(torch.ones(0))


@pytest.mark.parametrize("dynamic", [False, True])
def test_a_one_element_tensor_compiles_again_and_branches(dynamic):
    loom.reset()
    compiled = loom.compile(if_branch, backend="eager", dynamic=dynamic)
    for x in (torch.arange(3.0), torch.arange(4.0), torch.ones(1), torch.zeros(1), torch.ones(0)):
        expected, actual = if_branch(x.clone()), compiled(x.clone())
        if isinstance(expected, tuple):
            torch.testing.assert_close(actual[0], expected[0])
            assert actual[1] == expected[1]
        else:
            torch.testing.assert_close(actual, expected)


class _Truthy(torch.Tensor):
    def __bool__(self):
        return True


def test_a_class_with_its_own_bool_is_asked():
    def fn(x):
        try:
            return x + 1, bool(x)
        except RuntimeError:
            return x, "raised"

    x = torch.ones(3).as_subclass(_Truthy)
    loom.reset()
    assert loom.compile(fn, backend="eager")(x)[1] is True
