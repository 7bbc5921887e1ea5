"""Conformance: the torch.nn layers people use, shape arithmetic, dtypes and devices, and common idioms."""

import math

import pytest
import torch
import torch.nn.functional as F
from harness import CaseRegistry, check
from torch import nn

CASES = CaseRegistry(default_graphs=None)
case = CASES


X = torch.randn(2, 8)
SEQ = torch.randn(2, 5, 8)
IMG = torch.randn(2, 3, 8, 8)


def layer_case(module, *inputs, train=False, graphs=1):
    module.train(train)

    def run(m, *xs):
        return m(*xs)

    run.__name__ = f"layer_{type(module).__name__.lower()}{'_train' if train else ''}"
    CASES.add(run, (module, *inputs), {}, graphs)


torch.manual_seed(0)
layer_case(nn.Linear(8, 4), X)
layer_case(nn.Bilinear(8, 8, 3), X, X)
layer_case(nn.Conv1d(5, 4, 3, padding=1), SEQ)
layer_case(nn.Conv2d(3, 4, 3, stride=2, padding=1, groups=1), IMG)
layer_case(nn.ConvTranspose2d(3, 2, 2, stride=2), IMG)
layer_case(nn.MaxPool2d(2), IMG)
layer_case(nn.AvgPool2d(2, stride=1), IMG)
layer_case(nn.AdaptiveAvgPool2d((2, 2)), IMG)
layer_case(nn.BatchNorm2d(3), IMG, train=True)
layer_case(nn.BatchNorm1d(8), X, train=False)
layer_case(nn.LayerNorm([8]), SEQ)
layer_case(nn.GroupNorm(1, 3), IMG)
layer_case(nn.InstanceNorm2d(3), IMG)
layer_case(nn.Dropout(0.0), X, train=True)
layer_case(nn.Embedding(10, 4), torch.tensor([[1, 2], [3, 9]]))
layer_case(nn.EmbeddingBag(10, 4, mode="mean"), torch.tensor([[1, 2], [3, 9]]))
layer_case(nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2), nn.Softmax(dim=-1)), X)
layer_case(nn.Flatten(), IMG)
layer_case(nn.Unflatten(1, (2, 4)), X)
layer_case(nn.Identity(), X, graphs=0)
layer_case(nn.PReLU(), X)
layer_case(nn.Hardswish(), X)
layer_case(nn.Mish(), X)
layer_case(nn.ELU(), X)
layer_case(nn.PixelShuffle(2), torch.randn(1, 8, 3, 3))
layer_case(nn.Upsample(scale_factor=2, mode="nearest"), IMG)
layer_case(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True, dropout=0.0), SEQ)
layer_case(nn.RMSNorm(8), SEQ)
layer_case(nn.CosineSimilarity(dim=1), X, X + 1)
layer_case(nn.CrossEntropyLoss(), torch.randn(4, 5), torch.tensor([0, 1, 2, 3]))


