"""Dynamo's repro tests rebuilt in our own words, for ``capture_count.py`` (``--only repros`` runs them with
``capture_count_repros.py``'s): Python idioms around tensors (dataclasses, namedtuples, ``functools.partial``,
closures and ``nonlocal``, ``*args``/``**kwargs`` forwarding, string formatting, global mutation, recursion,
``getattr`` defaults, enums, ``copy``, class and static methods, identity checks, grad-mode contexts...).
"""

from __future__ import annotations

import abc
import collections
import copy
import dataclasses
import enum
import functools
import itertools
import math
import typing

import torch
from capture_count_repros import _GATED, _SEQ, _SINK, _STACK


# -- Python idioms -------------------------------------------------------------------------------
@dataclasses.dataclass
class _Config:
    hidden: int = 3
    scale: float = 2.0
    names: list = dataclasses.field(default_factory=list)


def c_dataclass_construct_fields(x):
    cfg = _Config(scale=0.5)
    cfg.names.append("a")
    parts = [f.name for f in dataclasses.fields(cfg)]
    return x * cfg.scale + cfg.hidden + len(parts) + len(cfg.names), dataclasses.asdict(cfg)


@dataclasses.dataclass
class _Out:
    logits: torch.Tensor
    loss: torch.Tensor | None = None


def c_dataclass_output(x):
    out = _Out(logits=x * 2)
    if out.loss is None:
        out.loss = out.logits.sum()
    return out.logits + out.loss, dataclasses.astuple(out), out == out


_Pair = collections.namedtuple("_Pair", ["first", "second"])


class _Typed(typing.NamedTuple):
    a: torch.Tensor
    b: int = 4


def c_namedtuple_ops(x):
    p = _Pair(x, x * 2)
    first, second = p
    t = _Typed(x)
    q = p._replace(second=t.a + t.b)
    return first + second + q.second + p[0] + len(p._fields), type(q)(*q), t


def _scaled(v, factor, *, shift=0):
    return v * factor + shift


def c_functools_partial(x):
    double = functools.partial(_scaled, factor=2)
    shifted = functools.partial(double, shift=1)
    return shifted(x) + double(x, shift=3) + functools.partial(torch.add, alpha=2)(x, x)


def c_closure_nonlocal(x):
    count = 0

    def bump(t):
        nonlocal count
        count += 1
        return t + count

    y = bump(bump(x))
    return y * count, count


def _make_adder(k):
    def add(t):
        return t + k

    return add


def c_closures_made_in_loop(x):
    fns = [_make_adder(k) for k in range(3)]
    fns += [lambda t, k=k: t * k for k in range(1, 3)]
    out = x
    for f in fns:
        out = f(out)
    return out


