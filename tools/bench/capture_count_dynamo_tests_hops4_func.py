"""``torch.func`` forms of ``capture_count_dynamo_tests_hops4.py``, after PyTorch's test/dynamo/
test_autograd_function.py (AutogradFunctionFunctorchTests), test_functions.py (``vmap(Tensor.acos_)``) and
test_higher_order_ops.py: ``vmap`` of functions changing their inputs or their own tensors in place (identity
of what comes back, other ``in_dims``/``out_dims``, ``chunk_size``, a tensor the function closes over), and
``vmap``/``grad`` of custom autograd Functions (``generate_vmap_rule``, a ``vmap`` staticmethod, an unbatched
weight, an old-style Function refused by functorch). Written afresh over one tensor.
"""

from __future__ import annotations

import torch


# -- vmap of in-place functions ---------------------------------------------------------------------------------
def c_h4f_vmap_add_inplace_returns_input(x):
    z = x.reshape(3, 1) + 1
    y = torch.vmap(lambda t: t.add_(1))(z)
    return y is z, z


def c_h4f_vmap_identity_returns_input(x):
    z = x.reshape(3, 1) * 2
    return torch.vmap(lambda t: t)(z) is z, z


def c_h4f_vmap_two_argument_method_inplace(x):
    a = x.reshape(3, 1) + 0.5
    b = torch.ones(3, 1)
    y = torch.vmap(torch.Tensor.add_)(a, b)
    return y is a, a, b


def c_h4f_vmap_inplace_with_unbatched_scalar(x):
    z = x.reshape(3, 1) + 0.5
    y = torch.vmap(lambda t, s: t.mul_(s), in_dims=(0, None))(z, 3.0)
    return y is z, z


def c_h4f_vmap_inplace_and_other_result(x):
    z = x.reshape(3, 1) + 0.25

    def f(t):
        t.add_(1)
        return t.sum() * 2

    s = torch.vmap(f)(z)
    return s, z


def c_h4f_vmap_inplace_on_own_intermediate(x):
    def f(t):
        y = t * 2
        y.add_(1)
        return y.sin_()

    return torch.vmap(f)(x.reshape(3, 1))


def c_h4f_vmap_inplace_other_out_dims(x):
    z = (x.reshape(3, 1) + 1).repeat(1, 2) * 0.1
    y = torch.vmap(torch.Tensor.acos_, in_dims=1, out_dims=0)(z)
    return y is z, y, z


def c_h4f_vmap_inplace_chunked(x):
    z = (x.reshape(3, 1) + 1) * 0.1
    y = torch.vmap(torch.Tensor.asin_, chunk_size=1)(z)
    return y is z, z


def c_h4f_vmap_inplace_on_frame_input(x):
    def f(t):
        t.mul_(3)
        return t.cos()

    return torch.vmap(f)(x), x


def c_h4f_vmap_inplace_on_slice_of_input(x):
    z = torch.stack([x, x + 1])

    def f(t):
        t[0].zero_()
        return t

    y = torch.vmap(f)(z)
    return y is z, z


def c_h4f_vmap_writes_closed_over_tensor(x):
    w = torch.ones(3)

    def f(t):
        w.add_(1)
        return t.sin() * w

    return torch.vmap(f)(x), w


def c_h4f_vmap_nested_inplace(x):
    z = torch.outer(x, x) * 0.1
    y = torch.vmap(torch.vmap(torch.Tensor.tanh_))(z)
    return y is z, z


# -- vmap and grad of custom autograd Functions ---------------------------------------------------------------
class _Double(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(t):
        return t * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def c_h4f_vmap_function_generated_rule(x):
    return torch.vmap(_Double.apply)(x.reshape(3, 1).repeat(1, 2))


class _TimesThreeVmapTimesTwo(torch.autograd.Function):
    @staticmethod
    def forward(t):
        return t * 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 3

    @staticmethod
    def vmap(info, in_dims, t):
        return t * 2, in_dims[0]


def c_h4f_vmap_function_custom_rule(x):
    return torch.vmap(lambda y: _TimesThreeVmapTimesTwo.apply(y))(x.reshape(3, 1))


def c_h4f_vmap_function_custom_rule_requires_grad(x):
    t = x.reshape(3, 1).clone().requires_grad_()
    out = torch.vmap(lambda y: _TimesThreeVmapTimesTwo.apply(y))(t)
    return out.detach(), out.requires_grad


class _AddWeight(torch.autograd.Function):
    @staticmethod
    def forward(t, weight):
        return t + weight * 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output * 3

    @staticmethod
    def vmap(info, in_dims, t, weight):
        return t + weight * 2, in_dims[0]


def c_h4f_vmap_function_unbatched_weight(x):
    weight = torch.full((3,), 0.5)
    return torch.vmap(lambda y: _AddWeight.apply(y, weight))(torch.outer(x, x))


class _ScaleDefault(torch.autograd.Function):
    @staticmethod
    def forward(t, scale=2, bias=1):
        return t * (scale + 1) + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 3, None, None

    @staticmethod
    def vmap(info, in_dims, t, scale, bias):
        return t * scale + bias, in_dims[0]


def c_h4f_vmap_function_binds_default_args(x):
    return torch.vmap(lambda y: _ScaleDefault.apply(y, bias=4))(torch.outer(x, x))


class _NewStyle(torch.autograd.Function):
    @staticmethod
    def forward(t):
        return t * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        (t,) = inputs
        ctx.save_for_backward(t)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


def c_h4f_grad_of_new_style_function(x):
    return torch.func.grad(lambda t: _NewStyle.apply(t).sum())(x)


class _OldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


def c_h4f_grad_of_old_style_function_raises(x):
    try:
        return torch.func.grad(lambda t: _OldStyle.apply(t).sum())(x)
    except RuntimeError:
        return x - 1


class _KeywordOnly(torch.autograd.Function):
    @staticmethod
    def forward(t, *, scale=2):
        return t * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


def c_h4f_grad_of_keyword_only_function_raises(x):
    def inner(t):
        try:
            return _KeywordOnly.apply(t)
        except TypeError:
            return t * 3

    return torch.func.grad(lambda y: inner(y).sum())(x)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
