"""Dynamo's repro and higher-order-op tests, rebuilt in our own words, one small program each, for
``capture_count.py``: nn.Module patterns (module lists, parameter dicts, hooks, buffers, ``__getattr__``
overrides, properties, class attributes), tensor methods and attributes, ``torch.Size`` arithmetic,
``isinstance``/``type`` checks, dataclasses, namedtuples, ``functools.partial``, closures and ``nonlocal``,
``*args``/``**kwargs`` forwarding, string formatting, NumPy interop, in-place ops on views, ``torch.no_grad``
in methods, ``copy.deepcopy``, ``getattr`` with a default, global mutation, recursion; and ``torch.cond``,
``map``, ``wrap``, ``checkpoint`` and ``torch.func`` transforms with closures, nested calls and side
effects in their bodies.

A construct that takes more than ``x`` names the rest in ``extra_args`` (made afresh for each run).
"""

from __future__ import annotations

import abc
import collections
import copy
import dataclasses
import enum
import functools
import io
import itertools
import math
import typing

import numpy as np
import torch
import torch.utils.checkpoint
from torch._higher_order_ops.wrap import wrap

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


# -- higher-order ops ----------------------------------------------------------------------------------
def c_wrap_closure(x):
    k = x.sum()
    outer = x * 2

    def body(t):
        return t + k + outer

    return wrap(body, x)


def c_wrap_nested_kwargs(x):
    def inner(t, *, scale):
        return t * scale

    def outer(t):
        return wrap(functools.partial(inner, scale=2.0), t) + 1

    return wrap(outer, x)


def c_wrap_pytree_output(x):
    def body(t):
        return {"a": t.sin(), "b": (t.cos(), [t + 1])}

    out = wrap(body, x)
    return out["a"] + out["b"][0] + out["b"][1][0]


def c_wrap_side_effect_list(x):
    seen = []

    def body(t):
        seen.append(t.shape[0])
        return t * 2

    return wrap(body, x) + len(seen), seen


def c_wrap_print_in_body(x):
    def body(t):
        print("inside", file=_SINK)
        return t * 2

    return wrap(body, x) + 1


def c_cond_closures(x):
    w = torch.ones(3)

    def true_fn(t):
        return t.sin() + w

    def false_fn(t):
        return t.cos() - w

    return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


def c_cond_tuple_outputs_nested(x):
    def inner_true(t):
        return t * 2

    def inner_false(t):
        return t * 3

    def true_fn(t):
        return torch.cond(t.mean() > 1, inner_true, inner_false, (t,)), t + 1

    def false_fn(t):
        return t - 1, t.clone()

    a, b = torch.cond(x.shape[0] > 2, true_fn, false_fn, (x,))
    return a + b


def c_cond_module_branch(x):
    lin = _SEQ[0]

    def true_fn(t):
        return lin(t).sum(0, keepdim=True).repeat(4)

    def false_fn(t):
        return t.new_zeros(4)

    return torch.cond(x.max() > 1, true_fn, false_fn, (x,))


def c_map_over_rows(x):
    from functorch.experimental.control_flow import map as cf_map

    xs = x.reshape(3, 1).expand(3, 2).contiguous()
    bias = torch.ones(2)

    def body(row, b):
        return row * 2 + b

    return cf_map(body, xs, bias)


def c_checkpoint(x):
    lin = _SEQ[0]

    def block(t):
        return torch.relu(lin(t)) * 2

    return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False).sum() + x


def c_func_grad_closure(x):
    w = x * 0 + 2

    def loss(t):
        return (t * w).sin().sum()

    g = torch.func.grad(loss)(x)
    value, g2 = torch.func.grad_and_value(loss)(x)
    return g + g2 + value


def c_func_vmap_closure(x):
    bias = torch.arange(2.0)

    def row(t):
        return t.sum() + bias

    out = torch.func.vmap(row)(x.reshape(3, 1))
    nested = torch.func.vmap(torch.func.vmap(torch.mul, in_dims=(0, None)), in_dims=(None, 0))(x, x)
    return out.sum(1) + nested.sum(0), torch.func.vmap(lambda t: t * 2, in_dims=0, out_dims=0)(x)


def c_func_jacrev_jvp_vjp(x):
    def f(t):
        return t.sin() * 2

    jac = torch.func.jacrev(f)(x)
    _, tangent = torch.func.jvp(f, (x,), (torch.ones(3),))
    _, vjp_fn = torch.func.vjp(f, x)
    (cot,) = vjp_fn(torch.ones(3))
    return jac.sum(0) + tangent + cot


def c_func_functional_call(x):
    lin = _SEQ[0]
    params = {k: v * 2 for k, v in lin.named_parameters()}
    return torch.func.functional_call(lin, params, (x,))


def c_func_grad_side_effect(x):
    log = []

    def loss(t):
        log.append(1)
        return (t * t).sum()

    return torch.func.grad(loss)(x), len(log)


def c_autograd_function(x):
    class _Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2 + t * 0

    return _Twice.apply(x) + _SEQ_TWICE.apply(x)


class _SeqTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t.clone() * 3

    @staticmethod
    def backward(ctx, g):
        return g * 3


_SEQ_TWICE = _SeqTwice


