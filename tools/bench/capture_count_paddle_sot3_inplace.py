"""In-place writes and branches on Python values, after Paddle's SOT tests (test_inplace_api,
test_capture_control_flow, test_dup_top, test_constant_graph, test_model_switch_training), with torch, for
``capture_count.py --only paddle_sot3``: item and slice writes through aliases and lists, in loops over ranges and
argument iterators, writes that autograd sees, branches on flags, ``training`` switched between calls, constant
graphs.
"""

from __future__ import annotations

import torch


def c_ps3i_item_writes_through_list_alias(x, y):
    x = x.clone()
    y = y.clone()
    x[0] = 3.0
    z = [y]
    y[1] = 5.0
    return x[0] + x[1] + z[0][1] + y[0] + y[1]


c_ps3i_item_writes_through_list_alias.extra_args = lambda: (torch.tensor([3.0, 4.0, 5.0]),)


def c_ps3i_item_writes_in_range_loop(x, y):
    x, y = x.clone(), y.clone()
    ret = 0
    for i in range(10):
        x[0] = 1
        z = [y]
        y[1] = 2 * i + 1
        ret += x[0] + x[1] + z[0][1] + y[0] + y[1]
    return ret


c_ps3i_item_writes_in_range_loop.extra_args = lambda: (torch.tensor([3.0, 4.0, 5.0]),)


def c_ps3i_item_writes_in_iterator_loop(x, y, it):
    x, y = x.clone(), y.clone()
    ret = 0
    for i in it:
        x[0] = 1
        y[1] = 2 * i + 1
        ret += x[0] + y[1]
    return ret


c_ps3i_item_writes_in_iterator_loop.extra_args = lambda: (torch.tensor([3.0, 4.0, 5.0]), iter(range(4)))


def c_ps3i_strided_writes_in_list_element(x):
    items = [x.reshape(1, 3).clone()]
    t = items[0]
    t[:, 0::2] = t[:, 0::2] * 0
    t[:, 1::2] = t[:, 1::2] + 2
    items[0][0, 0::2] = 1.0
    return items


def c_ps3i_slice_write_autograd_sees(x):
    w = x.clone().requires_grad_()
    m = w * 2
    n = w * 3
    y = m
    y[:] = n
    y.sum().backward()
    return w.grad


def c_ps3i_write_under_flag_argument(x, flag):
    x = x.clone()
    if flag:
        x[0] = 3.0
        z = [x]
        return z[0].sum()
    return None


c_ps3i_write_under_flag_argument.extra_args = lambda: (True,)


def c_ps3i_dup_top_chained_assignment(x):
    a = b = x + 1
    c = d = [a]
    c.append(b)
    e, f = g = (x, x * 2)
    return a is b, len(d), e + f + g[0]


def c_ps3i_constant_graph(x):
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.ones(3) * 2
    return (a + b) * 3, x


class _Dropper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        y = self.linear(x)
        if self.training:
            return y * 0.5
        return y + 1


def c_ps3i_training_switched_between_calls(x, net):
    net.train()
    a = net(x)
    net.eval()
    b = net(x)
    net.train()
    return a, b, net.training


c_ps3i_training_switched_between_calls.extra_args = lambda: (_Dropper(),)


def c_ps3i_branch_on_none_and_isinstance(x, extra):
    out = x
    if extra is not None and isinstance(extra, (list, tuple)):
        for e in extra:
            out = out + e
    elif isinstance(extra, dict):
        out = out + sum(extra.values())
    return out


c_ps3i_branch_on_none_and_isinstance.extra_args = lambda: ([1, 2],)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
