"""``torch._C._group_tensors_by_device_and_dtype``, answered while tracing (variables/foreach_groups.py).

It returns a dict, which no graph op can: ``clip_grad_norm_``, ``clip_grad_value_`` and ``get_total_norm``
broke the graph there ("an op returning dict"). The grouping reads only devices and dtypes, so the trace
now computes it, with eager's keys in eager's order and the program's own tensors in the lists."""

import pytest
import torch

import loom

_GROUP = torch._C._group_tensors_by_device_and_dtype


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def group_mixed(x, a, b, c, d, with_indices):
    groups = _GROUP([[a * 1, b, c, d], [None, b, None, d]], with_indices)
    return x + 1, [(key, lists, indices) for key, (lists, indices) in groups.items()]


def _tensors():
    return (torch.ones(2), torch.ones(2, dtype=torch.float64), torch.ones(1, dtype=torch.float16),
            torch.arange(3.0))


@pytest.mark.parametrize("with_indices", [True, False])
def test_grouping_matches_eager_keys_order_and_members(with_indices):
    x = torch.arange(3.0)
    a, b, c, d = _tensors()
    _, expected = group_mixed(x, a, b, c, d, with_indices)
    out, actual = _compiled(group_mixed)(x, a, b, c, d, with_indices)
    assert _counts() == (1, 0)
    torch.testing.assert_close(out, x + 1)
    assert [key for key, _, _ in actual] == [key for key, _, _ in expected]  # the C++ map's order
    for (_, lists, indices), (_, want, want_indices) in zip(actual, expected):
        assert indices == want_indices
        for got, exp in zip(lists, want):
            assert [type(t) for t in got] == [type(t) for t in exp]
            for g, e in zip(got, exp):
                if e is not None:
                    torch.testing.assert_close(g, e)
    float64 = dict((key, lists) for key, lists, _ in actual)[(torch.device("cpu"), torch.float64)]
    assert float64[0][0] is b and float64[1][0] is b  # the program's own tensors, not copies


def clip_then_scale(x, w):
    norm = torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    torch.nn.utils.clip_grad_value_([w], clip_value=0.1)
    return norm * x, w.grad * 2


def _with_grad():
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
    w.grad = torch.tensor([3.0, -4.0, 12.0])
    return w


def test_clip_grad_norm_and_value_in_one_graph():
    x = torch.arange(3.0)
    w_eager, w = _with_grad(), _with_grad()
    expected = clip_then_scale(x, w_eager)
    actual = _compiled(clip_then_scale)(x, w)
    assert _counts() == (1, 0)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a, e)
    torch.testing.assert_close(w.grad, w_eager.grad)


def group_with_none_first(x, a):
    return x + 1, _GROUP([[None, a]], False)


def test_none_in_the_first_list_raises_as_eager():
    with pytest.raises(RuntimeError, match="supposed to be defined"):
        group_with_none_first(torch.arange(3.0), torch.ones(2))
    with pytest.raises(RuntimeError, match="supposed to be defined"):
        _compiled(group_with_none_first)(torch.arange(3.0), torch.ones(2))
