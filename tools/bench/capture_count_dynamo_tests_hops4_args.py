"""``apply``'s arguments and ``forward``'s own work, a part of ``capture_count_dynamo_tests_hops4.py`` (PyTorch's
test/dynamo/test_autograd_function.py): keyword arguments bound as ``apply`` binds them, ``setup_context`` with
defaults and ``*args``, instance and classmethod ``apply``, ``custom_fwd``/``custom_bwd``, ``needs_input_grad``
with a ``None`` bias, a parameter and a Python bound, ``out=`` and RNG draws inside ``forward``, ``mark_dirty``
with its output dropped, ``ctx`` keeping tensors, lists and sizes, outputs without grad, and the pieces of
``test_smoke_from_test_autograd``. Written afresh over one tensor.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def _leaf(x):
    return x.clone().requires_grad_()


# -- apply's arguments ---------------------------------------------------------------------------------------
class _KwargSin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, factor=1):
        ctx.save_for_backward(t)
        ctx.factor = factor
        return factor * torch.sin(t)

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * ctx.factor * torch.cos(t), None


def c_h4_fn_apply_keyword_old_style(x):
    return _KwargSin.apply(x, factor=6), _KwargSin.apply(x)


class _KwargScale(torch.autograd.Function):
    @staticmethod
    def forward(t, factor=1):
        return factor * t

    @staticmethod
    def setup_context(ctx, inputs, output):
        t, factor = inputs
        ctx.save_for_backward(t)
        ctx.factor = factor

    @staticmethod
    def backward(ctx, g):
        return g * ctx.factor, None


def c_h4_fn_apply_keyword_setup_context(x):
    return _KwargScale.apply(x, factor=3), _KwargScale.apply(t=x)


class _AllKeywords(torch.autograd.Function):
    @staticmethod
    def forward(t, u):
        return t + 2 * u

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g, g * 2


def c_h4_fn_apply_all_keywords(x):
    return _AllKeywords.apply(u=x, t=x * 3)


class _ScaleDefault(torch.autograd.Function):
    @staticmethod
    def forward(t, scale=2, bias=1):
        return t * scale + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.scale = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None, None


def c_h4_fn_setup_context_default_and_keyword(x):
    return _ScaleDefault.apply(x, bias=4), _ScaleDefault.apply(x, 3)


class _VarArgs(torch.autograd.Function):
    @staticmethod
    def forward(t, *rest):
        return t + sum(rest)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.count = len(inputs)

    @staticmethod
    def backward(ctx, g):
        return (g,) * ctx.count


def c_h4_fn_setup_context_varargs(x):
    return _VarArgs.apply(x, x * 2, x * 3)


class _Custom1(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        return foo + foo

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def c_h4_fn_apply_on_an_instance(x):
    return _Custom1().apply(x), _Custom1.apply(x) * 2


class _Shake(torch.autograd.Function):
    @classmethod
    def forward(cls, ctx, foo):
        return foo + foo

    @classmethod
    def backward(cls, ctx, grad_output):
        return grad_output


def c_h4_fn_classmethod_forward(x):
    return _Shake.apply(_leaf(x)).detach()


class _AmpMM(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu")
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.mm(b)

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad.mm(b.t()), a.t().mm(grad)


def c_h4_fn_amp_custom_fwd_bwd(x):
    a = x.reshape(3, 1)
    return _AmpMM.apply(a, a.t() + 1)


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(inp, weight, bias):
        output = inp.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        inp, weight, bias = inputs
        ctx.save_for_backward(inp, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        inp, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(inp)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


def c_h4_fn_linear_setup_context_no_bias(x):
    inp = x.reshape(1, 3)
    return _Linear.apply(inp, torch.ones(2, 3), None), _Linear.apply(inp, torch.ones(2, 3), torch.ones(2))


class _LowerBound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inputs, bound):
        ctx.save_for_backward(inputs, inputs.new_ones(1) * bound)
        return inputs.clamp(min=bound)

    @staticmethod
    def backward(ctx, grad_output):
        inputs, bound = ctx.saved_tensors
        return (inputs >= bound) * grad_output, None


class _Gamma(nn.Module):
    def __init__(self):
        super().__init__()
        self.gamma = nn.Parameter(torch.linspace(0.0, 2.0, 3))

    def forward(self, x):
        return x + _LowerBound.apply(self.gamma, 1)


_GAMMA = _Gamma()


def c_h4_fn_parameter_with_bound(x):
    out = _GAMMA(x)
    return out.detach(), out.requires_grad


# -- forward's own work ---------------------------------------------------------------------------------------
class _ExpOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inputs):
        torch.exp(inputs, out=inputs)
        return inputs

    @staticmethod
    def backward(ctx, grad_output):
        return None


def c_h4_fn_out_argument_in_forward(x):
    t = _leaf(x)
    u = t.clone()
    return _ExpOut.apply(u).detach(), u.detach()


class _Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        result = t**3
        dx = 3 * t**2
        ctx.save_for_backward(t, dx)
        return result, dx

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        t, dx = ctx.saved_tensors
        return (grad_output * dx + grad_dx * 6 * t) * 0.5


def c_h4_fn_applied_twice_on_its_output(x):
    t, _ = _Cube.apply(_leaf(x))
    t, _ = _Cube.apply(t)
    return t.detach(), t.requires_grad


class _SavesRandom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, shape):
        ctx.save_for_backward(torch.randn(shape))
        return t + 1

    @staticmethod
    def backward(ctx, grad_output):
        (noise,) = ctx.saved_tensors
        return noise, None


def c_h4_fn_draws_random_in_forward(x):
    out = _SavesRandom.apply(x, (3,))
    return out, torch.randn(2)


class _TimesThreeInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.mul_(3)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


def c_h4_fn_mark_dirty_output_dropped(x):
    y = torch.ones(3, 3) @ _leaf(x)
    _TimesThreeInPlace.apply(y)
    return y.sum().detach(), y.requires_grad


class _Stash(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.x0 = t
        ctx.x1 = [1, 2, 3]
        ctx.size0 = t.size(0)
        return t * 2

    @staticmethod
    def backward(ctx, grad_out):
        out = grad_out * ctx.x0
        for i in ctx.x1:
            out = (out * i) + out
        return out * ctx.size0


def c_h4_fn_ctx_keeps_tensor_list_and_size(x):
    out = _Stash.apply(_leaf(x))
    return out.detach(), out.requires_grad


class _IntOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, u):
        out1 = t.sin()
        out2 = out1.to(dtype=torch.int)
        return out1, out2

    @staticmethod
    def backward(ctx, grad1, grad2):
        return grad1.cos(), grad1 * 0.0


def c_h4_fn_integer_output_has_no_grad(x):
    a, b = _IntOutput.apply(_leaf(x), _leaf(x))
    return a.detach(), b, a.requires_grad, b.requires_grad


class _ThreeMarked(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, u, v):
        out1, out2, out3 = t.sin(), u * 2, v + 3
        ctx.mark_non_differentiable(out2, out3)
        return out1, out2, out3

    @staticmethod
    def backward(ctx, grad1, grad2, grad3):
        return grad1.cos(), grad2, grad3


def c_h4_fn_two_outputs_non_differentiable(x):
    outs = _ThreeMarked.apply(_leaf(x), _leaf(x), _leaf(x))
    return [o.detach() for o in outs], [o.requires_grad for o in outs]


class _SaveAndMark(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        with torch.no_grad():
            ctx.save_for_backward(t)
            ctx.mark_non_differentiable(t)
            return t

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def c_h4_fn_input_saved_and_marked(x):
    out = _SaveAndMark.apply(x)
    return out, out is x, out.requires_grad


class _Add(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b + a + b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * (b + 1), grad_output * (a + 1)


def c_h4_fn_same_input_twice(x):
    t = _leaf(x)
    out = _Add.apply(t, t)
    return out.detach(), out.requires_grad


# -- test_smoke_from_test_autograd ------------------------------------------------------------------------------
class _Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        y = t**2
        ctx.save_for_backward(t, y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        t, _ = ctx.saved_tensors
        return grad_output * 2 * t


class _Double2(_Double):
    @staticmethod
    def backward(ctx, grad_output):
        t, y = ctx.saved_tensors
        return grad_output * 2 * y / t


class _Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a, a + b

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        return grad_a + grad_b, grad_b


class _ViewAs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.view_as(inp)

    @staticmethod
    def backward(ctx, grad):
        return grad


class _Adder(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        a.add_(b)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class _ViewPlusTwo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, inplace):
        view = inp.clone()[:2]
        if inplace:
            view += 2
        return view

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def c_h4_fn_smoke_from_test_autograd(x):
    t = _leaf(x)
    a = _Double.apply(t)
    b = _Double2.apply(t)
    c, d = _Identity.apply(t, x * 2)
    e = _ViewAs.apply(x)
    f = _Adder.apply(t.clone(), t)
    g = _ViewPlusTwo.apply(t, True)
    h = _ViewPlusTwo.apply(t, False)
    return [v.detach() for v in (a, b, c, d, e, f, g, h)], [v.requires_grad for v in (a, b, c, d, e, f, g, h)]


def c_h4_fn_stride_and_sqrt_in_backward(x):
    class _SaveResult(torch.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            result = foo + foo
            result = result + foo
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * math.sqrt(result.numel()) * grad_output.stride()[-1]

    out = _SaveResult.apply(_leaf(x))
    return out.detach(), out.requires_grad


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
