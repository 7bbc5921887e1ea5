"""Part of ``capture_count_dynamo_tests_repros3``: dict-of-tensors outputs, nn.Module patterns (containers
indexed and sliced, hooks, buffers registered in forward, parametrizations) and objects with operators, slots,
``__call__`` and ``__setattr__`` overrides, after PyTorch's test/dynamo/test_repros.py.
"""

from __future__ import annotations

import random

import numpy as np
import torch
from torch import nn
from torch.nn.utils import parametrize


# -- dict-of-tensors outputs ---------------------------------------------------------------------------------
def c_r3_dict_of_tensors_built_and_updated(x):
    out = {"base": x}
    out.update(doubled=x * 2, **{"neg": -x})
    out.setdefault("base", x + 100)
    nested = {"stats": {k: v.sum() for k, v in out.items()}, "keys": tuple(out)}
    out.pop("neg")
    return out, nested


def c_r3_dict_comprehension_keyed_by_name(x):
    names = ["a", "b", "c"]
    weights = {n: x[i] * (i + 1) for i, n in enumerate(names)}
    inverted = {v: k for k, v in {"a": 1, "b": 2}.items()}
    return weights, inverted, sorted(weights, reverse=True)


# -- nn.Module patterns --------------------------------------------------------------------------------------
class _Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(4)])
        self.heads = nn.ModuleDict({"a": nn.Identity(), "b": nn.Tanh()})
        self.seq = nn.Sequential(nn.ReLU(), nn.Linear(3, 3), nn.Sigmoid())

    def forward(self, t):
        for layer in self.layers[1:3]:
            t = layer(t)
        t = self.layers[-1](t)
        for name, head in self.heads.items():
            t = head(t) if name == "b" else t
        return self.seq[:2](t) + self.seq[-1](t), len(self.seq[1:])


def _stack_args():
    torch.manual_seed(0)
    return (_Stack(),)


def c_r3_module_containers_indexed_sliced(x, mod):
    return mod(x)


c_r3_module_containers_indexed_sliced.extra_args = _stack_args


class _LazyBuffer(nn.Module):
    def forward(self, t):
        if not hasattr(self, "running"):
            self.register_buffer("running", torch.zeros_like(t))
        self.running.add_(t)
        return t + self.running


def _lazy_buffer_args():
    return (_LazyBuffer(),)


def c_r3_buffer_registered_in_forward(x, mod):
    out = mod(x)
    return out, [n for n, _ in mod.named_buffers()]


c_r3_buffer_registered_in_forward.extra_args = _lazy_buffer_args


class _Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.seen = []
        self.lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        self.lin.register_forward_hook(lambda m, args, out: out + 1)

    def forward(self, t):
        self.seen.append(t.shape[0])
        return self.lin(t)


def _hooked_args():
    torch.manual_seed(0)
    return (_Hooked(),)


def c_r3_module_pre_and_post_hooks(x, mod):
    return mod(x), list(mod.seen)


c_r3_module_pre_and_post_hooks.extra_args = _hooked_args


class _Symmetric(nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


def _param_args():
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", _Symmetric())
    return (lin,)


def c_r3_parametrized_weight_read(x, lin):
    w = lin.weight
    return lin(x), torch.equal(w, w.t())


c_r3_parametrized_weight_read.extra_args = _param_args


class _Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))
        self.mode = "mul"

    def forward(self, t):
        if self.mode == "mul":
            return t * self.scale
        return t + self.scale


def _gate_args():
    return (_Gate(),)


def c_r3_module_attr_flipped_between_calls(x, mod):
    a = mod(x)
    mod.mode = "add"
    b = mod(x)
    mod.mode = "mul"
    return a, b


c_r3_module_attr_flipped_between_calls.extra_args = _gate_args


def c_r3_module_made_in_frame_state_dict(x):
    seq = nn.Sequential(nn.Linear(3, 2, bias=False), nn.Flatten(0))
    with torch.no_grad():
        seq[0].weight.fill_(0.5)
    sd = seq.state_dict()
    return seq(x), list(sd), sd["0.weight"].shape


def c_r3_module_apply_and_children(x):
    net = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.1)
            nn.init.zeros_(m.bias)

    net.apply(init)
    kinds = [type(c).__name__ for c in net.children()]
    return net(x), kinds, sum(p.numel() for p in net.parameters())


# -- more objects: slots, operators, __call__, __setattr__ overrides -------------------------------------------
class _Vec:
    __slots__ = ("t", "w")

    def __init__(self, t, w=1):
        self.t = t
        self.w = w

    def __add__(self, other):
        if isinstance(other, _Vec):
            return _Vec(self.t + other.t, self.w + other.w)
        return _Vec(self.t + other, self.w)

    __radd__ = __add__

    def __iadd__(self, other):
        self.t = self.t + other
        self.w += 1
        return self

    def __len__(self):
        return self.t.shape[0]

    def __bool__(self):
        return self.w > 0


