"""Exceptions around modules, decorators and torch's own managers (round exc15, after PyTorch's
test_exceptions.py nn-module cases and test_ctx_manager.py), for ``capture_count.py --only exc15``: a
forward that raises caught by its caller, a forward pre-hook raising, ``torch.no_grad`` and
``torch.enable_grad`` as decorators over raising helpers, ``set_grad_enabled`` restored by an exception, an
exception escaping an autocast region, each written afresh over one tensor.
"""

from __future__ import annotations

import torch
from torch import nn


class _Raiser(nn.Module):
    def forward(self, t):
        if t.dim() == 1:
            raise ValueError("one-dim")
        return t + 2


class _Guarded(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = _Raiser()
        self.lin = nn.Linear(3, 3)

    def forward(self, t):
        try:
            return self.inner(t)
        except ValueError:
            return self.lin(t)


_GUARDED = _Guarded()


def _refuse(mod, args):
    if args[0].shape[0] == 3:
        raise KeyError("refused")


_HOOKED = nn.Linear(3, 3)
_HOOKED.register_forward_pre_hook(_refuse)


def c_exc15_forward_raises_caller_catches(x):
    return _GUARDED(x).detach()


def c_exc15_forward_pre_hook_raises(x):
    try:
        y = _HOOKED(x)
    except KeyError as e:
        y = x * len(e.args[0])
    return y.detach()


@torch.no_grad()
def _nograd_raising(t):
    t * 2
    raise LookupError(t.requires_grad)


def c_exc15_no_grad_decorator_raises(x):
    w = x.clone().requires_grad_(True)
    try:
        _nograd_raising(w)
    except LookupError:
        pass
    return (w * 3).requires_grad, torch.is_grad_enabled(), x + 1


def c_exc15_set_grad_enabled_restored_on_error(x):
    w = torch.ones(3, requires_grad=True)
    try:
        with torch.set_grad_enabled(False):
            a = w * 2
            raise IndexError
    except IndexError:
        b = w * 2
    return a.requires_grad, b.requires_grad, torch.is_grad_enabled(), x + 1


def c_exc15_enable_grad_inside_no_grad_raises(x):
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        try:
            with torch.enable_grad():
                a = w * 2
                raise TypeError
        except TypeError:
            b = w * 2
    return a.requires_grad, b.requires_grad, x + 1


def c_exc15_autocast_region_exception(x):
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = torch.mm(x.view(1, 3), x.view(3, 1))
            raise RuntimeError("stop")
    except RuntimeError:
        z = torch.mm(x.view(1, 3), x.view(3, 1))
    return y.dtype, z.dtype, z


def c_exc15_module_call_in_finally(x):
    lin = _GUARDED.lin
    try:
        out = x.sin()
        raise ValueError
    except ValueError:
        out = out + 1
    finally:
        out = lin(out)
    return out.detach()


def c_exc15_inference_mode_raise_restored(x):
    try:
        with torch.inference_mode():
            a = x * 2
            raise KeyError
    except KeyError:
        b = x * 2
    return a.is_inference(), b.is_inference(), torch.is_inference_mode_enabled(), b


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
