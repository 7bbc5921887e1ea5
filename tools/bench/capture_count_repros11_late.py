"""Part of ``capture_count_repros11``: the late repros of PyTorch's test/dynamo/_repros_part3.py in our own
words: hooks torch disables on builtin modules, ``allow_in_graph`` staticmethods, selective checkpoint policies
over sets, scatter ops mixing dtypes, one-hot bounds, ``is_compiling`` inside a function torch.compile wraps,
parameters rebuilt in ``forward``, method ``__dict__`` writes.
"""

from __future__ import annotations

import enum
import functools

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts


@torch._dynamo.disable
def _passthrough_hook(module, inp):
    return inp


class _Wrapper(nn.Module):
    def __init__(self, lin):
        super().__init__()
        self.lin = lin

    def forward(self, x):
        return self.lin(x)


torch.manual_seed(2)
_HOOKED_LIN = nn.Linear(3, 2)
_HOOKED_LIN.register_forward_pre_hook(_passthrough_hook)
_HOOKED = _Wrapper(_HOOKED_LIN)


def c_repros11_disabled_pre_hook_on_builtin_module(x):
    with torch.no_grad():
        return _HOOKED(x) * 2


class _Holder:
    i = 3

    @staticmethod
    def inner(x):
        return torch.mul(x, _Holder.i)

    @staticmethod
    @torch._dynamo.allow_in_graph
    def outer(x):
        return _Holder.inner(x) + 1


def c_repros11_allow_in_graph_staticmethod(x):
    return _Holder.outer(x) * 2


