"""Torch helpers beside Paddle's SOT test_16_paddle_api and test_dtype for ``capture_count.py --only
paddle12``: dtype promotion queries, shape broadcasting helpers, tensors made from Python values built in the
frame, distributions, ``torch.autograd.grad`` and gradient hooks inside the frame.
"""

from __future__ import annotations

import torch


def c_p12t_dtype_promotion_queries(x):
    return (torch.promote_types(torch.int32, torch.float16), torch.result_type(x, 2),
            torch.can_cast(torch.float32, torch.int32), torch.is_tensor(x), torch.is_floating_point(x),
            torch.numel(x), x.to(torch.promote_types(x.dtype, torch.float64)))


def c_p12t_broadcast_shapes_and_expand(x):
    shape = torch.broadcast_shapes((3,), (2, 1))
    return x.expand(shape), shape, torch.broadcast_tensors(x, x.reshape(3, 1))[1].shape


def c_p12t_tensors_from_python_values(x):
    vals = []
    for i in range(3):
        vals.append(i * 0.5)
    a = torch.tensor(vals)
    b = x.new_tensor([1, 2, 3])
    c = torch.as_tensor((4.0, 5.0, 6.0))
    d = torch.full((len(vals),), float(len(vals)))
    return a + b + c + d + x, b.dtype


def c_p12t_normal_distribution_log_prob(x):
    dist = torch.distributions.Normal(torch.zeros(3), torch.ones(3))
    return dist.log_prob(x), dist.mean, dist.stddev


def c_p12t_autograd_grad_in_frame(x):
    w = x.detach().requires_grad_()
    y = (w * w).sum()
    (g,) = torch.autograd.grad(y, w)
    return g, y.detach()


def c_p12t_func_grad_in_frame(x):
    return torch.func.grad(lambda v: (v.sin() * v).sum())(x)


def c_p12t_init_on_made_parameter(x):
    p = torch.nn.Parameter(torch.empty(3))
    torch.nn.init.constant_(p, 0.5)
    torch.nn.init.zeros_(p[:1])
    return x * p, isinstance(p, torch.nn.Parameter)


def c_p12t_clone_detach_and_flags(x):
    w = torch.ones(3, requires_grad=True)
    y = w * x
    d = y.detach()
    c = y.clone()
    return d.requires_grad, c.requires_grad, c.grad_fn is not None, d + c


def c_p12t_scalar_tensor_arithmetic_with_python(x):
    s = torch.tensor(2.0)
    return x * s + 1, s * 3, 3 - s, -s, s ** 2, abs(-s)


def c_p12t_index_put_and_masked_ops(x):
    y = x.clone()
    y[x > 0] = -1.0
    z = x.masked_fill(x < 1, 9.0)
    idx = torch.tensor([0, 2])
    w = x.index_put((idx,), torch.tensor([7.0, 8.0]))
    return y, z, w, x.where(x > 1, torch.zeros_like(x))


def c_p12t_einsum_and_tensordot(x):
    m = torch.outer(x, x + 1)
    return torch.einsum("ij,j->i", m, x), torch.tensordot(m, m, dims=1).trace(), torch.einsum("ii", m)


def c_p12t_sort_topk_unique(x):
    y = torch.cat([x, x.flip(0)])
    vals, idx = y.sort(descending=True)
    top = y.topk(2)
    return vals, idx, top.values, top.indices, torch.unique(y, sorted=True)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