def _forward_all(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def c_args_kwargs_forwarding(x):
    args = (x, x + 1)
    kwargs = {"alpha": 3}
    return _forward_all(torch.add, *args, **kwargs) + _forward_all(_scaled, x, 2, **{"shift": 1})


def c_string_formatting(x):
    name = "layer%d" % 2  # noqa: UP031
    key = f"{name}.{'weight'}:{x.shape[0]:03d}"
    label = "{}-{}".format(name, x.dim())  # noqa: UP032
    if key.startswith("layer2") and "weight" in key.split(".")[1]:
        x = x + len(key) + len(label)
    return x, key, label.upper(), ", ".join(str(v) for v in (1, 2))


_STATE = {"calls": 0}
_COUNTER = 0


def c_global_mutation(x):
    global _COUNTER
    _COUNTER += 1
    _STATE["calls"] += 1
    _STATE["last"] = 2
    return x + _COUNTER * 0 + _STATE["last"]


def _depth_sum(t, n):
    if n == 0:
        return t
    return _depth_sum(t + n, n - 1)


def c_recursion(x):
    return _depth_sum(x, 4)


def c_getattr_default_hasattr(x):
    out = x
    if hasattr(x, "grad") and getattr(x, "grad", None) is None:
        out = out + 1
    out = out + getattr(_GATED, "not_there", 5) + getattr(torch.nn.functional, "silu")(x)  # noqa: B009
    return out + (2 if hasattr(_STACK, "layers") else 0) + (4 if hasattr(_STACK, "nope") else 0)


class _Mode(enum.Enum):
    SUM = 1
    MEAN = 2


def c_enum_dispatch(x, mode=_Mode.MEAN):
    if mode == _Mode.SUM:
        return x.sum()
    if mode is _Mode.MEAN and mode.value == 2:
        return x.mean() + len(_Mode)
    return x


def c_deepcopy_containers(x):
    spec = {"dims": [1, 2], "name": "a"}
    other = copy.deepcopy(spec)
    other["dims"].append(3)
    return x + len(spec["dims"]) + len(other["dims"]), copy.copy(spec)


def c_dict_kwargs_build_map(x):
    d1 = dict(a=1)
    d2 = {"b": 2}
    merged = {**d1, **d2, "c": 3}
    return _scaled(x, **{"factor": merged["a"], "shift": merged["b"] + merged["c"]}), merged


def c_list_comprehension_tensors(x):
    parts = [x[i] * i for i in range(x.shape[0])]
    stacked = torch.stack(parts)
    chunks = list(torch.chunk(x, 3))
    return stacked + torch.cat(chunks[::-1]) + sum(c.sum() for c in chunks)


def c_tuple_unpack_star(x):
    a, *rest = x.unbind(0)
    first, (second, third) = a, rest
    return first + second * third, len(rest)


class _Registry:
    handlers = {}

    @classmethod
    def register(cls, name):
        def deco(fn):
            cls.handlers[name] = fn
            return fn

        return deco

    @staticmethod
    def scale(t):
        return t * 3


@_Registry.register("double")
def _double(t):
    return t * 2


def c_classmethod_staticmethod(x):
    return _Registry.handlers["double"](x) + _Registry.scale(x) + _Registry().scale(x)


class _Acc:
    def __init__(self):
        self.items = []

    def __len__(self):
        return len(self.items)

    def __call__(self, t):
        self.items.append(t)
        return t + len(self)

    def __contains__(self, t):
        return any(t is i for i in self.items)


def c_user_object_dunders(x):
    acc = _Acc()
    y = acc(x)
    y = acc(y)
    return y, len(acc), x in acc


def c_min_max_builtins_on_shapes(x):
    y = x.reshape(3, 1)
    n = max(y.shape) + min(y.shape[0], 2) + abs(-y.shape[1]) + round(2.6) + int(3.9) + pow(2, 2)
    return x * n + divmod(7, 2)[0], any([False, y.shape[0] > 2]), all(s > 0 for s in y.shape)


def c_print_break(x):
    y = x + 1
    print("value", y.shape, file=_SINK)
    return y * 2


# -- more repro idioms ---------------------------------------------------------------------------------
class _Counted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer0 = torch.nn.Linear(3, 3)
        self.layer1 = torch.nn.Linear(3, 3)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        for i in range(2):
            x = getattr(self, f"layer{i}")(x)
        if self.training:
            x = x * 2
        return x + type(self).__name__.count("C")


def c_module_attr_mutation_getattr_fstring(x):
    return _COUNTED(x)


_COUNTED = _Counted()


class _Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x)


class _Derived(_Base):
    def forward(self, x):
        y = super().forward(x)
        return y + _Base.forward(self, x) * 0.5


_DERIVED = _Derived()


def c_module_super_forward(x):
    return _DERIVED(x)


