"""Repros modelled on the first half of PyTorch's test/dynamo/test_repros.py, for ``capture_count.py --only
dynamo_tests_repros1``: detectron2's box and mask helpers, HuggingFace's reformer/T5/longformer pieces,
``ModelOutput``-style ordered dicts, ``out=`` calls into cells and buffers, list subclasses that are called,
modules made and returned inside the frame, and loops with breaks in them.
"""

from __future__ import annotations

import collections
import enum
import inspect
import io
import threading

import torch
import torch.nn.functional as F
from torch import nn

_SINK = io.StringIO()


def _paste_mask(masks, boxes, img_h, img_w, skip_empty=True):
    # rebuilt after detectron2's mask pasting: int corners read off the boxes, then a sampling grid
    if skip_empty and not torch.jit.is_scripting():
        x0_i, y0_i = torch.clamp(boxes.min(dim=0).values.floor()[:2] - 1, min=0).to(dtype=torch.int32)
        x1_i = torch.clamp(boxes[:, 2].max().ceil() + 1, max=img_w).to(dtype=torch.int32)
        y1_i = torch.clamp(boxes[:, 3].max().ceil() + 1, max=img_h).to(dtype=torch.int32)
    else:
        x0_i, y0_i, x1_i, y1_i = 0, 0, img_w, img_h
    x0, y0, x1, y1 = torch.split(boxes, 1, dim=1)
    n = masks.shape[0]
    ys = (torch.arange(y0_i, y1_i, dtype=torch.float32) + 0.5 - y0) / (y1 - y0) * 2 - 1
    xs = (torch.arange(x0_i, x1_i, dtype=torch.float32) + 0.5 - x0) / (x1 - x0) * 2 - 1
    gx = xs[:, None, :].expand(n, ys.size(1), xs.size(1))
    gy = ys[:, :, None].expand(n, ys.size(1), xs.size(1))
    grid = torch.stack([gx, gy], dim=3)
    if not masks.dtype.is_floating_point:
        masks = masks.float()
    out = F.grid_sample(masks, grid.to(masks.dtype), align_corners=False)
    return out[:, 0], (slice(y0_i, y1_i), slice(x0_i, x1_i)) if skip_empty else ()


def c_r1_paste_mask(x, masks, boxes):
    return _paste_mask(masks, boxes * (1 + x[0]), 20, 24)[0]


c_r1_paste_mask.extra_args = lambda: (torch.ones(1, 1, 6, 6), torch.tensor([[0.0, 1, 2, 4]]))


def c_r1_paste_mask_not_skipping(x, masks, boxes):
    return _paste_mask(masks, boxes + x[1], 5, 6, skip_empty=False)


c_r1_paste_mask_not_skipping.extra_args = lambda: (torch.ones(1, 1, 4, 4), torch.tensor([[0.0, 1, 2, 4]]))


class _Boxes:
    def __init__(self, tensor):
        device = tensor.device if isinstance(tensor, torch.Tensor) else torch.device("cpu")
        tensor = torch.as_tensor(tensor, dtype=torch.float32, device=device)
        if tensor.numel() == 0:
            tensor = tensor.reshape((-1, 4)).to(dtype=torch.float32, device=device)
        assert tensor.dim() == 2 and tensor.size(-1) == 4, tensor.size()
        self.tensor = tensor

    def __len__(self):
        return self.tensor.shape[0]

    @property
    def device(self):
        return self.tensor.device


def _sizes_tensor(sizes, device=None):
    if torch.jit.is_scripting() or not torch.jit.is_tracing():
        return torch.as_tensor(sizes, device=device)
    return torch.stack(sizes)


def c_r1_boxes_to_pooler_format(x, boxes):
    cat = torch.cat([b.tensor for b in boxes], dim=0)
    sizes = _sizes_tensor([b.__len__() for b in boxes], device=cat.device)
    idx = torch.repeat_interleave(torch.arange(len(boxes), dtype=cat.dtype, device=cat.device), sizes)
    return torch.cat([idx[:, None], cat], dim=1) + x[0]


