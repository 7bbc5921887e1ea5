"""Part of ``capture_count_repros11``: classmethod properties on an IntEnum, ``.data`` swaps, out= into
views, foreach ops called with ``self=``, and ``torch.compile`` reached from the traced frame (called, a
decorator, a global wrapper, a module list's truth), after PyTorch's test/dynamo/_repros_part1/2/3.py.
"""

from __future__ import annotations

import enum

import torch
from capture_count_repros11 import _gn, _Padding
from torch import nn


# -- batch two: classmethod properties, .data swaps, out= views, foreach keywords, compile in frame ----------
class _Box(enum.IntEnum):
    _X = 0
    _Y = 1
    _HEADING = 2

    @classmethod
    def size(cls):
        return 3

    @classmethod
    @property
    def POINT(cls):
        return slice(cls._X, cls._Y + 1)

    @classmethod
    @property
    def HEADING(cls):
        return cls._HEADING


def c_repros11_intenum_classmethod_property_slices(x):
    states = x.reshape(1, 3).repeat(2, 1) + torch.zeros(2, _Box.size())
    states[..., _Box.POINT] = states[..., _Box.POINT].tanh() * 4
    states[..., _Box.HEADING] = states[..., _Box.HEADING] * 2
    return states


def c_repros11_data_assigned_other_dtype(x):
    a = torch.zeros(0)
    b = x + 1
    z = a
    a.data = b.to(dtype=torch.bfloat16)
    return a, a.dtype, a is z, b


def c_repros11_data_swapped_then_emptied(x):
    a = torch.ones(3)
    b = x * 2
    a.data = b
    b.data = torch.zeros(0)
    return a + 1, b.shape


class _InitMutates:
    def __init__(self, box):
        box[0] += 1

    def __enter__(self):
        return 1

    def __exit__(self, *exc):
        return False


def c_repros11_ctx_manager_made_init_mutates_list(x):
    box = [5]
    _InitMutates(box)
    _InitMutates(box)
    return x * box[0], box


def c_repros11_out_into_transposed_view(x):
    y = torch.arange(4.0).reshape(2, 2)
    src = (x[:2] - 1).reshape(1, 2).repeat(2, 1)
    torch.abs(src, out=y.T)
    return y, y.is_contiguous()


def c_repros11_index_select_after_permute(x):
    t = (torch.arange(36.0).reshape(2, 3, 6) + x.sum()).permute(1, 2, 0).unsqueeze(2)
    out = torch.index_select(t, 0, torch.tensor([0]))
    return out, out.is_contiguous(), out.stride()


def c_repros11_roll_then_as_strided_channels_last(x):
    t = torch.arange(100.0).reshape(2, 5, 2, 5).to(memory_format=torch.channels_last) + x[0]
    t = torch.roll(t, shifts=-1, dims=0)
    return torch.as_strided(t, (5, 10), (4, 1), 0)


def c_repros11_foreach_with_self_keyword(x):
    powed = torch._foreach_pow(self=[x + 1, x * 2], exponent=2.0)
    targets = [torch.ones(3), x.clone()]
    torch._foreach_lerp_(self=targets, tensors1=[x, x], weights=[torch.full((3,), 0.5)] * 2)
    return powed, targets


def c_repros11_embedding_dense_backward_op(x):
    grad = torch.ones(2, 4, 3) * x
    idx = torch.tensor([[0, 1, 1, 3], [2, 1, 0, 0]])
    return torch.ops.aten.embedding_dense_backward(grad, idx, 5, 1, True)


def c_repros11_copy_into_strided_window_then_transpose(x):
    b = torch.zeros(6, 2, 8, 9)
    a = torch.arange(6 * 7 * 7, dtype=torch.float32).reshape(6, 7, 7) + x[1]
    b[:, 0, 1:8, 1:8] = a
    c = b.view(2, 3, 16, 9)
    d = c.transpose(2, 1)
    d.add_(1)
    return d.sum(), d.shape, d.stride()


def c_repros11_torch_compile_of_builtin_in_frame(x):
    return torch.compile(torch.sin, backend="eager")(x) + 1


_MADE_BEFORE = torch.compile(_gn, backend="eager")


def c_repros11_torch_compiled_global_called(x):
    return _MADE_BEFORE(x, 3) + _MADE_BEFORE(x)


def c_repros11_torch_compile_decorator_in_frame(x):
    @torch.compile(backend="eager", fullgraph=True)
    def inner(y, k=2):
        return y.cos() * k

    return inner(x) + inner(x, k=3)


def c_repros11_compiled_module_list_truthiness(x):
    empty = torch.compile(nn.ModuleList(), backend="eager")
    return x + (1 if empty else 2), bool(_COMPILED_LIST)


_COMPILED_LIST = torch.compile(nn.ModuleList([nn.ReLU()]), backend="eager")


def c_repros11_size_made_and_checked(x):
    s = torch.Size([1, 2, 3])
    assert isinstance(s, torch.Size)
    t = torch.arange(0, 10)
    shapes = [t[None, None].shape, t[1, None].shape]
    return x.reshape(s[2]) + len(shapes[0]), s, shapes


def c_repros11_enum_keyed_input_dict_module(x):
    d = {_Padding.LONGEST: x.reshape(3, 1)}
    return _LIN1(d[_Padding.LONGEST])


torch.manual_seed(1)
_LIN1 = nn.Linear(1, 2)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
