"""Conformance: tensor operations — torch functions, nn.functional, methods, attributes, indexing, in-place."""

import pytest
import torch
import torch.nn.functional as F
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES


A = torch.randn(4, 5)
B = torch.randn(4, 5)
V = torch.randn(5)
M = torch.randn(5, 3)
IMG = torch.randn(2, 3, 8, 8)
INTS = torch.randint(0, 10, (4, 5))
BOOLS = torch.rand(4, 5) > 0.5


@case(A)
def unary_functions(x):
    return torch.sin(x), torch.cos(x), torch.exp(x), torch.tanh(x), torch.sigmoid(x), torch.abs(x), torch.neg(x)


@case(A)
def more_unary(x):
    y = x.abs() + 0.1
    return torch.log(y), torch.sqrt(y), torch.rsqrt(y), torch.reciprocal(y), torch.floor(x), torch.ceil(x), torch.round(x)


@case(A, B)
def binary_functions(x, y):
    return torch.add(x, y), torch.sub(x, y, alpha=2), torch.mul(x, y), torch.div(x, y), torch.maximum(x, y), torch.minimum(x, y)


@case(A, B)
def ternary_where(x, y):
    return torch.where(x > 0, x, y), torch.clamp(x, -0.5, 0.5), torch.lerp(x, y, 0.3), torch.addcmul(x, x, y, value=0.5)


@case(A)
def reductions(x):
    return x.sum(), x.sum(dim=1), x.mean(0, keepdim=True), x.amax(dim=-1), x.amin(1), x.var(dim=0), x.std(), x.prod(1)


@case(A)
def argmax_max_with_indices(x):
    values, indices = x.max(dim=1)
    m = torch.max(x, 0)
    return values, indices, x.argmax(), m.values, m.indices, x.argmin(dim=0)


@case(A)
def sort_topk(x):
    s = torch.sort(x, dim=1)
    k = torch.topk(x, 2)
    return s.values, s.indices, k[0], k[1]


@case(A)
def cumulative(x):
    return torch.cumsum(x, dim=1), x.cumprod(0), torch.logcumsumexp(x, 1)


@case(A)
def softmax_family(x):
    return F.softmax(x, dim=-1), F.log_softmax(x, dim=1), x.softmax(0), torch.logsumexp(x, dim=1)


@case(A)
def activations(x):
    return F.relu(x), F.gelu(x), F.silu(x), F.leaky_relu(x, 0.1), F.elu(x), F.softplus(x), F.hardtanh(x), torch.relu(x)


@case(A, M)
def matmul_family(x, w):
    return x @ w, torch.mm(x, w), torch.matmul(x, w), x.matmul(w), torch.einsum("ij,jk->ik", x, w)


@case(torch.randn(2, 4, 5), torch.randn(2, 5, 3))
def batched_matmul(x, y):
    return torch.bmm(x, y), x @ y


@case(A, M, torch.randn(3))
def linear_layer_functional(x, w, b):
    return F.linear(x, w.T, b)


@case(A)
def views_and_reshapes(x):
    return x.view(20), x.reshape(5, 4), x.view(-1, 10), x.flatten(), x.unsqueeze(0).squeeze(0), x.T, x.t(), x.permute(1, 0)


@case(torch.randn(2, 3, 4))
def more_views(x):
    return x.transpose(0, 2), x.unflatten(2, (2, 2)), x.movedim(0, -1), x.flatten(1), x.mT, x.expand(2, 2, 3, 4)


@case(A)
def contiguity(x):
    y = x.t().contiguous()
    return y, y.is_contiguous(), x.t().is_contiguous()


@case(A, B)
def cat_stack_split(x, y):
    a = torch.cat([x, y], dim=0)
    b = torch.stack((x, y), dim=1)
    c1, c2 = torch.split(x, [2, 3], dim=1)
    d = x.chunk(2, dim=0)
    return a, b, c1, c2, d[0], d[1], torch.unbind(x, 0)[2]


@case(A)
def indexing(x):
    return x[0], x[1:3], x[:, 2], x[-1, -1], x[::2, ::2], x[..., 1], x[None, :, None].shape, x[[0, 2]]


@case(A, torch.tensor([3, 0, 1]))
def tensor_indexing(x, idx):
    return x[idx], x[:, idx[:2]], x[idx.flip(0)]


@case(A)
def index_setitem(x):
    y = x.clone()
    y[0] = 1.0
    y[:, 1] = y[:, 2]
    y[y < 0] = 0
    return y


@case(A)
def inplace_methods(x):
    y = torch.zeros_like(x)
    y.add_(x).mul_(2).clamp_(max=1.0)
    y.copy_(y * 2)
    return y


@case(A)
def creation_functions(x):
    return (
        torch.zeros(2, 3),
        torch.ones_like(x),
        torch.full((2,), 7.0),
        torch.arange(5),
        torch.linspace(0, 1, 4),
        torch.eye(3),
        torch.empty(2, 2).fill_(3.0),
        x.new_zeros(3),
        torch.tensor([1.0, 2.0]),
    )


@case(A)
def dtype_conversions(x):
    return x.to(torch.float64), x.double(), x.half().float(), x.int(), x.long(), x.bool(), x.type(torch.int32), x.to(dtype=torch.bfloat16)


@case(A, graphs=0)
def tensor_attributes(x):
    return x.shape, x.dtype, x.device, x.ndim, x.dim(), x.size(), x.size(1), x.numel(), x.requires_grad, x.is_floating_point(), x.stride()


