"""Mining round 11 after PyTorch's test/dynamo/_repros_part1/2/3.py (the split test_repros.py), rebuilt in our
own words for ``capture_count.py``: out= overloads that resize, unbound str methods, list.index bounds on
sequence kinds, ``__delattr__`` overrides, weakref proxies, dict subclasses with ``__getattr__``, patched
``__init__`` wrappers, parameter dicts replaced by OrderedDict subclasses, autograd Functions stashing on ctx,
TypedDict and enum variants, property setters reading ``__dict__``.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import functools
import typing
import weakref

import torch
import torch.nn.functional as F
from torch import nn


# -- out= overloads and scatter/one-hot ops ----------------------------------------------------------------
def c_repros11_factory_out_from_size_tuple(x):
    ones = torch.empty(0)
    zeros = torch.empty(1, 1)
    empty = torch.empty(5)
    torch.ones((2, 3), out=ones)
    torch.zeros((3, 2), out=zeros)
    torch.empty((2, 2), out=empty).fill_(4.0)
    return ones * x.sum(), zeros.shape, empty.shape, empty.sum()


def c_repros11_nanmean_out_zero_dim(x):
    out = torch.tensor(0.0)
    y = torch.where(x > 0.5, x, torch.tensor(float("nan")))
    torch.nanmean(y, out=out)
    return out, out.shape, y


def c_repros11_unbind_copy_out_tuple(x):
    eye = torch.eye(3) * (x + 1)
    outs = (torch.zeros(3), torch.zeros(3), torch.zeros(3))
    torch.unbind_copy(eye, out=outs)
    return outs[0] + outs[1] * 2 + outs[2] * 3


def c_repros11_select_scatter_made_src(x):
    base = x.reshape(1, 3).repeat(2, 1)
    src = torch.tensor([7.0, 8.0])
    out = torch.select_scatter(base, src, 1, 0)
    diag = torch.diagonal_scatter(torch.zeros(3, 3), x)
    return out, diag


def c_repros11_one_hot_then_float(x):
    idx = (torch.arange(5) % 3).long()
    oh = F.one_hot(idx, 3)
    return oh.float() @ x, oh.dtype


def c_repros11_amp_unscale_foreach(x):
    grads = [torch.ones(3) * 2, x.clone()]
    found_inf = torch.zeros(1)
    inv_scale = torch.full((1,), 0.25)
    torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)
    return grads[0] + grads[1], found_inf


def c_repros11_copy_from_python_scalars(x):
    a = torch.zeros(3).copy_(torch.tensor(2))
    b = torch.empty(3, dtype=torch.int64).fill_(3)
    return x * a + b, b.dtype


# -- autograd Functions ------------------------------------------------------------------------------------
class _Stash(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, z):
        ctx.b = b
        ctx.save_for_backward(a)
        ctx.scale = 3
        return z * ctx.scale + a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return None, None, grad * ctx.scale + ctx.b + a * 0


def c_repros11_function_stashes_on_ctx(x):
    z = x.clone().requires_grad_(True)
    out = _Stash.apply(torch.ones(3), torch.zeros(3), z)
    return out.detach(), out.requires_grad


class _MatSelf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, m):
        return m @ m.t()

    @staticmethod
    def backward(ctx, grad):
        return grad


def c_repros11_setitem_then_function(x):
    m = torch.zeros(3, 3)
    y = (x + 1).reshape(1, 3).requires_grad_(True)
    m[0] = y[0]
    out = _MatSelf.apply(m)
    return out.detach(), m.requires_grad, out.requires_grad


def c_repros11_no_grad_and_grad_twin_outputs(x):
    v = x.clone().requires_grad_(True)
    with torch.no_grad():
        a = v + 1
    b = v + 1
    return a.detach(), b.detach(), a.requires_grad, b.requires_grad


def c_repros11_duplicate_return_values(x):
    a, b = x * 2, x * 2
    b.add_(1)
    return a, b, a[0], b[0]


# -- str and sequence protocol ------------------------------------------------------------------------------
def c_repros11_unbound_str_methods(x):
    c = "foobar42"
    flags = (str.isalnum(c), str.isdigit(c[-2:]), str.isalpha(c[:3]), str.upper(c), str.startswith(c, "foo"))
    parts = str.split("a,b,c", ",")
    return x + sum(flags[:3]) + len(parts), flags, str.join("-", parts)


_Four = collections.namedtuple("_Four", "one two three four", defaults=[0, 0, 0, 0])


def c_repros11_index_bounds_on_sequence_kinds(x):
    total = 0
    for xs in ([1, 2, 3, 4], (1, 2, 3, 4), torch.Size([1, 2, 3, 4]), collections.deque([1, 2, 3, 4]), _Four(1, 2, 3, 4)):
        total += xs.index(3) + xs.index(3, 2) + xs.index(3, 0, 3)
    return x + total


def c_repros11_index_missing_value_error(x):
    xs = ["bar", "foo", "baz"]
    try:
        i = xs.index("nope")
    except ValueError as e:
        i = len(str(e))
    return x + i


def c_repros11_str_index_and_find(x):
    s = "hello-world"
    try:
        j = s.index("z")
    except ValueError:
        j = -2
    return x + s.find("o") + s.rfind("o") + s.index("w", 2) + j + s.count("l")


# -- objects: __delattr__, weakref proxies, dict subclasses -------------------------------------------------
class _Guarded:
    def __init__(self, val):
        self.val = val
        self.deletion_attempted = False

    def __delattr__(self, attr):
        if attr == "val":
            self.deletion_attempted = True
        else:
            super().__delattr__(attr)


def c_repros11_delattr_override_made(x):
    a, b = _Guarded(1), _Guarded(x)
    del a.val
    del b.val
    b.extra = 5
    del b.extra
    return x + a.val, hasattr(a, "val"), a.deletion_attempted, hasattr(b, "extra"), b.deletion_attempted


class _Trainer:
    def __init__(self, t):
        self.foo = t
        self.steps = 2


_TRAINER = _Trainer(torch.ones(3))


class _HoldsProxy(nn.Module):
    def __init__(self):
        super().__init__()
        self.trainer = weakref.proxy(_TRAINER)

    def forward(self, x):
        return x * self.trainer.foo + self.trainer.steps


_PROXY_MOD = _HoldsProxy()


def c_repros11_weakref_proxy_attribute(x):
    return _PROXY_MOD(x)


def c_repros11_weakref_ref_compare_and_call(x):
    w = x * 2
    r = weakref.ref(w)
    r2 = weakref.ref(_TRAINER)
    alive = r() is w
    return r() + 1, alive, r2() is _TRAINER, r2().steps


class _Encoding(dict):
    def __init__(self, data):
        super().__init__(data)
        self.data = data

    def __getattr__(self, item):
        try:
            return self.data[item]
        except KeyError as e:
            raise AttributeError(item) from e


def c_repros11_dict_subclass_getattr_from_data(x):
    enc = _Encoding({"ids": x, "mask": x > 0})
    return enc.ids * enc["mask"], hasattr(enc, "missing"), len(enc), sorted(enc.keys())


def c_repros11_dict_subclass_getattr_argument(x):
    enc = _ENC
    return enc.ids + x, getattr(enc, "nope", 3), "ids" in enc


_ENC = _Encoding({"ids": torch.ones(3)})


class _LenByProperty:
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

    def __len__(self):
        return self._len


def c_repros11_property_setter_reads_dict_get(x):
    c = _LenByProperty()
    c.add(x.shape[0])
    c.add(2)
    return x + len(c), c.__dict__


# -- modules: patched __init__, ZeRO-style parameter dicts, method overrides ---------------------------------
def _patch_init(init):
    @functools.wraps(init)
    def wrapper(module, *args, **kwargs):
        if not hasattr(module, "_child_entered"):
            module._child_entered = True
        init(module, *args, **kwargs)

    return wrapper


class _Patched(nn.Module):
    def __init__(self, k=5.0):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x.mul(self.k)


_Patched._old_init = _Patched.__init__
_Patched.__init__ = _patch_init(_Patched.__init__)
_PATCHED = _Patched()


def c_repros11_patched_init_module_called(x):
    return _PATCHED(x), _PATCHED._child_entered


def c_repros11_patched_init_module_made(x):
    m = _Patched(2.0)
    return m(x), m._child_entered, _Patched.__init__.__name__


class _ZeroDict(collections.OrderedDict):
    def __init__(self, parent_module=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._parent_module = parent_module

    def __getitem__(self, key):
        param = super().__getitem__(key)
        if param is None:
            return param
        return param


def _inject(module):
    for sub in module.modules():
        new = _ZeroDict(parent_module=sub)
        for key, param in sub._parameters.items():
            new[key] = param
        sub._parameters = new
    return module


torch.manual_seed(0)
_ZERO_MLP = _inject(nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2)))


def c_repros11_zero_ordered_dict_parameters(x):
    with torch.no_grad():
        return _ZERO_MLP(x)


def c_repros11_zero_ordered_dict_parameters_grad(x):
    return _ZERO_MLP(x).sum(), len(list(_ZERO_MLP.parameters()))


class _Dilate(nn.Module):
    def __init__(self, dilate_func):
        super().__init__()
        self.dilate_func = dilate_func

    def forward(self, x):
        return self.dilate_func() * torch.sin(x)


class _Main(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = 4
        self.mod = _Dilate(self.scale)

    def scale(self):
        return self.a

    def forward(self, x):
        self.a += 1
        return self.mod(x)


def c_repros11_child_calls_parent_bound_method_mutating(x):
    m = _Main()
    return m(x), m(x), m.a


class _WithStatic:
    i = 3

    @staticmethod
    def inner(x):
        return torch.mul(x, _WithStatic.i)

    @staticmethod
    def outer(x):
        return _WithStatic.inner(x) + 1


def c_repros11_staticmethod_chain_via_class(x):
    return _WithStatic.outer(x), _WithStatic().outer(x)


class _GeluHolder(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = F.gelu
        self.norm = functools.partial(F.normalize, dim=0)

    def forward(self, x):
        return self.norm(self.act(x))


def c_repros11_module_made_holding_functionals(x):
    m = _GeluHolder()
    return m(x), m.act is F.gelu, hasattr(m, "_buffers")


# -- compile/disable in frame, typing helpers -------------------------------------------------------------
def _gn(x, c=None):
    if c is None:
        c = 2
    return c * x


def c_repros11_torch_compile_called_inside(x):
    return torch.compile(_gn, backend="eager")(x) + 1


class _Hinted:
    a: int
    b: torch.Tensor


def c_repros11_get_type_hints(x):
    hints = typing.get_type_hints(_Hinted, include_extras=True)
    return torch.sin(x) + len(hints), sorted(hints)


class _Pixel(typing.TypedDict):
    kind: str
    data: torch.Tensor


def c_repros11_typed_dict_update_and_get(x):
    obj = _Pixel(kind="pixels", data=x)
    out = obj["data"] * 2
    obj.update(data=3)
    return out * obj["data"], obj.get("missing", 1), dict(obj) == {"kind": "pixels", "data": 3}


class _Explicit(str, enum.Enum):  # noqa: UP042 (the str mixin the repro uses)
    @classmethod
    def _missing_(cls, value):
        for member in cls:
            if member.value == str(value).lower():
                return member
        return None


class _Padding(_Explicit):
    LONGEST = "longest"
    MAX_LENGTH = "max_length"


def c_repros11_str_enum_missing_hook(x):
    a = _Padding("LONGEST")
    b = _Padding("max_length")
    try:
        _Padding("zzz")
        bad = 0
    except ValueError:
        bad = 1
    return (torch.sin(x) if a == _Padding.LONGEST else x) + bad, a.value, b is _Padding.MAX_LENGTH


def c_repros11_listcomp_then_nonlocal_inner(x):
    keys = range(10)
    allowed = [0, 1, 2, 3]
    x = x + 1
    key = [k for k in keys if k in allowed]

    def inner():
        nonlocal key
        key = key[1:]

    inner()
    return x + key[0], key


def c_repros11_del_local_then_read(x):
    y = x + 1
    del y
    try:
        z = y + 1
    except NameError as e:
        z = x * 2 + len(type(e).__name__)
    return z


def c_repros11_nullcontext_and_no_grad_stack(x):
    v = x.clone().requires_grad_(True)
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.nullcontext())
        stack.enter_context(torch.no_grad())
        y = v * 2
    return y.detach(), y.requires_grad


@dataclasses.dataclass
class _Data:
    value: float


class _ModelWithData(nn.Module):
    def __init__(self):
        super().__init__()
        self.my_data = _Data(value=3.5)

    def forward(self, x):
        self.my_data.value += 1
        return x + torch.tensor(self.my_data.value)


def c_repros11_dataclass_attr_mutated_in_forward(x):
    m = _ModelWithData()
    return m(x), m(x), m.my_data


def c_repros11_lr_scheduler_made(x, opt):
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    return x * 2, sched.get_last_lr()


c_repros11_lr_scheduler_made.extra_args = lambda: (torch.optim.SGD(nn.Linear(3, 3).parameters(), lr=0.1),)


def c_repros11_isinstance_against_typing_aliases(x):
    vals = [1, "a", (1,), [x]]
    flags = [isinstance(v, (typing.Sequence, int)) for v in vals]
    return x + sum(flags), flags, isinstance({}, typing.Mapping)


def c_repros11_clone_preserve_format_strides(x):
    t = torch.arange(12.0).reshape(3, 4).t()[::2, ::2]
    y = t.clone()
    z = t.clone(memory_format=torch.preserve_format)
    return y, y.stride(), z.stride(), t.contiguous().stride()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