c_r1_boxes_to_pooler_format.extra_args = lambda: (
    [_Boxes(torch.arange(0, 8).reshape((2, 4))), _Boxes(torch.arange(8, 12).reshape((1, 4)))],)


def c_r1_boxes_len(x, boxes):
    return len(boxes) + boxes.__len__() + boxes.tensor + x.sum()


c_r1_boxes_len.extra_args = lambda: (_Boxes(torch.arange(0, 8).reshape((2, 4))),)


def c_r1_boxes_made_in_frame(x):
    b = _Boxes(torch.outer(x, x + 1)[:, :2].repeat(1, 2))
    empty = _Boxes(torch.zeros(0))
    return b.tensor * len(b), len(empty), b.device.type


_BackOut = collections.namedtuple("_BackOut", ["hidden", "all_hidden", "buckets"])


class _Reversible(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, layers, masks, all_hidden, keep_hidden):
        buckets = ()
        hidden, attn = torch.chunk(hidden, 2, dim=-1)
        for layer, _mask in zip(layers, masks):
            if keep_hidden is True:
                all_hidden.append(hidden)
            attn = layer(attn)
            buckets = (*buckets, attn)
        ctx.save_for_backward(attn.detach(), hidden.detach())
        ctx.layers = layers
        ctx.buckets = buckets
        return torch.cat([attn, hidden], dim=-1)

    @staticmethod
    def backward(ctx, grad):
        _, grad_hidden = torch.chunk(grad, 2, dim=-1)
        return torch.cat([grad_hidden, grad_hidden], dim=-1), None, None, None, None


class _ReformerEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.norm = nn.LayerNorm(6, eps=1e-12)
        self.layers = [nn.Linear(3, 3)]

    def forward(self, hidden, masks=[None] * 3, keep_hidden=False):
        all_hidden = []
        past = [((None), (None)) for _ in range(len(self.layers))]
        hidden = torch.cat([hidden, hidden], dim=-1)
        hidden = _Reversible.apply(hidden, self.layers, masks, all_hidden, keep_hidden)
        hidden = self.norm(hidden)
        hidden = F.dropout(hidden, p=0.5, training=False)
        return _BackOut(hidden, all_hidden, past)


_REFORMER = _ReformerEncoder()


def c_r1_reformer_encoder(x):
    with torch.no_grad():
        return _REFORMER(x.reshape(1, 3))


def c_r1_reformer_encoder_keep_hidden(x):
    return _REFORMER(x.reshape(1, 3), keep_hidden=True)


def c_r1_abs_out_transposed(x):
    y = torch.arange(4.0).reshape(2, 2)
    torch.abs(x[:2].repeat(2).reshape(2, 2), out=y.T)
    return y


def c_r1_view_as_int_dtype(x):
    return x.view(torch.int32), x.detach().requires_grad_().view(torch.int32)


def c_r1_leaf_made_in_frame(x):
    leaf = torch.ones(2, requires_grad=True)
    return leaf, leaf * 2 + x[:2]


def c_r1_saved_hooks_disabled_in_callee(x):
    def inner(z):
        with torch.autograd.graph.disable_saved_tensors_hooks("hooks are disabled"):
            return z + 5

    return inner(x * x)


def c_r1_two_backwards_in_frame(x):
    a = x[:2].repeat(2).reshape(2, 2).detach().requires_grad_()
    b = torch.ones(2, 2, requires_grad=True)
    e = torch.matmul(a, torch.ones(2, 2))
    torch.abs(e - torch.ones(2, 2)).mean().backward()
    torch.matmul(b, e.detach()).mean().backward()
    return a.grad, b.grad


class _Which(enum.Enum):
    A = "a"


