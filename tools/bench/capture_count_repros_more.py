"""More repro-style constructs for ``capture_count.py --only repros``, of the kinds PyTorch's
test/dynamo/test_repros.py collects from real models: attention-mask building, beam bookkeeping with
heaps, config objects (SimpleNamespace, dataclass), ``torch.finfo``/``iinfo`` reads, ``math`` on shapes,
shape lists built in loops, ``getattr`` dispatch on strings, padding arithmetic, ``*args`` unpacking into
``torch.cat``, ``None`` checks on optional tensors, and in-place updates on slices.
"""

from __future__ import annotations

import heapq
import math
import types

import torch
import torch.nn.functional as F


def c_attention_mask_building(x):
    n = x.shape[0]
    mask = torch.full((n, n), float("-inf")).triu(1)
    scores = x[:, None] * x[None, :] / math.sqrt(n)
    return torch.softmax(scores + mask, dim=-1).sum(0)


def c_finfo_iinfo_reads(x):
    eps = torch.finfo(x.dtype).eps
    big = torch.iinfo(torch.int32).max
    return x.clamp(min=eps) + (big > 0), torch.finfo(torch.float16).max


def c_simple_namespace_config(x):
    cfg = types.SimpleNamespace(hidden=3, act="relu")
    cfg.dropout = 0.0
    act = getattr(F, cfg.act)
    return act(x - 1) * cfg.hidden + cfg.dropout


def c_optional_tensor_checks(x):
    def step(t, bias=None, scale=None):
        if bias is not None:
            t = t + bias
        if scale is None:
            scale = 2.0
        return t * scale

    return step(x) + step(x, bias=x)


def c_shape_list_built_in_loop(x):
    shapes = []
    t = x.reshape(1, 3)
    for _ in range(3):
        t = torch.cat([t, t], dim=0)
        shapes.append(tuple(t.shape))
    return t.sum(), shapes


def c_padding_arithmetic(x):
    size, block = x.shape[-1], 4
    pad = (block - size % block) % block
    padded = F.pad(x, (0, pad))
    return padded.reshape(-1, block).sum(-1), pad


def c_cat_star_args(x):
    parts = (x, x * 2, x * 3)
    return torch.cat([*parts, x.new_ones(1)]), torch.stack(parts[:2], dim=1).shape


def c_inplace_slice_updates(x):
    y = x.clone()
    y[1:] += 1
    y[:1].mul_(3)
    y.index_add_(0, torch.tensor([0]), torch.tensor([5.0]))
    return y


def c_beam_heap_bookkeeping(x):
    beams = []
    for i in range(4):
        score = float(i % 3)
        heapq.heappush(beams, (score, i))
        if len(beams) > 2:
            heapq.heappop(beams)
    best = max(beams)
    return x * best[0] + best[1], sorted(beams)


def c_getattr_string_dispatch(x):
    out = x
    for name in ("sin", "cos", "exp"):
        out = getattr(torch, name)(out)
    return out, out.shape


def c_max_with_default_and_key(x, items):
    longest = max(items, key=lambda t: t.numel(), default=None)
    return x + (longest.sum() if longest is not None else 0)


c_max_with_default_and_key.extra_args = lambda: ([torch.ones(2), torch.ones(3)],)


def c_tuple_returned_nested_dicts(x):
    out = {"logits": x * 2, "aux": {"loss": x.sum(), "parts": [x, x + 1]}}
    return out, out["aux"]["parts"][1]


CONSTRUCTS = [c_attention_mask_building, c_finfo_iinfo_reads, c_simple_namespace_config, c_optional_tensor_checks,
              c_shape_list_built_in_loop, c_padding_arithmetic, c_cat_star_args, c_inplace_slice_updates,
              c_beam_heap_bookkeeping, c_getattr_string_dispatch, c_max_with_default_and_key,
              c_tuple_returned_nested_dicts]
