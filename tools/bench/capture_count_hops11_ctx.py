"""Context managers spelled in less common ways, after the ideas of PyTorch's test_ctx_manager.py, for
``capture_count.py --only hops11``: managers chosen by an expression, parenthesised groups, dunder calls by hand,
``set_grad_enabled`` objects made before their ``with``, a generator manager entered twice, managers kept on a
module and entered through ``self``, ``contextlib.closing``, and managers inside ``wrap`` and ``cond`` bodies.
Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib

import torch
from torch._higher_order_ops.wrap import wrap


class _Closable:
    def __init__(self, log):
        self.log = log

    def close(self):
        self.log.append("closed")


class _Counting:
    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return self.entered

    def __exit__(self, *exc):
        return False


class _Holder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.guard = torch.no_grad()
        self.lin = torch.nn.Linear(3, 3)
        torch.nn.init.constant_(self.lin.weight, 0.5)
        torch.nn.init.zeros_(self.lin.bias)

    def forward(self, t):
        with self.guard:
            a = self.lin(t)
        return a, self.lin(t)


def c_h11c_manager_chosen_by_expression(x):
    w = x.detach().requires_grad_()
    outs = []
    for flag in (True, False):
        with torch.no_grad() if flag else contextlib.nullcontext():
            outs.append((w * 2).requires_grad)
    return outs


def c_h11c_parenthesised_group(x):
    w = x.detach().requires_grad_()
    with (
        torch.no_grad(),
        torch.autocast("cpu", dtype=torch.bfloat16),
    ):
        m = w.reshape(1, 3)
        a = m.t().mm(m)
    return a.dtype, a.requires_grad, a.float()


def c_h11c_grad_mode_dunders_by_hand(x):
    w = x.detach().requires_grad_()
    ng = torch.no_grad()
    ng.__enter__()
    a = w * 2
    ng.__exit__(None, None, None)
    b = w * 2
    return a.requires_grad, b.requires_grad


def c_h11c_set_grad_enabled_made_before_with(x):
    w = x.detach().requires_grad_()
    m = torch.set_grad_enabled(False)
    between = torch.is_grad_enabled()
    with m:
        a = w * 2
    return between, a.requires_grad, torch.is_grad_enabled()


def c_h11c_generator_manager_entered_twice(x):
    @contextlib.contextmanager
    def once():
        yield x * 2
    cm = once()
    with cm as a:
        pass
    try:
        with cm:
            pass
    except (RuntimeError, AttributeError) as e:
        return a, type(e).__name__
    return a, "none"


def c_h11c_manager_kept_on_module(x):
    w = x.detach().requires_grad_()
    a, b = _Holder()(w)
    return a.requires_grad, b.requires_grad, a.detach() + b.detach()


def c_h11c_closing(x):
    log = []
    with contextlib.closing(_Closable(log)) as c:
        y = x * 2
        log.append(type(c).__name__)
    return y, log


def c_h11c_user_manager_value_reused(x):
    cm = _Counting()
    with cm as n1:
        y = x * n1
    with cm as n2:
        y = y + n2
    return y, cm.entered


def c_h11c_no_grad_inside_wrap_inside_enable_grad(x):
    w = x.detach().requires_grad_()

    def body(t):
        with torch.no_grad():
            frozen = t * 2
        with torch.enable_grad():
            live = t * 3
        return frozen, live
    with torch.no_grad():
        with torch.enable_grad():
            a, b = wrap(body, w)
    return a.requires_grad, b.requires_grad, a + b.detach()


def c_h11c_user_manager_inside_cond_branch(x):
    cm = _Counting()

    def true_fn(t):
        with contextlib.nullcontext():
            return t * 2

    def false_fn(t):
        return t - 1
    with cm:
        out = torch.cond(x.sum() > 1, true_fn, false_fn, (x,))
    return out, cm.entered


def c_h11c_exit_stack_callback_with_tensor(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "done")
        stack.enter_context(torch.no_grad())
        y = x * 2
    return y, log


def c_h11c_suppress_around_cond(x):
    with contextlib.suppress(ZeroDivisionError):
        y = torch.cond(x.sum() > 1, lambda t: t * 2, lambda t: t - 1, (x,))
        raise ZeroDivisionError
    return y


def c_h11c_manager_class_names(x):
    managers = [torch.no_grad(), torch.enable_grad(), torch.autocast("cpu")]
    return x * 2, [type(m).__name__ for m in managers], type(managers[0]).__module__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