@case(A)
def shape_arithmetic(x):
    n, d = x.shape
    return x.view(n * d), x.reshape(x.shape[0] // 2, -1), torch.zeros(x.size(0), 2), x.shape[-1] + 1, x.shape == (4, 5)


@case(A, graphs=0)
def size_ops(x):
    s = x.size()
    return s, s[0], s[1:], s.numel(), len(s), list(s), tuple(s), torch.Size([2, 3])


@case(INTS)
def integer_tensors(x):
    return x + 1, x * 2, x // 3, x % 3, x.float() / 2, x.sum(), x.max(), x & 3, x >> 1


@case(BOOLS, A)
def bool_tensors(m, x):
    return m & ~m, m.any(), m.all(dim=1), x * m, m.sum(), torch.logical_and(m, x > 0), m.float().mean()


@case(A)
def comparisons_methods(x):
    return x.eq(0), x.gt(0.5), x.le(x), torch.isclose(x, x), torch.isnan(x), torch.isfinite(x), x.ne(1)


@case(torch.tensor([1.0, float("nan"), float("inf"), -float("inf")]))
def nan_inf_propagate(x):
    return x + 1, x * 0, torch.exp(x), x.relu(), torch.maximum(x, torch.zeros(4)), x.sum()


@case(IMG)
def conv_pool_functional(x):
    w = torch.ones(4, 3, 3, 3) / 27
    y = F.conv2d(x, w, padding=1)
    return F.max_pool2d(y, 2), F.avg_pool2d(y, 2), F.adaptive_avg_pool2d(y, 1), F.interpolate(y, scale_factor=2.0)


@case(IMG)
def normalization_functional(x):
    return (
        F.layer_norm(x, (8, 8)),
        F.batch_norm(x, torch.zeros(3), torch.ones(3), training=False),
        F.group_norm(x, 1),
        F.normalize(x, dim=1),
    )


@case(torch.randn(2, 4, 6, 8))
def attention_functional(x):
    return F.scaled_dot_product_attention(x, x, x, is_causal=True)


@case(A)
def dropout_eval(x):
    return F.dropout(x, p=0.5, training=False)


@case(torch.randint(0, 10, (3, 4)), torch.randn(10, 6))
def embedding_functional(idx, table):
    return F.embedding(idx, table)


@case(torch.randn(4, 10), torch.randint(0, 10, (4,)))
def losses(logits, target):
    return F.cross_entropy(logits, target), F.nll_loss(F.log_softmax(logits, 1), target), F.mse_loss(logits, logits * 0.5)


@case(A)
def tensor_operators_with_scalars(x):
    return 1 - x, 2 / (x.abs() + 1), 3 ** x.clamp(-1, 1), x.__radd__(1), x % 2, 10 // (x.abs() + 1)


@case(A)
def masked_fill_triu(x):
    mask = torch.triu(torch.ones(4, 5, dtype=torch.bool), diagonal=1)
    return x.masked_fill(mask, float("-inf")), torch.tril(x), x.triu(1)


@case(A)
def gather_scatter(x):
    idx = torch.tensor([[0, 1], [2, 3], [4, 0], [1, 1]])
    return x.gather(1, idx), torch.zeros(4, 5).scatter(1, idx, 1.0), x.index_select(1, torch.tensor([0, 2]))


@case(A)
def repeat_tile_flip(x):
    return x.repeat(2, 1), x.tile((1, 2)), x.flip(0), torch.roll(x, 1, 0), x.repeat_interleave(2, dim=0)


@case(A)
def no_grad_block(x):
    with torch.no_grad():
        y = x * 2
    return y + 1


@case(torch.randn(3, requires_grad=True))
def no_grad_block_requires_grad(x):
    with torch.no_grad():
        y = x * 2
    z = x * 3
    return y, z, y.requires_grad, z.requires_grad


@case(torch.randn(3, requires_grad=True))
def enable_grad_inside_no_grad(x):
    with torch.no_grad():
        with torch.enable_grad():
            a = x * 2
        b = x * 2
    return a, b


@case(torch.randn(3, requires_grad=True))
def set_grad_enabled_block(x):
    with torch.set_grad_enabled(False):
        y = x + 1
    return y, torch.is_grad_enabled()


@case(torch.randn(3, requires_grad=True))
def requires_grad_flows(x):
    y = x.exp() * 2
    return y, y.requires_grad, x.detach() + 1


@case(A)
def torch_functions_with_kwargs(x):
    return torch.sum(x, dim=(0, 1), keepdim=True), torch.mean(input=x), torch.clamp(x, min=0.0), torch.norm(x, p=2, dim=1)


@case(A)
def tensor_new_methods(x):
    return x.new_ones(2), x.new_full((2, 2), 5.0), x.new_tensor([1.0]), torch.empty_like(x).zero_()


@case(torch.randn(2, 3, dtype=torch.float64))
def float64_preserved(x):
    return x * 2, (x + 1).dtype, torch.ones(2, dtype=x.dtype)


@case(A)
def type_promotion(x):
    return x + torch.tensor(1), x * torch.tensor(2, dtype=torch.int64), torch.ones(2, dtype=torch.int32) + 1.5


@case(A)
def tensor_iteration(x):
    return [row.sum() for row in x]


@case(A)
def tensor_unpacking(x):
    a, b, c, d = x
    return a + d, b - c


@case(torch.randn(3, 4))
def linalg_and_misc(x):
    return torch.linalg.norm(x), torch.outer(x[0], x[1]), torch.diag(x[:3, :3]), torch.trace(x[:3, :3]), torch.dot(x[0], x[1])


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_tensor_semantics_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