@case(X)
def shape_arithmetic_for_views(x):
    b, d = x.shape
    heads = 2
    y = x.view(b, heads, d // heads).transpose(0, 1)
    return y.reshape(heads, -1), y.size(-1) * heads == d


@case(SEQ)
def positional_arange_from_shape(x):
    positions = torch.arange(x.shape[1], dtype=x.dtype)
    return x + positions[None, :, None] / x.size(1)


@case(SEQ)
def causal_mask_from_size(x):
    t = x.size(1)
    mask = torch.ones(t, t).tril().bool()
    scores = x @ x.transpose(1, 2)
    return scores.masked_fill(~mask, -math.inf).softmax(-1)


@case(X)
def dtype_comparisons_and_promotion(x):
    half = x.to(torch.float16)
    return x.dtype == torch.float32, half.dtype is torch.float16, torch.promote_types(half.dtype, x.dtype), half.float() + x


@case(X)
def device_handling(x):
    y = torch.zeros(2, device=x.device, dtype=x.dtype)
    return x.to(x.device), y, x.device.type == "cpu", x.is_cuda


@case(X)
def finfo_and_iinfo(x):
    eps = torch.finfo(x.dtype).eps
    big = torch.iinfo(torch.int32).max
    return x.clamp(min=eps), big


@case(X)
def where_with_scalars(x):
    return torch.where(x > 0, x, 0.0), torch.where(x > 0, 1, -1)


@case(X)
def einsum_variants(x):
    return torch.einsum("bi,bi->b", x, x), torch.einsum("bi,bj->bij", x, x).sum(), torch.einsum("ii->", x[:, :2])


@case(X)
def cat_in_a_loop(x):
    parts = []
    for i in range(3):
        parts.append(x * i)
    return torch.cat(parts, dim=1)


@case(X)
def stack_of_generator(x):
    return torch.stack([row * 2 for row in x]), torch.stack(tuple(x.unbind(1)), dim=0)


@case(SEQ)
def chained_advanced_indexing(x):
    return x[:, None, ..., 0], x[..., ::2], x[0, 1:, -1], x[:, [0, 2]]


@case(X)
def scatter_and_gather_functional(x):
    idx = torch.argsort(x, dim=1)
    return torch.gather(x, 1, idx), torch.zeros_like(x).scatter_add(1, idx, x)


@case(X)
def functional_with_many_kwargs(x):
    return (
        F.normalize(x, p=2.0, dim=1, eps=1e-6),
        F.pad(x, (1, 2), mode="constant", value=0.5),
        F.interpolate(x[None], size=16, mode="linear", align_corners=False),
        F.one_hot(torch.tensor([0, 2]), num_classes=3),
    )


@case(X)
def reduction_keepdim_and_dims(x):
    return x.sum(dim=(0, 1), keepdim=True), x.mean(-1), x.std(0, unbiased=False), x.var(correction=0), x.norm(dim=1)


@case(X)
def sort_unique_consecutive_free(x):
    values, order = x.sort(dim=1, descending=True)
    return values, order, torch.argsort(order, dim=1), x.topk(3, largest=False).values


@case(X)
def type_as_and_view_as(x):
    y = torch.ones(16).view_as(x).type_as(x)
    return y, x.expand_as(y), x.reshape_as(y)


@case(X)
def inplace_chains_on_fresh_tensor(x):
    y = torch.empty_like(x).copy_(x)
    y.mul_(2).add_(1).clamp_(-1, 1).neg_()
    y[:, 0].zero_()
    return y


@case(X)
def clone_detach_contiguous(x):
    return x.clone(), x.detach(), x.t().contiguous().is_contiguous(), x.clone(memory_format=torch.contiguous_format)


@case(X)
def tensor_from_python_values(x):
    t = torch.tensor([x.shape[0], x.shape[1]])
    return x.sum() * t.sum(), torch.as_tensor([1.0, 2.0]) + 1, torch.full(x.shape, 2.0)


@case(X)
def complex_tensors(x):
    c = torch.complex(x, x * 2)
    return c.real, c.imag, c.abs(), torch.view_as_real(c)


@case(X)
def integer_division_semantics(x):
    i = (x * 10).long()
    return i // 3, torch.div(i, 3, rounding_mode="floor"), torch.div(i, 3, rounding_mode="trunc"), i % -3


@case(X)
def boolean_mask_arithmetic(x):
    m = x > 0
    return m.sum(), m.float().mean(), (m & ~m).any(), m.logical_xor(x < 0), x * m


@case(X)
def math_functions_on_shapes(x):
    scale = 1 / math.sqrt(x.shape[-1])
    return x * scale, math.ceil(x.shape[0] / 3), math.log2(x.shape[1])


@case(X)
def python_min_max_of_shapes(x):
    n = min(x.shape[0], 4)
    m = max(x.shape)
    return x[:n], m, sum(x.shape), abs(-x.shape[0])


@case(X)
def list_of_shapes_and_strings(x):
    dims = [str(d) for d in x.shape]
    return x, "x".join(dims), tuple(int(d) for d in dims)


@case(X, [nn.Linear(8, 8), nn.ReLU()])
def list_of_modules_argument(x, layers):
    for layer in layers:
        x = layer(x)
    return x


@case(X, {"a": nn.Linear(8, 3), "b": nn.Linear(8, 3)})
def dict_of_modules_argument(x, heads):
    return {name: head(x) for name, head in heads.items()}


def _tied_pair():
    pair = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
    pair[1].weight = pair[0].weight  # tied, as GPT-2's embedding and output layer are
    shared = nn.Linear(8, 8)
    return pair, nn.Sequential(shared, shared)


@case(X, *_tied_pair())
def shared_members_are_yielded_once(x, tied, repeated):
    total = sum(p.sum() for p in tied.parameters())
    names = [n for n, _ in tied.named_parameters()]
    counts = (len(list(repeated.parameters())), len(list(repeated.children())), len(list(repeated.modules())))
    return x + total, names, counts


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_modules_and_idioms_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
