"""Part of ``capture_count_dynamo_tests_repros3``: singledispatch, cmp_to_key, the operator module, enums,
typing protocols, dataclass fields, string formatting, module attribute patterns, wrappers delegating to a
tensor, class counters, iteration helpers, sizes and grad modes, after PyTorch's test/dynamo/test_repros.py.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import random

import torch
from capture_count_dynamo_tests_repros3 import _Span
from torch import nn


# -- batch three: dispatch helpers, operator module, enums, typing -----------------------------------------
@functools.singledispatch
def _describe(v):
    return "other"


@_describe.register
def _(v: int):
    return "int"


@_describe.register(torch.Tensor)
def _(v):
    return "tensor"


def c_r3_singledispatch_on_kinds(x):
    kinds = [_describe(v) for v in (1, x, "s")]
    return x + len(kinds[1]), kinds


def c_r3_cmp_to_key_sort(x):
    def by_len_then_alpha(a, b):
        return (len(a) - len(b)) or ((a > b) - (a < b))

    words = sorted(["ccc", "a", "bb", "ab"], key=functools.cmp_to_key(by_len_then_alpha))
    return x * len(words[-1]), words


def c_r3_operator_getters(x):
    rows = [{"w": 2, "b": 1}, {"w": 3, "b": 0}]
    ws = list(map(operator.itemgetter("w"), rows))
    s = _Span(0, 2)
    width = operator.attrgetter("stop")(s)
    up = operator.methodcaller("upper")("ab")
    return x * sum(ws) + width, ws, up, operator.itemgetter(0, 2)(x.tolist())


def c_r3_enum_flag_combination(x):
    import enum

    class Mode(enum.Flag):
        READ = 1
        WRITE = 2
        EXEC = 4

    m = Mode.READ | Mode.WRITE
    out = x
    if Mode.WRITE in m:
        out = out * 2
    if not (m & Mode.EXEC):
        out = out + 1
    return out, m.value, Mode(3) == m, [f.name for f in Mode if f in m]


def c_r3_intenum_arithmetic_index(x):
    import enum

    class Axis(enum.IntEnum):
        ROW = 0
        COL = 1

    m = x.reshape(1, 3)
    return m.sum(Axis.COL), m.shape[Axis.ROW], Axis.COL + 1, int(Axis.ROW), Axis(1).name


def c_r3_runtime_checkable_protocol(x):
    from typing import Protocol, runtime_checkable

    @runtime_checkable
    class Scales(Protocol):
        def scale(self, t): ...

    class Doubler:
        def scale(self, t):
            return t * 2

    objs = [Doubler(), object()]
    out = x
    for o in objs:
        if isinstance(o, Scales):
            out = o.scale(out)
    return out, [isinstance(o, Scales) for o in objs]


def c_r3_dataclass_init_false_replace_asdict(x):
    @dataclasses.dataclass
    class Box:
        lo: float
        hi: float
        width: float = dataclasses.field(init=False)

        def __post_init__(self):
            self.width = self.hi - self.lo

    b = Box(1.0, 4.0)
    c = dataclasses.replace(b, hi=6.0)
    return x.clamp(b.lo, c.hi) * c.width, dataclasses.asdict(c), b == Box(1.0, 4.0)


def c_r3_dataclass_holding_tensors_asdict(x):
    @dataclasses.dataclass
    class Out:
        logits: torch.Tensor
        extras: dict

    o = Out(x * 2, {"aux": x + 1, "n": 3})
    d = dataclasses.asdict(o)
    return d["logits"] + d["extras"]["aux"], sorted(d), d["extras"]["n"]


def c_r3_percent_and_format_map(x):
    info = {"n": x.numel(), "kind": str(x.dtype).split(".")[-1]}
    a = "%(n)d items of %(kind)s" % info  # noqa: UP031 - %-formatting is the construct
    b = "{n:03d}-{kind!r}".format_map(info)
    c = f"{[7, 8][1]}|{(2 + 3j).real}"
    return x + len(a), a, b, c


def c_r3_str_join_on_shapes_and_ljust(x):
    s = "x".join(str(d) for d in x.reshape(1, 3).shape)
    row = "|".join(f"{v:>4}" for v in ("a", "bb"))
    return x + len(s), s, row, "ab".ljust(5, "."), "ab".rjust(5), s.partition("x")


# -- batch three: module patterns -------------------------------------------------------------------------
class _AttrModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self._alias = {"proj": "lin"}

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            alias = self.__dict__["_alias"].get(name)
            if alias is None:
                raise
            return super().__getattr__(alias)

    def forward(self, t):
        return self.proj(t) + self.lin.bias


def _attr_module_args():
    torch.manual_seed(0)
    return (_AttrModule(),)


def c_r3_module_getattr_override_alias(x, mod):
    return mod(x), hasattr(mod, "missing")


c_r3_module_getattr_override_alias.extra_args = _attr_module_args


class _Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))
        self._temp = 1.0

    @property
    def temperature(self):
        return self._temp

    @temperature.setter
    def temperature(self, v):
        self._temp = max(v, 0.1)

    def forward(self, t):
        self.temperature = self.temperature * 0.5
        return t * self.w / self.temperature


def c_r3_module_property_setter_in_forward(x):
    m = _Scaled()
    a = m(x)
    b = m(x)
    return a, b, m.temperature


def c_r3_module_hook_handle_removed(x):
    lin = nn.Linear(3, 3)
    calls = []
    h = lin.register_forward_hook(lambda m, i, o: calls.append(o.shape[-1]))
    a = lin(x)
    h.remove()
    b = lin(x)
    return a, b, calls, len(lin._forward_hooks)


def c_r3_add_module_in_forward(x):
    class Lazy(nn.Module):
        def forward(self, t):
            if "head" not in self._modules:
                self.add_module("head", nn.Identity())
            return self.head(t) + 1

    m = Lazy()
    return m(x), list(dict(m.named_children()))


def c_r3_module_requires_grad_toggle(x):
    lin = nn.Linear(3, 2)
    lin.requires_grad_(False)
    y = lin(x)
    flags = [p.requires_grad for p in lin.parameters()]
    lin.weight.requires_grad_(True)
    z = lin(x)
    return y.requires_grad, z.requires_grad, flags


def c_r3_named_parameters_prefix_and_count(x):
    net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1, bias=False))
    names = [n for n, _ in net.named_parameters(prefix="net")]
    total = sum(p.numel() for p in net.parameters() if p.requires_grad)
    return net(x), names, total, net[1].__class__.__name__


def c_r3_moduledict_update_and_pop(x):
    md = nn.ModuleDict({"a": nn.ReLU()})
    md.update({"b": nn.Tanh(), "c": nn.Sigmoid()})
    md.pop("a")
    out = x
    for k in md:
        out = md[k](out)
    return out, list(md.keys()), "a" in md


def c_r3_sequential_append_insert_in_frame(x):
    seq = nn.Sequential(nn.Linear(3, 3))
    seq.append(nn.ReLU())
    seq.insert(0, nn.Identity())
    return seq(x), [type(m).__name__ for m in seq], len(seq)


# -- batch four: wrappers, class counters, iteration helpers -------------------------------------------------
class _TensorBox:
    """Delegates attribute reads it lacks to the tensor it wraps."""

    def __init__(self, t):
        self.t = t

    def __getattr__(self, name):
        return getattr(self.t, name)

    def __add__(self, other):
        return _TensorBox(self.t + (other.t if isinstance(other, _TensorBox) else other))


def c_r3_getattr_delegates_to_tensor(x):
    b = _TensorBox(x) + 1
    return b.t, b.shape, b.dtype, b.sum(), b.ndim, b.unsqueeze(0).shape


class _Counted(nn.Module):
    instances = 0

    def __init__(self):
        super().__init__()
        type(self).instances += 1
        self.idx = type(self).instances

    def forward(self, t):
        return t * self.idx


def c_r3_class_counter_in_module_init(x):
    _Counted.instances = 0
    a, b = _Counted(), _Counted()
    return a(x) + b(x), _Counted.instances


class _Base:
    @property
    def label(self):
        return "base"

    def scale(self, t):
        return t


class _Child(_Base):
    @property
    def label(self):
        return "child/" + super().label

    def scale(self, t):
        return super().scale(t) * 2


def c_r3_property_super_chain(x):
    c = _Child()
    return c.scale(x), c.label, _Base.label.fget(c), type(c).__mro__[1].__name__


class _Opts:
    def set(self, name, value):
        setattr(self, name, value)
        return self

    set_lr = functools.partialmethod(set, "lr")


def c_r3_partialmethod(x):
    o = _Opts().set_lr(0.5).set("wd", 0.1)
    return x * o.lr + o.wd, vars(o)


def c_r3_update_wrapper_manual(x):
    def base(t):
        """Base doc."""
        return t + 1

    def wrapper(t):
        return base(t) * 2

    functools.update_wrapper(wrapper, base)
    return wrapper(x), wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ is base


def c_r3_zip_strict_map_filter_enumerate(x):
    rows = list(map(lambda a, b: a * b, [1, 2, 3], (4, 5, 6)))
    kept = list(filter(None, [0, 1, "", "a", None, 2]))
    idx = [i for i, _ in enumerate("abc", start=10)]
    try:
        list(zip([1, 2], [1], strict=True))
        err = ""
    except ValueError as e:
        err = type(e).__name__
    return x + sum(rows), kept, idx, err


def c_r3_islice_generator_of_tensors(x):
    def powers(t):
        p = t
        while True:
            yield p
            p = p * t

    first = list(itertools.islice(powers(x), 3))
    return torch.stack(first), len(first)


def c_r3_sorted_by_shape_key(x):
    ts = [x.reshape(3, 1), x, x.reshape(1, 1, 3)]
    by_dim = sorted(ts, key=lambda t: (t.dim(), t.shape))
    return [t.shape for t in by_dim], by_dim[0] + 1, min(ts, key=lambda t: t.numel() + t.dim()).shape


# -- batch four: sizes, views, grad modes -------------------------------------------------------------------
def c_r3_size_as_dict_key_and_compare(x):
    s = x.reshape(1, 3).shape
    table = {s: "row", torch.Size([3, 1]): "col"}
    return x + len(table), table[torch.Size([1, 3])], s < (2,), s == (1, 3), s.__class__.__name__, hash(s) == hash((1, 3))


def c_r3_new_tensor_and_unfold(x):
    y = x.new_tensor([1.0, 2.0, 3.0, 4.0])
    w = y.unfold(0, 2, 1)
    return w, w.stride(), w.shape, y.new_ones(2).dtype


def c_r3_inplace_on_ellipsis_none_index(x):
    m = x.repeat(2, 1).clone()
    m[..., None][0].mul_(3)
    m[1, ...] = m[0] - 1
    m.T[0] += 100
    return m


def c_r3_no_grad_decorated_module_method(x):
    class Tracker(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("ema", torch.zeros(3))
            self.w = nn.Parameter(torch.ones(3))

        @torch.no_grad()
        def update(self, t):
            self.ema.mul_(0.5).add_(t * self.w)
            return (t * self.w).requires_grad

        def forward(self, t):
            flag = self.update(t)
            return t * self.w + self.ema, flag

    m = Tracker()
    out, flag = m(x)
    return out, flag, out.requires_grad, m.ema


def c_r3_inference_mode_false_inside_no_grad(x):
    w = x.clone().requires_grad_()
    with torch.no_grad():
        with torch.enable_grad():
            a = w * 2
        with torch.inference_mode(mode=False):
            b = w * 2
    return a.requires_grad, b.requires_grad, torch.is_grad_enabled(), a.detach() + b.detach()


def c_r3_random_seed_then_torch_draws(x):
    random.seed(5)
    k = random.randint(1, 3)
    torch.manual_seed(k)
    return x + torch.rand(3), k


# -- batch four: containers and modules ---------------------------------------------------------------------
def c_r3_chainmap_lookup_layers(x):
    from collections import ChainMap

    defaults = {"scale": 1.0, "shift": 0.0}
    user = {"scale": 3.0}
    cfg = ChainMap(user, defaults)
    cfg["shift"] = 2.0
    return x * cfg["scale"] + cfg["shift"], dict(cfg), len(cfg.maps), defaults["shift"]


def c_r3_dict_keys_set_operations(x):
    a = {"w": x, "b": x + 1, "extra": 0}
    b = {"w": 1, "b": 2}
    common = a.keys() & b.keys()
    only = a.keys() - b.keys()
    return sum(a[k] for k in sorted(common)), sorted(only), a.keys() >= b.keys(), list(reversed(a))


def c_r3_sequential_ordereddict_named(x):
    from collections import OrderedDict

    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(3, 2)), ("act", nn.ReLU())]))
    with torch.no_grad():
        seq.fc.weight.fill_(0.25)
        seq.fc.bias.zero_()
    return seq(x), seq.fc.out_features, list(seq._modules), seq[-1] is seq.act


def c_r3_modulelist_extend_iadd_in_frame(x):
    ml = nn.ModuleList([nn.Identity()])
    ml.extend([nn.ReLU(), nn.Tanh()])
    ml += [nn.Sigmoid()]
    out = x - 1
    for m in ml:
        out = m(out)
    return out, len(ml), [type(m).__name__ for m in ml[1::2]]


def c_r3_register_parameter_lazily(x):
    class LazyScale(nn.Module):
        def forward(self, t):
            if getattr(self, "scale", None) is None:
                self.register_parameter("scale", nn.Parameter(torch.full_like(t, 2.0)))
            return t * self.scale

    m = LazyScale()
    return m(x), [n for n, _ in m.named_parameters()]


def c_r3_module_repr_string(x):
    lin = nn.Linear(3, 2, bias=False)
    text = repr(lin)
    return x + len(text), text, lin.extra_repr()


def c_r3_flatten_unflatten_modules(x):
    m = nn.Sequential(nn.Unflatten(0, (1, 3)), nn.Flatten(0, 1))
    return m(x), m[0].unflattened_size


def c_r3_forward_default_tensor_and_kwargs(x):
    class Mix(nn.Module):
        def forward(self, t, *, gain=2.0, bias=None):
            out = t * gain
            return out if bias is None else out + bias

    m = Mix()
    return m(x), m(x, gain=0.5, bias=x), m.forward(x, bias=1.0)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
