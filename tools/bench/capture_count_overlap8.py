"""In-place and ``out=`` writes over memory the op reads, and ``is_fx_tracing()``, for ``capture_count.py --only
overlap8``. Eager raises "unsupported operation: some elements of the input tensor and the written-to tensor refer
to a single memory location" for a partial overlap (or a write to an ``expand()``ed view), or gives the result of
its kernel's order where ATen cannot decide (a non-dense view): loom breaks at each such op, so it runs as the
program runs. Writes without overlap, or over exactly what they read, stay in the graph. Each builds its tensor of
nine (``x.repeat(3)``) from the runner's ``arange(3.0)``.
"""

from __future__ import annotations

import torch
import torch.fx._symbolic_trace


# -- eager raises ------------------------------------------------------------------------------------------
def c_ov8_copy_partial(x):
    y = x.repeat(3)
    y[:3].copy_(y[1:4])
    return y


def c_ov8_add_out_partial(x):
    y = x.repeat(3)
    torch.add(y[:3], 1, out=y[1:4])
    return y


def c_ov8_add_inplace_partial(x):
    y = x.repeat(3)
    y[1:4].add_(y[:3])
    return y


def c_ov8_setitem_partial(x):
    y = x.repeat(3)
    y[1:4] = y[:3]
    return y


def c_ov8_expanded_write(x):
    y = x.repeat(3)[:1].expand(3)
    y.mul_(2)
    return y


def c_ov8_index_select_out_is_input(x):
    y = x.repeat(3)
    torch.index_select(y, 0, torch.tensor([1, 0, 2]), out=y)
    return y


def c_ov8_caught(x):
    y = x.repeat(3)
    try:
        y[:3].copy_(y[1:4])
    except RuntimeError as e:
        return y + 1, str(e)[:22]
    return y, ""


# -- eager runs its kernel over what it reads -----------------------------------------------------------------
def c_ov8_strided_smear(x):
    y = x.repeat(3)[:8].view(2, 4)
    y[:, 1:4].copy_(y[:, :3])
    return y


# -- no overlap, or exactly the same memory: one graph --------------------------------------------------------
def c_ov8_add_self(x):
    y = x.repeat(3)
    y.add_(y)
    return y


def c_ov8_disjoint(x):
    y = x.repeat(3)
    y[:3].copy_(y[3:6])
    y[:8:2].add_(y[1:8:2])
    return y


def c_ov8_slice_iadd(x):
    y = x.repeat(3)[:8].view(2, 4)
    y[:, :2].copy_(y[:, 2:4])
    y[:1] += 1
    return y


def c_ov8_is_fx_tracing(x):
    if torch.fx._symbolic_trace.is_fx_tracing():
        return x + 1
    return x * 2


def c_ov8_fill_from_own_element(x):
    y = x.repeat(2)
    y.fill_(y[1])
    y.masked_fill_(y > 0, y[0])
    return y


def c_ov8_foreach_list_onto_itself(x):
    ys = [x.clone(), x + 1]
    torch._foreach_add_(ys, ys)
    return ys


def c_ov8_foreach_one_tensor_twice(x):
    y = x.clone()
    torch._foreach_add_([y, y], 1.0)  # a break: eager adds twice, one write after the other
    return y


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
