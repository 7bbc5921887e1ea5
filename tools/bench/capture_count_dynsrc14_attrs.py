"""The ``_attrs`` part of ``capture_count.py --only dynsrc14``: after PyTorch's test/dynamo/test_input_attr_tracking.py,
the shapes not already in ``dynamo_tests_state6``: a Python attribute of an input tensor holding a tensor or a
constant, ``.data`` of an input replaced by another input's of another shape and then compared by size, ``.data``
assigned inside ``torch.vmap`` and ``torch.func.functionalize`` (caught or not), an object's method setting
attributes it reads back; and test_backward_higher_order_ops.py's hook on an input that calls a function through
``trace_wrapped``. Each is written afresh over one tensor.
"""

from __future__ import annotations

import torch
from torch._dynamo._trace_wrapped_higher_order_op import trace_wrapped


def _with_tensor_attr():
    t = torch.ones(2, 2)
    t.extra = torch.full((2, 2), 3.0)
    return (t,)


def c_dynsrc14_input_tensor_attr_tensor(x, t):
    return x.sum() + t * t.extra


c_dynsrc14_input_tensor_attr_tensor.extra_args = _with_tensor_attr


def _with_const_attr():
    t = torch.ones(2, 2)
    t.scale = 4
    return (t,)


def c_dynsrc14_input_tensor_attr_const(x, t):
    return t * t.scale + x.sum(), t.scale


c_dynsrc14_input_tensor_attr_const.extra_args = _with_const_attr


def _two_shapes():
    return (torch.ones(5, 5), torch.full((2, 2), 2.0))


def c_dynsrc14_data_other_shape_then_size(x, a, b):
    a.data = b.data
    if a.size() == b.size():
        return a * b + x.sum()
    return b * b


c_dynsrc14_data_other_shape_then_size.extra_args = _two_shapes


def c_dynsrc14_data_set_under_vmap_caught(x):
    def body(v, w):
        try:
            v.data = w
        except RuntimeError:
            return v + 2
        return v + 1

    return torch.vmap(body)(x.reshape(3, 1).expand(3, 2).clone(), torch.zeros(3, 2))


def c_dynsrc14_data_set_under_functionalize(x):
    def body(v, w):
        v.data = w
        return v + 1

    a = x.clone()
    return torch.func.functionalize(body)(a, torch.zeros(3)), a


class _Setter:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def combine(self):
        self.z = self.a * self.b
        self.w = self.a + self.a
        return self.z * self.w


def c_dynsrc14_method_sets_and_reads_attrs(x):
    obj = _Setter(x, x + 1)
    out = obj.combine()
    return out, obj.z


_SETTER = _Setter(torch.ones(3), torch.full((3,), 2.0))


def c_dynsrc14_global_object_method_sets_attrs(x):
    return _SETTER.combine() + x, _SETTER.w


def _square(g):
    return g * g


def _square_invoke(grad):
    return trace_wrapped(grad, fn=_square)


def c_dynsrc14_hook_through_trace_wrapped(x):
    leaf = x.detach().clone().requires_grad_()
    leaf.register_hook(_square_invoke)
    out = leaf * 3
    return out.detach(), out.requires_grad


def c_dynsrc14_hook_on_input_trace_wrapped(x, leaf):
    leaf.register_hook(_square_invoke)
    return (leaf * x).detach()


c_dynsrc14_hook_on_input_trace_wrapped.extra_args = lambda: (torch.ones(3, requires_grad=True),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