def _policy(heavy, ctx, func, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if func in heavy else CheckpointPolicy.PREFER_RECOMPUTE


def _mm_sin(m):
    return torch.mm(m, m).sin().exp()


def c_repros11_selective_checkpoint_frozenset_policy(x):
    m = (x.reshape(3, 1) * torch.ones(3, 3)).requires_grad_(True)
    context = functools.partial(create_selective_checkpoint_contexts,
                                functools.partial(_policy, frozenset([torch.ops.aten.mm.default])))
    out = checkpoint(_mm_sin, m, use_reentrant=False, context_fn=context)
    return out.detach(), out.requires_grad


def c_repros11_select_scatter_int_source(x):
    base = torch.zeros(1, 3) + x
    src = torch.tensor([0])
    return torch.select_scatter(base, src, 1, 0)


def c_repros11_one_hot_unused_out_of_range_raises(x):
    a = torch.arange(0, 5) % 3
    F.one_hot(a, 2)  # eager checks the class values though nothing reads the result
    return x + 1


def c_repros11_gather_unused_index_out_of_range_raises(x):
    m = torch.stack([x, x * 2])
    m.gather(1, torch.tensor([[0, 3]]))
    torch.index_select(m, 0, torch.tensor([1]))
    return m.sum()


def c_repros11_one_hot_in_range_used(x):
    a = torch.arange(0, 5) % 3
    return x + F.one_hot(a, 3).sum(0)


def _mode_dependent(x):
    if torch.compiler.is_compiling():
        return x + 1
    return x - 1


def c_repros11_is_compiling_inside_torch_compiled(x):
    return torch.compile(_mode_dependent, backend="eager")(x) * 2


class _Rebuilt(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.conv = nn.Conv1d(1, 2, kernel_size=2)
        self.conv_weight = torch.randn(2, 1, 2)
        self.conv_bias = torch.randn(2)

    def forward(self, x):
        self.conv.weight = nn.Parameter(self.conv_weight)
        self.conv.bias = nn.Parameter(self.conv_bias, requires_grad=False)
        return F.relu(self.conv(x))


_REBUILT = _Rebuilt()


def c_repros11_parameters_rebuilt_in_forward(x):
    with torch.no_grad():
        return _REBUILT(x.reshape(1, 1, 3))


class _Tagged:
    def method(self):
        return 1


_TAGGED = _Tagged()


def c_repros11_method_dunder_dict_write(x):
    name = "method"
    getattr(_TAGGED, name).__dict__["slow"] = True
    return x.sin(), _Tagged.method.__dict__.get("slow")


def c_repros11_listcomp_in_module_method(x):
    values = [i * torch.cos(x) for i in range(4)]
    return sum(values), sum(i * i for i in range(4))


class _ModelWithDisabledForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.num = 3

    @torch._dynamo.disable(recursive=False)
    def forward(self, x):
        return sum([i * torch.cos(x) for i in range(self.num)])


_DISABLED_FORWARD = _ModelWithDisabledForward()


def c_repros11_forward_disabled_not_recursive(x):
    return _DISABLED_FORWARD(x) + 1


def c_repros11_unbind_copy_into_list_out(x):
    m = torch.stack([x, x + 1])
    outs = [torch.empty(0), torch.empty(0)]
    torch.unbind_copy(m, out=outs)
    return outs


def c_repros11_nanmean_out_with_dim(x):
    m = torch.stack([x, torch.tensor([float("nan"), 1.0, 2.0])])
    out = torch.empty(0)
    torch.nanmean(m, dim=1, keepdim=True, out=out)
    return out


# -- batch four: compiled modules and overloads reached from the frame, classmethod properties elsewhere -----
torch.manual_seed(4)
_PLAIN_LIN = nn.Linear(3, 2)
_OPT_LIN = torch.compile(_PLAIN_LIN, backend="eager")


def c_repros11_optimized_module_attributes(x):
    with torch.no_grad():
        out = _OPT_LIN(x)
    return out, _OPT_LIN.training, _OPT_LIN._orig_mod is _PLAIN_LIN, _OPT_LIN.out_features


class _HoldsCompiled(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.inner = torch.compile(nn.Linear(3, 3), backend="eager")

    def forward(self, x):
        return self.inner(x).relu() + 1


_HOLDS_COMPILED = _HoldsCompiled()


def c_repros11_compiled_submodule_called(x):
    with torch.no_grad():
        return _HOLDS_COMPILED(x)


class _Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, t):
        return t * self.k


def c_repros11_torch_compile_of_bound_method_with_options(x):
    s = _Scaler(3)
    f = torch.compile(s.scale, backend="eager", dynamic=False, fullgraph=True)
    g = torch.compile(functools.partial(torch.add, alpha=2), backend="eager")
    return f(x) + g(x, x)


def _module_wrapper(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


_WRAPPED_LIN = _module_wrapper(_PLAIN_LIN)


def c_repros11_wraps_around_module_called(x):
    with torch.no_grad():
        return _WRAPPED_LIN(x) * 2, _WRAPPED_LIN.__wrapped__ is _PLAIN_LIN


def c_repros11_uniform_star_args_kwargs(x):
    t = torch.zeros(2, 3)
    args, kwargs = [], {"from": -10, "to": 10}
    a = t.uniform_(*args, **kwargs).clone()
    b = t.uniform_(*[-1], **{"to": 1}).clone()
    return a.abs().max() <= 10, b.abs().max() <= 1, x + 1


class _ScaledModule(nn.Module):
    _base = 2

    @classmethod
    @property
    def factor(cls):
        return cls._base * 3

    def forward(self, x):
        return x * self.factor + type(self).factor


_SCALED = _ScaledModule()


def c_repros11_module_classmethod_property(x):
    return _SCALED(x)


def c_repros11_enum_member_reads_classmethod_property(x):
    member = _Box2._Y
    return x[member.POINT], member.HEADING


class _Box2(enum.IntEnum):
    _X = 0
    _Y = 1
    _HEADING = 2

    @classmethod
    @property
    def POINT(cls):
        return slice(cls._X, cls._Y + 1)

    @classmethod
    @property
    def HEADING(cls):
        return cls._HEADING


def c_repros11_overload_objects_read(x):
    name = "Tensor"
    op = getattr(torch.ops.aten.mul, name)
    summed = torch.ops.aten.sum.dim_IntList(x.reshape(1, 3), [0])
    return op(x, x) + summed, op.overloadpacket is torch.ops.aten.mul, str(op)


def c_repros11_embedding_unused_out_of_range_raises(x):
    weight = torch.ones(4, 2)
    F.embedding(torch.tensor([1, 7]), weight)
    return x + 1


def c_repros11_issubclass_of_ndarray_type(x):
    arr = x.numpy()
    return x + int(issubclass(type(arr), np.ndarray)) + int(issubclass(arr.__class__, (list, np.ndarray)))



class _BreakingAllowed:
    i = 3

    @staticmethod
    def inner(x):
        return torch.mul(x, _BreakingAllowed.i)

    @staticmethod
    @torch._dynamo.allow_in_graph
    def outer(x):
        torch._dynamo.graph_break()
        return _BreakingAllowed.inner(x)


def c_repros11_allow_in_graph_with_break_inside(x):
    return _BreakingAllowed.outer(x) + 1


class _LenThroughProperty:
    def __init__(self):
        self._len_value = 0

    @property
    def _len(self):
        return self.__dict__.get("_len_value", 0)

    @_len.setter
    def _len(self, value):
        self._len_value = value

    def add(self, n):
        self._len = self._len + n

    @torch.compiler.disable()
    def __len__(self):
        return self._len


def c_repros11_property_setter_then_disabled_len(x):
    holder = _LenThroughProperty()
    holder.add(x.shape[0])
    holder.add(2)
    return x + len(holder), holder._len_value


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
