"""autograd.Function, cond/map/while_loop and checkpoint forms modelled on PyTorch's test/dynamo/
test_autograd_function.py and test_higher_order_ops.py, for ``capture_count.py --only dynamo_tests_hops2``:
``setup_context``, ``save_for_backward`` (twice, or with non-tensors on ``ctx``), ``mark_dirty``,
``mark_non_differentiable``, ``needs_input_grad``, ``once_differentiable``, ``set_materialize_grads``,
non-tensor arguments and outputs, nested functions, classmethod ``apply`` wrappers; ``cond`` with pytrees,
closures, modules and mismatched branches; ``map``/``while_loop`` forms; ``checkpoint`` with tuples, kwargs and
dropout. Where a function's backward is run, the result checks the gradient as well.
"""

from __future__ import annotations

import dataclasses
import enum
import io

import torch
import torch.utils.checkpoint
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop

_SINK = io.StringIO()


class _Mode(enum.Enum):
    DOUBLE = 2
    TRIPLE = 3


# -- autograd.Function ----------------------------------------------------------------------------------------
class _Scale(torch.autograd.Function):
    @staticmethod
    def forward(t, k):
        return t * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


class _SinSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.sin()

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * t.cos()


class _SavedTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a)
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


class _AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        return g


class _SortPair(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        values, idx = t.sort(descending=True)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g, _g_idx):
        (idx,) = ctx.saved_tensors
        return torch.zeros_like(g).index_copy(0, idx, g)


class _NeedsGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.flags = ctx.needs_input_grad
        return a + 2 * b

    @staticmethod
    def backward(ctx, g):
        return (g if ctx.flags[0] else None), (2 * g if ctx.flags[1] else None)


class _Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.exp()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * t.exp()


class _NoMaterialize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.set_materialize_grads(False)
        return t.clone(), t.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        out = torch.zeros(3)
        if g1 is not None:
            out = out + g1
        if g2 is not None:
            out = out + g2
        return out


class _EnumScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, mode, offset=1.0):
        ctx.mode = mode
        return t * mode.value + offset

    @staticmethod
    def backward(ctx, g):
        return g * ctx.mode.value, None, None


class _WithIntOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2, 7

    @staticmethod
    def backward(ctx, g, _unused):
        return g * 2


class _ListInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, parts):
        ctx.n = len(parts)
        return t * sum(parts)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.n, None


class _Outer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return _SinSaved.apply(t) * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class _PrintsInForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        print("forward", file=_SINK)
        return t + 1

    @staticmethod
    def backward(ctx, g):
        return g


class _GradModeInForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * (2.0 if torch.is_grad_enabled() else 3.0)

    @staticmethod
    def backward(ctx, g):
        return g


class _DictArg(torch.autograd.Function):
    @staticmethod
    def forward(ctx, parts):
        return parts["a"] * parts["b"] + parts["k"]

    @staticmethod
    def backward(ctx, g):
        return None


@dataclasses.dataclass
class _Config:
    count: int
    values: torch.Tensor


@dataclasses.dataclass
class _Pair:
    first: torch.Tensor
    second: torch.Tensor