def c_r3_slots_operators_radd_iadd(x):
    v = _Vec(x)
    u = 1 + v + _Vec(x, 2)
    u += 3
    total = sum([_Vec(x), _Vec(x)], _Vec(x * 0, 0))
    return u.t, u.w, total.t, len(u), bool(_Vec(x, 0)), hasattr(v, "__dict__")


class _Frozen:
    def __init__(self, **kw):
        for k, v in kw.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"{name} is read-only")


def c_r3_setattr_override_raises(x):
    f = _Frozen(scale=3)
    try:
        f.scale = 4
        msg = ""
    except AttributeError as e:
        msg = str(e)
    return x * f.scale, msg


class _Affine:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __call__(self, t, *, inverse=False):
        return (t - self.b) / self.a if inverse else t * self.a + self.b

    def __repr__(self):
        return f"Affine({self.a}, {self.b})"


def c_r3_callable_object_and_repr(x):
    f = _Affine(2.0, 1.0)
    y = f(x)
    return f(y, inverse=True), repr(f), callable(f), str([f])


class _Registry:
    items = {}

    @classmethod
    def register(cls, name):
        def deco(fn):
            cls.items[name] = fn
            return fn

        return deco

    @staticmethod
    def norm(t):
        return t / (t.abs().max() + 1)


def c_r3_classmethod_registry_decorator(x):
    _Registry.items = {}

    @_Registry.register("double")
    def double(t):
        return t * 2

    @_Registry.register("neg")
    def neg(t):
        return -t

    out = x
    for name in sorted(_Registry.items):
        out = _Registry.items[name](out)
    return _Registry().norm(out), sorted(_Registry.items)


class _Seq:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i

    def __contains__(self, v):
        return v in (0, 1, 4, 9)


def c_r3_getitem_protocol_iteration(x):
    s = _Seq(4)
    squares = list(s)
    return x + sum(squares), 4 in s, 5 in s, squares, list(reversed(range(3)))


class _Key:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, _Key) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


def c_r3_user_hash_eq_dict_keys(x):
    d = {_Key("a"): x, _Key("b"): x * 2}
    d[_Key("a")] = d[_Key("a")] + 10
    return d[_Key("a")], len(d), _Key("b") in d, len({_Key("c"), _Key("c")})


# -- more tensor metadata -----------------------------------------------------------------------------------
def c_r3_tensor_predicates_and_type_string(x):
    y = x.to(torch.int64)
    flags = (x.is_floating_point(), y.is_floating_point(), x.is_complex(), x.is_leaf, x.grad_fn is None,
             x.dim(), x.nelement(), y.type(), x.type(), x.dtype.itemsize, x.is_signed())
    return x + flags[5], flags


def c_r3_finfo_iinfo_from_dtype(x):
    eps = torch.finfo(x.dtype).eps
    big = torch.iinfo(torch.int32).max
    tiny = torch.finfo(torch.float16).tiny
    return x.clamp(min=eps) + (big > 2**30) + tiny, torch.finfo(x.dtype).bits


def c_r3_size_methods(x):
    s = x.reshape(1, 3, 1).shape
    return x + s.count(1) + s.index(3) + len(s), s.numel(), list(s), tuple(reversed(s)), s[-1], max(s)


def c_r3_view_chain_metadata(x):
    y = x.reshape(3, 1).expand(3, 4).t()
    return y.shape, y.stride(), y.is_contiguous(), y.contiguous().is_contiguous(), y.unsqueeze(1).stride(), y.mT.shape


# -- more in-place on views -----------------------------------------------------------------------------------
def c_r3_inplace_through_unsqueeze_and_transpose(x):
    base = torch.zeros(3, 2) + x.unsqueeze(1)
    base.t()[0].mul_(2)
    base.unsqueeze(0)[0, :, 1].sub_(1)
    base.view(-1)[::3].fill_(7)
    return base


def c_r3_index_put_and_masked_inplace(x):
    y = x.clone()
    y[y > 0] *= 3
    y[[0, 2]] += torch.tensor([10.0, 20.0])
    y.masked_fill_(y > 20, -1)
    y.index_add_(0, torch.tensor([1]), torch.tensor([5.0]))
    return y


# -- more dtype promotion ----------------------------------------------------------------------------------
def c_r3_promotion_bool_and_uint8(x):
    b = x > 0
    u = x.to(torch.uint8)
    return [(t.dtype, t) for t in (b + b, b * 2, b + 0.5, u - 1, u * -1, b & (x < 2), torch.where(b, x, 0),
                                   torch.where(b, 1, 0), u.sum(), b.sum())]


def c_r3_promotion_division_kinds(x):
    i = x.long() + 1
    return [(t.dtype, t) for t in (i / i, i // 2, i % 2, i ** 2, i ** 0.5, 2 ** i, -i // 2, i.true_divide(2),
                                   torch.div(i, 2, rounding_mode="floor"))]


# -- more grad mode ---------------------------------------------------------------------------------------
def c_r3_set_grad_enabled_function_form(x):
    w = x.clone().requires_grad_()
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    a = w * 2
    torch.set_grad_enabled(prev)
    b = w * 2
    return a.requires_grad, b.requires_grad, torch.is_grad_enabled(), a, b.detach()


