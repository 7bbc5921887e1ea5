"""The ``_hops`` part of ``capture_count.py --only dynsrc14``: after PyTorch's test/dynamo/test_base_hop.py (a
user subclass of ``torch._higher_order_ops.BaseHOP`` called on a function with tensors, a pytree of tensors, None
and a Python int, and a keyword the subclass passes on) and the rest of test_skip_non_tensor.py (a break under
``try``/``finally`` that a condition decides, a global flag, a tensor's shape, ``len`` and ``requires_grad``
deciding it, a break in a nested call, a list that holds itself, a list subclass whose ``__iter__``/``__len__``
raise). Results never depend on ``torch.compiler.is_compiling()``. Each is written afresh over one tensor.
"""

from __future__ import annotations

import torch
from torch._higher_order_ops import BaseHOP


class _QuantHop(BaseHOP):
    def __init__(self):
        super().__init__("dynsrc14_quant_hop")

    def __call__(self, subgraph, *operands, scheme):
        return super().__call__(subgraph, *operands, scheme=scheme)


_quant = _QuantHop()


def _mm_sin_cos(a, b):
    return (a @ b).sin().cos()


# eager calls of a BaseHOP need an FX graph as the subgraph (torch.compile also takes a plain function)
_MM_SIN_COS = torch.fx.symbolic_trace(_mm_sin_cos)


def c_dynsrc14_base_hop_single_output(x):
    m = x.reshape(3, 1) * x.reshape(1, 3) + 1
    return _quant(_MM_SIN_COS, m, m.t(), scheme="nf4")


def _three_outputs(a, b):
    return (a @ b).sin(), a + b, a - b


_THREE = torch.fx.symbolic_trace(_three_outputs)


def c_dynsrc14_base_hop_several_outputs(x):
    m = x.reshape(3, 1) * x.reshape(1, 3) + 1
    first, second, third = _quant(_THREE, m, m * 2, scheme="nf4")
    return first + second, third


def _plus(a, b):
    return a + b


_PLUS = torch.fx.symbolic_trace(_plus)


def c_dynsrc14_base_hop_int_operand(x):
    return _quant(_PLUS, 1, x, scheme="int8")


def c_dynsrc14_base_hop_twice_other_scheme(x):
    y = _quant(_PLUS, x, x, scheme="int8")[0]
    return _quant(_PLUS, y, x, scheme="fp8")


def _break_when(x, n):
    if n == 0:
        try:
            torch._dynamo.graph_break()
        finally:
            pass
    return x + 1


def c_dynsrc14_condition_decides_break(x):
    return _break_when(x, 1) + _break_when(x, 0)


_skip_flag = False


def c_dynsrc14_global_flag_decides_break(x):
    if _skip_flag:
        try:
            torch._dynamo.graph_break()
        finally:
            pass
    return x - 1


def c_dynsrc14_shape_len_grad_decide_break(x):
    out = x
    if x.shape[0] == 4 or len(x) == 4:
        try:
            torch._dynamo.graph_break()
        finally:
            pass
    if x.requires_grad or x.is_complex():
        out = out * 0
    return out + 1


def _inner_break(x):
    torch._dynamo.graph_break()
    return x + 1


def c_dynsrc14_nested_break_counted_once(x):
    return _inner_break(x + 1) + 1


def c_dynsrc14_self_holding_list(x, lst):
    return x + len(lst), lst[0] is lst


def _self_holding():
    lst = []
    lst.append(lst)
    return (lst,)


c_dynsrc14_self_holding_list.extra_args = _self_holding


class _Refusing(list):
    def __iter__(self):
        raise RuntimeError("no iteration")

    def __len__(self):
        raise RuntimeError("no len")


def c_dynsrc14_list_subclass_refusing_iter(x, lst):
    return lst[0] + lst[1] * x


def _refusing():
    lst = _Refusing()
    list.append(lst, torch.ones(3))
    list.append(lst, torch.full((3,), 2.0))
    return (lst,)


c_dynsrc14_list_subclass_refusing_iter.extra_args = _refusing


def c_dynsrc14_reset_free_frame_body(x):
    y = x + 10
    return y + 1, y.shape[0]


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
