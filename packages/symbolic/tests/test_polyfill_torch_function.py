"""``polyfills.torch_function`` (what the trace runs for ``torch.Tensor.__torch_function__``) against the real
one, natively, on the same calls: the result, its class, and the results it leaves unwrapped."""

from __future__ import annotations

import pytest
import torch

from loom_symbolic.polyfills.torch_function import tensor_torch_function


class Sub(torch.Tensor):
    pass


class Unrelated(torch.Tensor):
    pass


def _outcome(result):
    if isinstance(result, (tuple, list)):
        return type(result), [_outcome(r) for r in result]
    if isinstance(result, torch.Tensor):
        return type(result), result.as_subclass(torch.Tensor).tolist()
    return type(result), result


CALLS = [
    (torch.Tensor.sin, lambda s: (s,), None),
    (torch.add, lambda s: (s, 2), {"alpha": 3}),
    (torch.Tensor.unbind, lambda s: (s,), None),
    (torch.Tensor.split, lambda s: (s, 1), None),
    (torch.Tensor.dim, lambda s: (s,), None),
    (torch.Tensor.shape.__get__, lambda s: (s,), None),
    (torch.Tensor._base.__get__, lambda s: (s,), None),
]


@pytest.mark.parametrize("func, make_args, kwargs", CALLS)
def test_matches_tensor_torch_function(func, make_args, kwargs):
    base = torch.arange(3.0).requires_grad_()
    s = base.as_subclass(Sub)
    expected = torch.Tensor.__torch_function__.__func__(Sub, func, (Sub,), make_args(s), kwargs)
    actual = tensor_torch_function(Sub, func, (Sub,), make_args(s), kwargs)
    assert _outcome(actual) == _outcome(expected)


def test_declines_types_it_is_no_subclass_of():
    s = torch.arange(3.0).as_subclass(Sub)
    args = (torch.Tensor.sin, (Unrelated,), (s,), None)
    assert tensor_torch_function(Sub, *args) is torch.Tensor.__torch_function__.__func__(Sub, *args) is NotImplemented