def c_r3_requires_grad_inside_no_grad(x):
    with torch.no_grad():
        w = x.clone().requires_grad_(True)
        y = w * 3
    z = w * 3
    return w.requires_grad, y.requires_grad, z.requires_grad, y, z.detach()


def c_r3_grad_of_made_leaf(x):
    w = x.clone().requires_grad_(True)
    loss = (w * w).sum()
    (g,) = torch.autograd.grad(loss, [w])
    return g, loss.detach()


# -- more numpy --------------------------------------------------------------------------------------------
def c_r3_numpy_roundtrip_ops(x):
    a = x.numpy()
    b = np.clip(a * 2 - 1, 0, 3)
    c = torch.from_numpy(b) + x
    return c, float(b.sum()), b.dtype.name


def c_r3_numpy_dtype_mapping(x):
    dt = np.dtype("float32")
    y = torch.as_tensor(np.ones(3, dtype=dt)) * x
    return y, str(dt), np.float32 == dt.type


# -- more random -------------------------------------------------------------------------------------------
def c_r3_random_getstate_setstate_replay(x):
    state = random.getstate()
    a = random.random()
    random.setstate(state)
    b = random.random()
    return x * a - x * b, a == b


def c_r3_seeded_random_sample_choices(x):
    rng = random.Random(11)
    parts = [x, x + 1, x * 2, x - 1]
    two = rng.sample(parts, 2)
    picks = rng.choices(parts, weights=[4, 3, 2, 1], k=3)
    return torch.stack(two).sum(0) + torch.stack(picks).sum(0), rng.randint(0, 9)


# -- more dict outputs -------------------------------------------------------------------------------------
def c_r3_ordereddict_and_defaultdict_outputs(x):
    from collections import OrderedDict, defaultdict

    od = OrderedDict()
    od["z"] = x
    od["a"] = x + 1
    od.move_to_end("z")
    groups = defaultdict(list)
    for i in range(3):
        groups[i % 2].append(x[i])
    return od, dict(groups), list(od.keys())


def c_r3_dict_merge_operators(x):
    a = {"x": x, "n": 1}
    b = {"n": 2, "y": x * 2}
    merged = a | b
    a |= {"z": x - 1}
    return merged, a, {**b, "n": 3}


# -- more nn.Module patterns -------------------------------------------------------------------------------
class _Grow(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3)])
        self.params = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.full((3,), 2.0))])

    def forward(self, t):
        for p in self.params[::-1]:
            t = t * p
        for i, blk in enumerate(self.blocks):
            t = blk(t) + i
        return t, len(self.params), isinstance(self.params[0], nn.Parameter)


def _grow_args():
    torch.manual_seed(0)
    return (_Grow(),)


def c_r3_parameter_list_reversed_slice(x, mod):
    return mod(x)


c_r3_parameter_list_reversed_slice.extra_args = _grow_args


class _Swap(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()

    def forward(self, t):
        a = self.act(t - 1)
        self.act = nn.Tanh()
        return a + self.act(t)


def c_r3_submodule_replaced_in_forward(x):
    m = _Swap()
    out = m(x)
    return out, type(m.act).__name__


def _tree_args():
    torch.manual_seed(0)
    tree = nn.Sequential(nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Linear(3, 2))
    return (tree,)


def c_r3_get_submodule_and_named_modules(x, tree):
    inner = tree.get_submodule("0.0")
    bias = tree.get_parameter("1.bias")
    names = [n for n, m in tree.named_modules() if isinstance(m, nn.Linear)]
    return inner(x) + 1, tree(x) + bias, names


c_r3_get_submodule_and_named_modules.extra_args = _tree_args


class _NonPersistent(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((3,), 2.0), persistent=False)
        self.register_buffer("shift", torch.ones(3))

    def forward(self, t):
        return t * self.scale + self.shift


def c_r3_non_persistent_buffer_state_dict(x):
    m = _NonPersistent()
    return m(x), list(m.state_dict()), [n for n, _ in m.named_buffers()]


def _kw_hook_args():
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    lin.register_forward_pre_hook(lambda m, args, kwargs: (args, {**kwargs}), with_kwargs=True)
    lin.register_forward_hook(lambda m, args, kwargs, out: out * 2, with_kwargs=True)
    return (lin,)


def c_r3_hooks_with_kwargs(x, lin):
    return lin(x)


c_r3_hooks_with_kwargs.extra_args = _kw_hook_args


def c_r3_train_eval_toggle_dropout_identity(x):
    net = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    net.eval()
    out = net(x)
    flags = [m.training for m in net.modules()]
    net.train()
    return out, flags, net.training


def _weight_norm_args():
    torch.manual_seed(0)
    lin = torch.nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
    return (lin,)


def c_r3_weight_norm_parametrization(x, lin):
    return lin(x), lin.parametrizations.weight.original0.shape


c_r3_weight_norm_parametrization.extra_args = _weight_norm_args


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
