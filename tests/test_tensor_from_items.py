"""``torch.tensor(items)`` over one-element tensors made in the trace (PyTorch's test_unspec ``torch.tensor([a,
a])``, ``torch.tensor([a, b])`` with ``b`` of shape ``(1, 1, 1)``): eager reads each as its number; the graph
stacks them, cast to the dtype ``torch.tensor`` infers (or ``dtype=``), in one graph with eager's values and
dtype. Before, the call ran on fake tensors, whose data is not there: a graph break. A tensor item that
requires grad (eager warns) and one of several elements still break, with eager's answer."""

from __future__ import annotations

import pytest
import torch

import loom


def zero_dim_items(x):
    a = torch.tensor(123)
    b = torch.tensor([[[456]]])
    return torch.tensor([a, a]) + x[:2], torch.tensor([a, b])


def mixed_with_numbers(x):
    s = x.sum()
    i = x.long().max()
    big = torch.tensor(2**54 + 2**30 + 1) + i * 0  # rounded twice (to a double, then float32), as in eager
    return (torch.tensor([s, 2.5, i]), torch.tensor((i, 2, True)), torch.tensor([i, s], dtype=torch.float16),
            torch.tensor([big, s]), torch.tensor([big], dtype=torch.float32))


def int32_and_python_numbers(x):
    i = x.int()[1]
    return torch.tensor([i, True]), torch.tensor([i, 2]), torch.tensor([x.bool()[0], 2.0]), torch.tensor([x.double()[2]])


def new_memory(x):
    a = x.sum()
    t = torch.tensor([a, a * 2])
    a.add_(1)
    return t, a


@pytest.mark.parametrize("fn", [zero_dim_items, mixed_with_numbers, int32_and_python_numbers, new_memory])
def test_tensor_of_tensor_items_is_one_graph(fn):
    x = torch.arange(3.0)
    expected = fn(x.clone())
    loom.reset()
    actual = loom.compile(fn, backend="eager", options={"strict": True})(x.clone())
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape and torch.equal(a, e) and not a.requires_grad
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()


def item_requiring_grad(x):
    w = x.requires_grad_(True).sum()
    return torch.tensor([w, 1.0])


def item_of_two_elements(x):
    return torch.tensor([x[:2], x[1:]])


def narrower_int_dtype(x):
    return torch.tensor([x.long().sum() + 2**40], dtype=torch.int32)  # eager: overflow, a RuntimeError


def float_item_to_int_dtype(x):
    return torch.tensor([x.sum()], dtype=torch.int64)  # eager: TypeError (a float tensor is no index)


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad")
@pytest.mark.parametrize("fn", [item_requiring_grad, item_of_two_elements, narrower_int_dtype, float_item_to_int_dtype])
def test_other_items_still_break_with_eager_s_answer(fn):
    def outcome(f):
        try:
            return f(torch.arange(3.0)), None
        except Exception as exc:
            return None, type(exc)

    expected = outcome(fn)
    loom.reset()
    actual = outcome(loom.compile(fn, backend="eager", options={"strict": True}))
    assert actual[1] == expected[1]
    if expected[0] is not None:
        assert torch.equal(actual[0], expected[0])
    assert loom.stats()["graph_breaks"] >= 1
