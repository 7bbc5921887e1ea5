"""Dynamo's repro and higher-order-op tests, rebuilt in our own words, one small program each, for
``capture_count.py``: here the nn.Module patterns (module lists, parameter dicts, hooks, buffers,
``__getattr__`` overrides, properties, class attributes) and tensor methods and attributes (``torch.Size``
arithmetic, ``isinstance``/``type`` checks, in-place ops on views, NumPy interop); Python idioms are in
``capture_count_repros_python.py`` and higher-order ops in ``capture_count_repros_hops.py``
(``--only repros`` runs all three).

A construct that takes more than ``x`` names the rest in ``extra_args`` (made afresh for each run).
"""

from __future__ import annotations

import copy
import io
import math

import numpy as np
import torch
import torch.utils.checkpoint

_SINK = io.StringIO()


# -- nn.Module patterns ------------------------------------------------------------------------------
class _Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])
        self.extra = torch.nn.ModuleDict({"a": torch.nn.ReLU(), "b": torch.nn.Tanh()})

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x) + i
        for name, m in self.extra.items():
            x = m(x) if name != "b" else m(x) * 2
        return x + len(self.layers) + self.layers[-1].weight.sum()


_STACK = _Stack()


def c_module_list_dict(x):
    return _STACK(x)


class _ParamHolder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scales = torch.nn.ParameterDict({"w": torch.nn.Parameter(torch.ones(3)),
                                              "b": torch.nn.Parameter(torch.zeros(3))})
        self.plist = torch.nn.ParameterList([torch.nn.Parameter(torch.full((3,), 2.0))])
        self.register_buffer("offset", torch.arange(3.0))

    def forward(self, x):
        out = x * self.scales["w"] + self.scales.b + self.offset
        for p in self.plist:
            out = out * p
        return out + sum(p.numel() for p in self.parameters())


_PARAMS = _ParamHolder()


def c_parameter_dict_buffers(x):
    with torch.no_grad():
        return _PARAMS(x)


class _Gated(torch.nn.Module):
    scale = 3
    use_bias = True

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self._extras = {"shift": 1.5}

    @property
    def shift(self):
        return self._extras["shift"]

    def __getattr__(self, name):
        if name == "extra_shift":
            return 0.25
        return super().__getattr__(name)

    def forward(self, x):
        y = self.lin(x) * self.scale + self.shift + self.extra_shift
        if self.use_bias and getattr(self, "missing", None) is None:
            y = y + 1
        return y + getattr(self.lin, "bias_scale", 2)


_GATED = _Gated()


def c_module_getattr_property_classattr(x):
    return _GATED(x)


_HOOK_LOG = []


class _WithHooks(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        self.lin.register_forward_hook(lambda m, args, out: out + 1)

    def forward(self, x):
        return self.lin(x).relu()


_HOOKED = _WithHooks()


def c_module_hooks(x):
    return _HOOKED(x)


class _Seq(torch.nn.Sequential):
    def forward(self, x):
        for i, m in enumerate(self):
            x = m(x) * (i + 1)
        return x


_SEQ = _Seq(torch.nn.Linear(3, 4), torch.nn.GELU(), torch.nn.Linear(4, 3))


def c_sequential_subclass(x):
    return _SEQ(x) + _SEQ[0].out_features + len(_SEQ)


class _NoGradMethod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.register_buffer("running", torch.zeros(3))

    @torch.no_grad()
    def update(self, x):
        self.running.mul_(0.5).add_(x)

    def forward(self, x):
        self.update(x)
        return self.lin(x) + self.running


def c_no_grad_method_buffer_update(x):
    m = _NoGradMethod()
    torch.nn.init.constant_(m.lin.weight, 0.5)
    torch.nn.init.zeros_(m.lin.bias)
    return m(x), m.running


class _Child(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x, *, scale=1.0):
        return x * self.k * scale


class _Parent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.kids = torch.nn.ModuleList(_Child(k) for k in (1, 2))

    def forward(self, *args, **kwargs):
        out = args[0]
        for kid in self.kids:
            out = kid(out, **kwargs)
        return out


_PARENT = _Parent()


def c_module_args_kwargs_forwarding(x):
    return _PARENT(x, scale=0.5) + _PARENT(x)


def c_module_named_children_modules(x):
    out = x
    for name, mod in _STACK.named_modules():
        if isinstance(mod, torch.nn.Linear):
            out = out + mod.in_features + len(name)
    for _name, p in _STACK.named_parameters():
        out = out + p.shape[0]
    return out + sum(1 for _ in _STACK.children())


def c_module_deepcopy(x):
    m = copy.deepcopy(_SEQ)
    return m(x) + _SEQ(x)


_NORMED = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3)).eval()


