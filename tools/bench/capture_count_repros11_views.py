"""Part of ``capture_count_repros11``: inputs that are views of one buffer mutated through a list, numpy
values made in the frame, typenames of typing objects and nested calls that leave nothing to compute, after
PyTorch's test/dynamo/_repros_part2/3.py.
"""

from __future__ import annotations

import typing

import numpy as np
import torch


def c_repros11_list_of_strided_views_one_mutated(x, views):
    views[0].relu_()
    views[1].mul_(x[0] + 2)
    return torch.cat(views).sum(), views[2]


def _strided_views():
    src = torch.linspace(-1.0, 1.0, 16 * 5)
    return ([src.as_strided((4, 4), (4, 1), 3 + 16 * i) for i in range(4)],)


c_repros11_list_of_strided_views_one_mutated.extra_args = _strided_views


def c_repros11_numpy_made_by_argument_kind(x):
    outs = []
    for arg in (None, 3, "s"):
        if arg is None:
            a = np.ones(3)
        elif isinstance(arg, int):
            a = np.ones(6)
        else:
            a = np.ones(9)
        outs.append(a ** 2)
    return x + len(outs[1]), [o.shape for o in outs]


def c_repros11_typename_of_typing_objects(x):
    names = (torch.typename(typing.Any), torch.typename(x), torch.typename(3), torch.typename(typing.Sequence))
    return x + len(names[0]), names


def _k(t):
    return t


def _g(t):
    return _k(t)


def c_repros11_nested_identity_calls(x):
    return _g(x), _g(_k(x)) is x


def c_repros11_view_of_input_mutated_then_read_via_base(x):
    base = x.clone()
    v = base[1:]
    v.add_(10)
    w = base.view(3, 1)
    w[0, 0] = -1.0
    return base, v, w.squeeze(1)


def c_repros11_empty_out_resized_from_size_argument(x):
    outs = []
    for size in ((2, 3), (3, 4)):
        out = torch.empty(0)
        torch.ones(size, out=out)
        outs.append(out.sum())
    return x + outs[0] + outs[1]



def _rec(t, n):
    if n == 0:
        return t
    return _rec(t, n - 1) + 1


def c_repros11_recursion_sixty_deep(x):
    return _rec(x, 60)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