def c_shape_comparisons_asserts(x):
    assert x.shape == (3,), "bad shape"
    assert x.dim() == 1
    torch._assert(x.shape[0] == 3, "three")
    if x.size() == torch.Size([3]) and x.shape[-1] % 3 == 0 and list(x.shape) == [3]:
        x = x * 2
    return x.reshape(-1, x.shape[-1] // 3) / math.sqrt(x.shape[-1])


def c_compiling_checks(x):
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        return x
    out = x + 1
    return out + torch.is_tensor(x) + torch.is_floating_point(x) + torch.is_grad_enabled()


def c_grad_mode_contexts(x):
    with torch.no_grad():
        a = x * 2
        with torch.enable_grad():
            b = x * 3
    with torch.set_grad_enabled(False):
        c = x + 1
    return a + b + c, torch.is_grad_enabled()


def c_masked_fill_where(x):
    mask = x > 0.5
    y = x.masked_fill(mask, float("-inf"))
    z = torch.where(mask, x, torch.zeros_like(x))
    return y.softmax(-1) + z + torch.finfo(x.dtype).eps


def c_new_tensor_factories(x):
    a = x.new_tensor([1.0, 2.0, 3.0])
    b = torch.tensor([x.shape[0], 1], dtype=torch.float32).sum()
    c = torch.full_like(x, 2) + torch.ones(x.shape, device=x.device, dtype=x.dtype)
    return a + b + c + torch.arange(x.shape[0]).to(x)


def c_contextlib_nullcontext(x):
    import contextlib

    with contextlib.nullcontext():
        y = x + 1
    ctx = torch.no_grad() if x.shape[0] > 5 else contextlib.nullcontext()
    with ctx:
        return y * 2


class _Keyed:
    def __init__(self):
        self.store = {}

    def __setitem__(self, key, value):
        self.store[key] = value

    def __getitem__(self, key):
        return self.store[key]


def c_user_object_setitem_setattr(x):
    k = _Keyed()
    k["a"] = x + 1
    setattr(k, "extra", x * 2)  # noqa: B010
    return k["a"] + k.extra + len(vars(k))


def _decorate(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs) + 1

    return inner


@_decorate
def _decorated(t):
    return t * 2


def c_functools_wraps_decorator(x):
    return _decorated(x), _decorated.__name__, _decorated.__wrapped__(x)


def c_sorted_dict_items_zip(x):
    weights = {"b": 2.0, "a": 1.0}
    out = x
    for (k, v), i in zip(sorted(weights.items()), range(5)):
        out = out + v * i + len(k)
    return out, list(reversed(sorted(weights)))


def c_interpolate_from_shape(x):
    img = x.reshape(1, 1, 3)
    up = torch.nn.functional.interpolate(img, size=img.shape[-1] * 2, mode="linear", align_corners=False)
    return up.flatten() + up.shape[-1]


class _Abstract(abc.ABC):
    @abc.abstractmethod
    def apply(self, t):
        ...


class _Concrete(_Abstract):
    def apply(self, t):
        return t * 4


def c_abc_subclass(x):
    obj = _Concrete()
    return obj.apply(x) + isinstance(obj, _Abstract)


def c_chain_parameters_sum(x):
    total = sum(p.sum() for p in itertools.chain(_SEQ[0].parameters(), _SEQ[2].parameters()))
    return x + total.detach()


def c_id_identity_checks(x):
    y = x
    z = x.clone()
    return x + (y is x) + 2 * (z is x) + 4 * (id(y) == id(x))


def c_list_of_tensors_mutation(x):
    acc = []
    for i in range(3):
        acc.append(x * i)
    acc.insert(0, x)
    acc.pop()
    acc[0] = acc[0] + 10
    acc.extend([x.sum().unsqueeze(0).expand(3)])
    return torch.stack(acc).sum(0), len(acc)


def c_tensor_hook_grad(x):
    w = torch.ones(3, requires_grad=True)
    y = (x * w).sum()
    return y.detach() + 1, y.requires_grad


def c_random_leaf_between_draws(x):
    noise = torch.randn(3)
    w = torch.randn(3, requires_grad=True)  # drawn between the other two, as eager draws it
    y = (x * w + noise + torch.rand(3)).sum()
    return w.detach(), w.is_leaf, y.detach(), y.requires_grad


CONSTRUCTS = [c_dataclass_construct_fields, c_dataclass_output, c_namedtuple_ops, c_functools_partial,
              c_closure_nonlocal, c_closures_made_in_loop, c_args_kwargs_forwarding, c_string_formatting,
              c_global_mutation, c_recursion, c_getattr_default_hasattr, c_enum_dispatch, c_deepcopy_containers,
              c_dict_kwargs_build_map, c_list_comprehension_tensors, c_tuple_unpack_star, c_classmethod_staticmethod,
              c_user_object_dunders, c_min_max_builtins_on_shapes, c_print_break,
              c_module_attr_mutation_getattr_fstring, c_module_super_forward, c_shape_comparisons_asserts,
              c_compiling_checks, c_grad_mode_contexts, c_masked_fill_where, c_new_tensor_factories,
              c_contextlib_nullcontext, c_user_object_setitem_setattr, c_functools_wraps_decorator,
              c_sorted_dict_items_zip, c_interpolate_from_shape, c_abc_subclass, c_chain_parameters_sum,
              c_id_identity_checks, c_list_of_tensors_mutation, c_tensor_hook_grad,
              c_random_leaf_between_draws]