def c_module_deepcopy_buffers(x):
    m = copy.deepcopy(_NORMED)  # its running statistics: new tensors, equal values
    m[1].running_mean.add_(1)  # the original's stay as they are
    return m(x.view(1, 3)), _NORMED(x.view(1, 3))


def c_module_training_flag(x):
    m = torch.nn.Dropout(0.5)
    m.eval()
    y = m(x)
    return y + (1 if m.training else 2) + (10 if _STACK.training else 20)


# -- tensor methods and attributes -----------------------------------------------------------------
def c_tensor_attributes(x):
    y = x.view(3, 1)
    out = y * y.ndim + y.dim() + y.numel() + len(y) + y.size(-1) + y.element_size()
    if y.is_floating_point() and not y.is_cuda and y.dtype == torch.float32 and y.device.type == "cpu":
        out = out + 1
    return out.T.contiguous() + x.new_ones(3) + x.new_zeros(()).item() if x.requires_grad else out.T + x.new_ones(3)


def c_size_arithmetic(x):
    y = x.reshape(1, 3, 1)
    s = y.size()
    new = s[:-1] + (2,)  # noqa: RUF005 (torch.Size + tuple is the construct)
    total = math.prod(s) + s.numel() + sum(s)
    z = y.expand(*new[:2], 2).reshape(torch.Size([3, 2]))
    return z * total + len(new) + s[1] * 2 // 3, tuple(z.shape), new


def c_isinstance_type_checks(x):
    out = x
    if isinstance(x, torch.Tensor) and type(x) is torch.Tensor:
        out = out + 1
    if isinstance(x.shape, tuple) and isinstance(x.shape, torch.Size):
        out = out + 2
    if isinstance(_STACK, (torch.nn.Module, list)) and not isinstance(3, float):
        out = out + 3
    if issubclass(type(_SEQ), torch.nn.Sequential) and type(_SEQ).__name__ == "_Seq":
        out = out + 4
    return out, type(out) == torch.Tensor  # noqa: E721


def c_inplace_on_views(x):
    y = x.clone()
    v = y[1:]
    v.add_(10)
    y[0].mul_(3)
    z = y.view(3, 1)
    z[:, 0].sub_(1)
    y.unsqueeze(0)[0, 2] = -1
    return y, v


def c_tensor_setitem_mask(x):
    y = x.clone()
    y[y > 0.5] = 0
    y[[0, 2]] += 1
    idx = torch.tensor([1])
    y.index_put_((idx,), torch.tensor([7.0]))
    return y


def c_tensor_item_branch(x):
    s = x.sum()
    if s.item() > 1:
        return x * 2
    return x - 1


def c_tensor_dtype_conversions(x):
    a = x.long().float().to(torch.float64).type(torch.float32)
    b = x.to(dtype=torch.int32).to(x)
    c = x.type_as(a).half().float()
    return a + b + c, a.dtype, str(b.dtype)


def c_tensor_tolist_numpy(x):
    values = x.tolist()
    n = x.numpy()
    return x + sum(values) + float(n.sum()) + torch.from_numpy(np.ones(3, dtype=np.float32))


def c_numpy_interop(x):
    a = x.numpy()
    b = np.sin(a) * 2 + np.arange(3)
    return torch.as_tensor(b) + x, np.float32(2.0) * x


def c_requires_grad_backward_detach(x):
    w = x.detach().clone().requires_grad_(True)
    y = (w * w).sum()
    return y.detach() + x, w.requires_grad, y.requires_grad


CONSTRUCTS = [c_module_list_dict, c_parameter_dict_buffers, c_module_getattr_property_classattr, c_module_hooks,
              c_sequential_subclass, c_no_grad_method_buffer_update, c_module_args_kwargs_forwarding,
              c_module_named_children_modules, c_module_deepcopy, c_module_deepcopy_buffers,
              c_module_training_flag, c_tensor_attributes,
              c_size_arithmetic, c_isinstance_type_checks, c_inplace_on_views, c_tensor_setitem_mask,
              c_tensor_item_branch, c_tensor_dtype_conversions, c_tensor_tolist_numpy, c_numpy_interop,
              c_requires_grad_backward_detach]