class _Offsets(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = 4
        self.b = torch.full((3,), 0.5)


_CONFIG = _Config(2, torch.tensor([1.0, 2.0, 3.0]))
_OFFSETS = _Offsets()
_PROJ = torch.nn.Linear(3, 3)


class _ReadsObjects(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, cfg, t):
        base = module.a + module.b * cfg.count * cfg.values
        return base + t, cfg.values + t

    @staticmethod
    def backward(ctx, g, g2):
        return None, None, g * 4 + g2


class _ReturnsObject(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return _Pair(a.sin(), b.cos()), a * b

    @staticmethod
    def backward(ctx, g1, g2):
        return g2 * 2, g2 * 3


class _ThroughModule(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, module):
        return module(t)

    @staticmethod
    def backward(ctx, g):
        return g, None


class _Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t

    @staticmethod
    def backward(ctx, g):
        return g


def _grad_of(fn, x):
    leaf = x.clone().requires_grad_()
    out = fn(leaf)
    out.sum().backward()
    return out.detach(), leaf.grad


def c_h2_fn_setup_context(x):
    return _Scale.apply(x, 4.0)


def c_h2_fn_setup_context_backward(x):
    return _grad_of(lambda t: _Scale.apply(t, 4.0), x)


def c_h2_fn_save_for_backward_backward(x):
    return _grad_of(_SinSaved.apply, x)


def c_h2_fn_save_twice(x):
    return _SavedTwice.apply(x, x + 1)


def c_h2_fn_mark_dirty(x):
    y = x.clone()
    out = _AddOneInPlace.apply(y)
    return out, y


def c_h2_fn_mark_non_differentiable(x):
    values, idx = _SortPair.apply(x.clone().requires_grad_())
    return values.detach(), idx, idx.requires_grad


def c_h2_fn_needs_input_grad(x):
    a = x.clone().requires_grad_()
    out = _NeedsGrad.apply(a, x + 1)
    return out.detach(), out.requires_grad


def c_h2_fn_once_differentiable(x):
    return _grad_of(_Once.apply, x)


def c_h2_fn_set_materialize_grads(x):
    a, b = _NoMaterialize.apply(x)
    return a + b


def c_h2_fn_enum_argument(x):
    return _EnumScale.apply(x, _Mode.TRIPLE), _EnumScale.apply(x, _Mode.DOUBLE, 0.5)


def c_h2_fn_int_output(x):
    out, n = _WithIntOutput.apply(x)
    return out + n


def c_h2_fn_list_argument(x):
    return _ListInput.apply(x, [1.0, 2.0, 3.0])


def c_h2_fn_nested_apply(x):
    return _Outer.apply(x)


def c_h2_fn_prints_in_forward(x):
    return _PrintsInForward.apply(x) * 2


def c_h2_fn_grad_mode_in_forward(x):
    return _GradModeInForward.apply(x.clone().requires_grad_()).detach()


def c_h2_fn_dict_argument(x):
    return _DictArg.apply({"a": x, "b": x + 2, "k": 3})


def c_h2_fn_under_no_grad(x):
    with torch.no_grad():
        out = _SinSaved.apply(x.clone().requires_grad_())
    return out, out.requires_grad


def c_h2_fn_alias_of_apply(x):
    f = _SinSaved.apply
    return f(x) + f(x * 2)


def c_h2_fn_module_and_dataclass_args(x):
    y, z = _ReadsObjects.apply(_OFFSETS, _CONFIG, x)
    return x + y + z


def c_h2_fn_module_argument(x):
    return _ThroughModule.apply(x, _PROJ) * 2


def c_h2_fn_dataclass_output(x):
    pair, prod = _ReturnsObject.apply(x, x + 1)
    return pair.first + pair.second + prod


def c_h2_fn_output_is_input(x):
    y = _Identity.apply(x)
    return y.cos() if y is x else y.sin()


# -- cond / map / while_loop ------------------------------------------------------------------------------------
def c_h2_cond_dict_operand(x):
    def t_fn(d):
        return d["a"] + d["b"]

    def f_fn(d):
        return d["a"] - d["b"]

    return torch.cond(x.sum() > 1, t_fn, f_fn, ({"a": x, "b": x * 2},))


def c_h2_cond_closure_over_local(x):
    w = x * 3

    def t_fn(t):
        return t + w

    def f_fn(t):
        return t * w

    return torch.cond(x.sum() < 1, t_fn, f_fn, (x,))


def c_h2_cond_python_bool_pred(x):
    return torch.cond(x.shape[0] == 3, lambda t: t.sin(), lambda t: t.cos(), (x,))


def c_h2_cond_module_branches(x):
    lin = torch.nn.Linear(3, 3)
    torch.nn.init.ones_(lin.weight)
    torch.nn.init.zeros_(lin.bias)
    return torch.cond(x.max() > 1, lambda t: lin(t), lambda t: t * 2, (x,))


def c_h2_cond_mismatched_shapes(x):
    try:
        out = torch.cond(x.sum() > 0, lambda t: t.sum(), lambda t: t, (x,))
        refused = None
    except Exception as e:
        out, refused = x, type(e).__name__
    return out + 1, refused


def c_h2_cond_branch_side_effect(x):
    log = []

    def t_fn(t):
        log.append(1)
        return t + 1

    try:
        out = torch.cond(x.sum() > 0, t_fn, lambda t: t - 1, (x,))
    except Exception:
        out = x
    return out, len(log) > 0


def c_h2_map_tuple_xs(x):
    xs = torch.outer(x, x + 1)
    return hop_map(lambda a, b: a * b, (xs, xs + 1))


def c_h2_map_closure(x):
    xs = torch.outer(x, x + 1)
    w = x + 2
    return hop_map(lambda r: r * w, xs)


def c_h2_while_loop_countdown(x):
    def cond_fn(i, t):
        return i > 0

    def body_fn(i, t):
        return i - 1, t * 2

    i, out = while_loop(cond_fn, body_fn, (torch.tensor(3), x))
    return i, out


def c_h2_while_loop_tensor_predicate(x):
    def cond_fn(t):
        return t.sum() < 20

    def body_fn(t):
        return (t + 1,)

    return while_loop(cond_fn, body_fn, (x,))


# -- checkpoint -----------------------------------------------------------------------------------------------------
def c_h2_checkpoint_tuple_output(x):
    def gn(a):
        return a.sin(), a.cos()

    s, c = torch.utils.checkpoint.checkpoint(gn, x.clone().requires_grad_(), use_reentrant=False)
    return (s + c).detach()


def c_h2_checkpoint_kwargs_to_function(x):
    def gn(a, *, scale):
        return a.exp() * scale

    out = torch.utils.checkpoint.checkpoint(gn, x.clone().requires_grad_(), scale=2.0, use_reentrant=False)
    return out.detach()


def c_h2_checkpoint_dropout_rng(x):
    def gn(a):
        return torch.nn.functional.dropout(a.sin(), p=0.5, training=True)

    torch.manual_seed(3)
    leaf = x.clone().requires_grad_()
    out = torch.utils.checkpoint.checkpoint(gn, leaf, use_reentrant=False)
    out.sum().backward()
    return out.detach(), leaf.grad


def c_h2_checkpoint_backward(x):
    def gn(a, b):
        return (a * b).tanh()

    leaf = x.clone().requires_grad_()
    out = torch.utils.checkpoint.checkpoint(gn, leaf, x + 1, use_reentrant=False)
    out.sum().backward()
    return out.detach(), leaf.grad


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