class _EnumKeyed(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = nn.Linear(1, 1)

    def forward(self, d):
        return self.linear(d[_Which.A])


_ENUM_KEYED = _EnumKeyed()


def c_r1_module_reads_enum_keyed_dict(x, d):
    with torch.no_grad():
        return _ENUM_KEYED(d) + x


c_r1_module_reads_enum_keyed_dict.extra_args = lambda: ({_Which.A: torch.ones(4, 1)},)


def c_r1_aten_overload_called(x):
    grad = torch.ones(2, 4, 3)
    idx = torch.ones(2, 4, dtype=torch.int64)
    return torch.ops.aten.embedding_dense_backward(grad, idx, 10, 1, True) + x.sum()


def _overlapping_chunks(hidden, overlap):
    hidden = hidden.view(hidden.size(0), hidden.size(1) // (overlap * 2), overlap * 2, hidden.size(2))
    size = list(hidden.size())
    size[1] = size[1] * 2 - 1
    stride = list(hidden.stride())
    stride[1] = stride[1] // 2
    return hidden.as_strided(size=size, stride=stride)


def c_r1_longformer_chunk(x):
    return _overlapping_chunks(torch.arange(32.0).reshape(1, 16, 2) + x[1], 2)


class _PartialT5(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.q, self.k, self.v = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, hidden, kv=None, past=None, query_length=None):
        batch, seq = hidden.shape[:2]
        real = seq
        if past is not None:
            assert len(past) == 2, f"want 2 past states, got {len(past)}"
            real += past[0].shape[2] if query_length is None else query_length

        def shape(states):
            return states.view(batch, -1, 2, 4).transpose(1, 2)

        def project(h, proj, kv, past):
            if kv is None:
                h = shape(proj(h))
            elif past is None:
                h = shape(proj(kv))
            if past is not None:
                h = torch.cat([past, h], dim=2) if kv is None else past
            return h

        q = shape(self.q(hidden))
        k = project(hidden, self.k, kv, past[0] if past is not None else None)
        v = project(hidden, self.v, kv, past[1] if past is not None else None)
        return torch.matmul(q, k.transpose(3, 2)), v, real


_T5 = _PartialT5()


def c_r1_t5_attention_prefix(x):
    with torch.no_grad():
        return _T5(torch.outer(x, torch.ones(8)).reshape(1, 3, 8))


def c_r1_t5_attention_with_past(x):
    past = (torch.ones(1, 2, 1, 4), torch.ones(1, 2, 1, 4))
    with torch.no_grad():
        return _T5(torch.outer(x, torch.ones(8)).reshape(1, 3, 8), past=past)


def c_r1_slice_by_tensor_element(x, y):
    idx = y[0]
    return (torch.ones(8)[idx:] + 3) * 5 + x.sum()


c_r1_slice_by_tensor_element.extra_args = lambda: (torch.ones(10, dtype=torch.long),)


def c_r1_setitem_slice_from_tensor_element(x, lengths):
    out = torch.ones(5, 6)
    out[(3, slice(lengths[3], None, None))] = 0
    return (out + x.sum(),)


c_r1_setitem_slice_from_tensor_element.extra_args = lambda: (torch.tensor([1, 2, 3, 4, 5]),)


def _chunked_apply(forward_fn, *inputs):
    assert len(inputs) > 0
    width = inputs[0].shape[1]
    assert all(t.shape[1] == width for t in inputs)
    if len(inspect.signature(forward_fn).parameters) != len(inputs):
        raise ValueError
    return forward_fn(*inputs)


class _ChunkFF(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.norm = nn.LayerNorm(3, eps=1e-12)
        self.dense = nn.Linear(3, 3)

    def forward(self, h):
        return _chunked_apply(self.chunk, h + 1)

    def chunk(self, h):
        return self.dense(self.norm(h))


_CHUNK_FF = _ChunkFF()


def c_r1_chunked_forward_signature(x):
    with torch.no_grad():
        return _CHUNK_FF(x.reshape(1, 1, 3))


def _kwargs_checked(fn, kwargs):
    unused = []
    names = set(inspect.signature(fn).parameters)
    for key, value in kwargs.items():
        if value is not None and key not in names:
            unused.append(key)
    if unused:
        raise ValueError(f"unused model kwargs: {unused}")


def _sin_plus_cos(a, b):
    return torch.sin(a) + torch.cos(b)


def c_r1_validate_model_kwargs(x):
    def run(**kwargs):
        _kwargs_checked(_sin_plus_cos, kwargs)
        return _sin_plus_cos(**kwargs)

    return run(a=x, b=x + 1)


def c_r1_validate_model_kwargs_rejects(x):
    def run(**kwargs):
        _kwargs_checked(_sin_plus_cos, kwargs)
        return _sin_plus_cos(**kwargs)

    try:
        return run(a=x, b=x, c=x)
    except ValueError as e:
        return x + len(str(e))


class _ModelOutput(collections.OrderedDict):
    """HuggingFace's ModelOutput pattern: items mirrored as attributes, read by key, name or position."""

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


def _model_output():
    return _ModelOutput(a=torch.ones(3), b=torch.ones(3) * 2, c=torch.ones(3) * 3)


def c_r1_model_output_reads(x, out):
    return out["a"] + 1 + x, out.b + 1, out.to_tuple()[2] + 1, out[0] + 1


c_r1_model_output_reads.extra_args = lambda: (_model_output(),)


def c_r1_model_output_made_and_set(x):
    out = _ModelOutput(a=x, b=x + 1)
    out["c"] = x * 3
    out.a = x - 1
    return out.to_tuple(), out.c, list(out.keys())


def c_r1_big_bird_rand_mask(x, from_mask, to_mask, rand_attn):
    windows = 16 // 4 - 2
    mask = torch.stack([p[i.flatten()] for p, i in zip(to_mask, rand_attn)])
    mask = mask.view(1, 2, windows, 1 * 4)
    return torch.einsum("blq,bhlk->bhlqk", from_mask[:, 1:-1], mask) + x[0]


c_r1_big_bird_rand_mask.extra_args = lambda: (
    torch.arange(16.0).reshape(1, 4, 4), torch.arange(16.0).reshape(1, 4, 4) / 7,
    torch.zeros([1, 2, 2, 1], dtype=torch.int64))


_LOCAL = threading.local()
_LOCAL.t = torch.ones(1) * 4


def c_r1_threading_local_attr(x):
    return torch.cat([x, _LOCAL.t])


class _AppendingSequential(nn.Sequential):
    def forward(self, x, concat):
        for i, module in enumerate(self):
            concat.append(module(x) if i == 0 else module(concat[-1]))
        return torch.cat(concat, dim=1), concat


_SEQ = _AppendingSequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3), nn.ReLU())


def c_r1_sequential_appends_argument_list(x, concat):
    with torch.no_grad():
        out, same = _SEQ(x.reshape(1, 3), concat)
    return out, same is concat, len(concat)


c_r1_sequential_appends_argument_list.extra_args = lambda: ([torch.ones(1, 3)],)


class _BatchNormAct(nn.BatchNorm2d):
    def __init__(self, n, act_layer=nn.ReLU, inplace=True):
        super().__init__(n, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True)
        self.act = act_layer(inplace=inplace)

    @torch.jit.ignore
    def _python_forward(self, x):
        return super().forward(x)

    def forward(self, x):
        x = self._jit_forward(x) if torch.jit.is_scripting() else self._python_forward(x)
        return self.act(x)


_BN_ACT = _BatchNormAct(1).eval()


def c_r1_batchnorm_subclass_super_forward(x):
    with torch.no_grad():
        return _BN_ACT(x.reshape(1, 1, 1, 3) - 1)


def _param_dtype(module):
    try:
        return next(module.parameters()).dtype
    except StopIteration:
        def tensor_attrs(m):
            return [(k, v) for k, v in m.__dict__.items() if torch.is_tensor(v)]

        first = next(module._named_members(get_members_fn=tensor_attrs))
        return first[1].dtype


def c_r1_parameter_dtype(x):
    return x + torch.zeros(3, dtype=_param_dtype(_SEQ))


class _NoParams(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.ones(2, dtype=torch.float64)


_NO_PARAMS = _NoParams()


def c_r1_parameter_dtype_stop_iteration(x):
    return x.to(_param_dtype(_NO_PARAMS)) + 1


def c_r1_parameter_made_in_frame(x):
    a = nn.Parameter(torch.ones(2, 2) * x[1])
    return a, isinstance(a, nn.Parameter), type(a).__name__


def c_r1_size_made_in_frame(x):
    s = torch.Size([1, 2, 3])
    assert isinstance(s, torch.Size)
    print(type(s).__name__, file=_SINK)
    return x + s[2], s, s.numel()


def c_r1_numpy_index_shapes_agree(x):
    def check(t, *idx):
        assert t.numpy()[idx].shape == t[idx].shape

    a = torch.arange(0, 10)
    for case in ([None, None], [1, None]):
        check(a, *case)
    return x + 1


class _Cfg:
    attn_layers = ["local", "lsh", "local", "lsh"]
    lsh_chunk = 64
    local_chunk = 32


def _min_chunk_len(cfg):
    kinds = set(cfg.attn_layers)
    if len(kinds) == 1 and cfg.attn_layers[0] == "lsh":
        return cfg.lsh_chunk
    if len(kinds) == 1 and cfg.attn_layers[0] == "local":
        return cfg.local_chunk
    if len(kinds) == 2 and kinds == {"lsh", "local"}:
        return min(cfg.lsh_chunk, cfg.local_chunk)
    raise NotImplementedError(f"unknown layers {cfg.attn_layers}")


def c_r1_min_chunk_len_from_config(x, cfg):
    t = torch.empty(4)
    t.fill_(_min_chunk_len(cfg))
    return t[0] + x


c_r1_min_chunk_len_from_config.extra_args = lambda: (_Cfg(),)


def _stable_argsort(v, dim):
    offset = torch.arange(v.shape[dim], device=v.device).view(1, 1, -1).expand(v.shape)
    return torch.argsort(v.shape[dim] * v + (offset % v.shape[dim]), dim=dim)


def c_r1_reformer_sort_and_undo(x, buckets):
    with torch.no_grad():
        order = _stable_argsort(buckets, dim=-1)
        idx = torch.arange(order.shape[-1]).view(1, 1, -1).expand(order.shape)
        undo = order.new(*order.size())
        undo.scatter_(-1, order, idx)
    return order, undo, x + 1


c_r1_reformer_sort_and_undo.extra_args = lambda: (torch.tensor([[[3, 1, 1, 0, 2, 1]]]),)


def c_r1_recursive_dict_walk(x, nested):
    def walk(struct):
        for k, v in struct.items():
            if v is not None:
                if isinstance(v, dict):
                    walk(v)
                else:
                    struct[k] = v

    y = x / (torch.abs(x) + 1)
    if nested is not None:
        walk(nested)
    return y * 2, nested


c_r1_recursive_dict_walk.extra_args = lambda: ({"layer0": {"keys": torch.ones(3), "none": None}},)


def _mlp(i, o, h, act=nn.GELU):
    return nn.Sequential(nn.Linear(i, h), act(), nn.Linear(h, o))


class _Interact(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.nets = nn.ModuleList([_mlp(3, 2, 4) for _ in range(3)])

    def interact(self, x, cycle):
        return self.nets[cycle](x)


_INTERACT = _Interact()


def c_r1_module_list_indexed_by_argument(x, cycle):
    with torch.no_grad():
        return _INTERACT.interact(x.reshape(1, 3), cycle)


c_r1_module_list_indexed_by_argument.extra_args = lambda: (2,)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