CONSTRUCTS = [c_module_list_dict, c_parameter_dict_buffers, c_module_getattr_property_classattr, c_module_hooks,
              c_sequential_subclass, c_no_grad_method_buffer_update, c_module_args_kwargs_forwarding,
              c_module_named_children_modules, c_module_deepcopy, c_module_training_flag,
              c_tensor_attributes, c_size_arithmetic, c_isinstance_type_checks, c_inplace_on_views,
              c_tensor_setitem_mask, c_tensor_item_branch, c_tensor_dtype_conversions, c_tensor_tolist_numpy,
              c_numpy_interop, c_requires_grad_backward_detach, c_dataclass_construct_fields, c_dataclass_output,
              c_namedtuple_ops, c_functools_partial, c_closure_nonlocal, c_closures_made_in_loop,
              c_args_kwargs_forwarding, c_string_formatting, c_global_mutation, c_recursion,
              c_getattr_default_hasattr, c_enum_dispatch, c_deepcopy_containers, c_dict_kwargs_build_map,
              c_list_comprehension_tensors, c_tuple_unpack_star, c_classmethod_staticmethod,
              c_user_object_dunders, c_min_max_builtins_on_shapes, c_print_break,
              c_wrap_closure, c_wrap_nested_kwargs, c_wrap_pytree_output, c_wrap_side_effect_list,
              c_wrap_print_in_body, c_cond_closures, c_cond_tuple_outputs_nested, c_cond_module_branch,
              c_map_over_rows, c_checkpoint, c_func_grad_closure, c_func_vmap_closure, c_func_jacrev_jvp_vjp,
              c_func_functional_call, c_func_grad_side_effect, c_autograd_function]


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


CONSTRUCTS += [c_module_attr_mutation_getattr_fstring, c_module_super_forward, c_shape_comparisons_asserts,
               c_compiling_checks, c_grad_mode_contexts, c_masked_fill_where, c_new_tensor_factories,
               c_contextlib_nullcontext, c_user_object_setitem_setattr, c_functools_wraps_decorator,
               c_sorted_dict_items_zip, c_interpolate_from_shape, c_abc_subclass, c_chain_parameters_sum,
               c_id_identity_checks, c_list_of_tensors_mutation, c_tensor_hook_grad]


# -- more higher-order ops -------------------------------------------------------------------------------
def c_vmap_in_dims_out_dims(x):
    m = x.reshape(3, 1).expand(3, 2).contiguous()

    def pair(row, scale, *, shift):
        return row * scale + shift, row.sum()

    a, b = torch.func.vmap(pair, in_dims=(0, None), out_dims=(1, 0))(m, 2.0, shift=1.0)
    chunked = torch.func.vmap(torch.sin, chunk_size=2)(m)
    return a.sum(0) + b + chunked.sum(1)


def c_grad_has_aux_argnums(x):
    def loss(a, b):
        out = (a * b).sum()
        return out, {"aux": out.detach() * 2}

    (ga, gb), aux = torch.func.grad(loss, argnums=(0, 1), has_aux=True)(x, x + 1)
    return ga + gb + aux["aux"]


def c_jacfwd_hessian(x):
    def f(t):
        return (t ** 3).sum()

    return torch.func.hessian(f)(x).sum(0) + torch.func.jacfwd(torch.sin)(x).diagonal()


def c_cond_in_loop(x):
    def up(t):
        return t + 1

    def down(t):
        return t - 1

    for i in range(3):
        x = torch.cond(x.sum() > i, up, down, (x,))
    return x


def c_while_loop(x):
    from torch._higher_order_ops.while_loop import while_loop

    def cond_fn(i, t):
        return i < 3

    def body_fn(i, t):
        return i + 1, t * 2

    _, out = while_loop(cond_fn, body_fn, (torch.tensor(0), x))
    return out


def c_checkpoint_module_kwargs(x):
    block = _SEQ

    def run(t, *, scale):
        return block(t) * scale

    return torch.utils.checkpoint.checkpoint(run, x, scale=2.0, use_reentrant=False)


class _ScaleFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, factor, name):
        ctx.factor = factor
        ctx.name = name
        out = t * factor
        mask = t > 0
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(t)
        return out, mask

    @staticmethod
    def backward(ctx, g, g_mask):
        (t,) = ctx.saved_tensors
        return g * ctx.factor + t * 0, None, None


def c_autograd_function_nontensor_args(x):
    out, mask = _ScaleFn.apply(x, 3.0, "scale")
    return out + mask


def c_wrap_in_loop_with_closure(x):
    acc = x
    for k in range(3):
        def body(t, k=k):
            return t * (k + 1) + acc  # noqa: B023 (called at once)

        acc = wrap(body, acc)
    return acc


def c_functional_call_buffers(x):
    m = _NORM_MODULE
    state = {name: t.clone() for name, t in m.named_buffers()}
    state.update({name: p * 2 for name, p in m.named_parameters()})
    return torch.func.functional_call(m, state, (x.reshape(1, 3),))


_NORM_MODULE = torch.nn.BatchNorm1d(3).eval()


CONSTRUCTS += [c_vmap_in_dims_out_dims, c_grad_has_aux_argnums, c_jacfwd_hessian, c_cond_in_loop, c_while_loop,
               c_checkpoint_module_kwargs, c_autograd_function_nontensor_args, c_wrap_in_loop_with_closure,
               c_functional_call_buffers]
