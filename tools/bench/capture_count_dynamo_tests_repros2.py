"""Repros modelled on the second half of PyTorch's test/dynamo/test_repros.py, for ``capture_count.py --only
dynamo_tests_repros2``: asserts that fold away, ``del`` of attributes and keys, ``OrderedDict`` subclasses
with ``__getitem__``, modules made and called inside the frame, ``.index`` on sequence kinds, ``out=``
and ``**kwargs`` calls, ``.data`` swaps, ``weakref``s, ``super`` in odd places, ``TypedDict``s, enums with
``_missing_``, and objects with ``__getattr__``/``__setattr__`` (detectron2's ``Instances``).
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import io
import typing

import torch
import torch.nn.functional as F
from torch import nn

_SINK = io.StringIO()


def c_r2_assert_noop(x):
    b = x.sin()
    assert True
    assert x.dtype == torch.float32
    return x.cos() + b


def c_r2_assert_non_string_message(x):
    b = x.sin()
    assert x[0] == 2, x.size()
    return x.cos() + b


def c_r2_size_isinstance(x):
    def pick(s, y):
        return y + 1 if isinstance(s, torch.Size) else y + 2

    return pick(x.shape, x), pick(tuple(x.shape), x)


class _Instantier(collections.OrderedDict):
    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


_ACTS = _Instantier({"relu": (nn.ReLU, {"inplace": False}), "tanh": nn.Tanh})


def c_r2_ordereddict_subclass_contains(x, d):
    if "key1" in d:
        x = x + 2
    if "key2" in d:
        x = x + 4
    return x + 8


c_r2_ordereddict_subclass_contains.extra_args = lambda: (type("Plain", (collections.OrderedDict,), {})(key1=1),)


def c_r2_classinstantier_getitem(x):
    return _ACTS["tanh"](x) + _ACTS["relu"](x - 1)


def c_r2_ephemeral_module(x):
    class ReluSquared(nn.Module):
        def forward(self, inp):
            return torch.square(F.relu(inp))

    return ReluSquared()(x + 0.2) + 1


def c_r2_inplace_unsqueeze_argument(x):
    x.unsqueeze_(0)
    return x + 1, x.shape


def c_r2_build_map_unpack_call(x):
    def forward(t, s, cond_scale, self_cond, other1, other2):
        return t.sin() + s + cond_scale + self_cond + other1 + other2

    d1, d2 = dict(other1=5), dict(other2=4)
    return forward(x, 1, cond_scale=2, self_cond=3, **{**d1, **d2})


class _Obj:
    def __init__(self, a, b):
        self.a = a
        self.b = b


def c_r2_delattr(x, obj):
    del obj.a
    obj.c = x + 1
    del obj.c
    tmp = _Obj(x + 2, x + 3)
    del tmp.b
    return hasattr(obj, "a"), hasattr(obj, "c"), hasattr(tmp, "b"), tmp.a, obj.b


c_r2_delattr.extra_args = lambda: (_Obj(torch.zeros(()), torch.ones(())),)


def c_r2_delattr_then_read_raises(x, obj):
    del obj.a
    x = x + 1
    return obj.a + x


c_r2_delattr_then_read_raises.extra_args = lambda: (_Obj(1, 2),)


def c_r2_delsubscr(x, d):
    del d["a"]
    return d["b"] + x, list(d)


c_r2_delsubscr.extra_args = lambda: ({"a": torch.tensor([1.0]), "b": torch.tensor([2.0])},)


def c_r2_delsubscr_then_read_raises(x, d):
    del d["a"]
    return d["a"] + x


c_r2_delsubscr_then_read_raises.extra_args = lambda: ({"a": torch.tensor([1.0])},)


def _maybe(fn):
    @functools.wraps(fn)
    def inner(t, *args, **kwargs):
        return t if t is None else fn(t, *args, **kwargs)

    return inner


def c_r2_maybe_decorator_argument(x):
    def normalize(t):
        return t.cos()

    return _maybe(normalize)(x.sin()), _maybe(normalize)(None)


def c_r2_wraps_returned_closure(x):
    def cool_name(t):
        return t.sin()

    y = x.cos()

    @functools.wraps(cool_name)
    def uncool_name():
        return cool_name(y)

    return uncool_name.__name__, uncool_name(), uncool_name.__wrapped__ is cool_name


def c_r2_dropout_probability_from_shape(x):
    return F.dropout(x, x.shape[0] / 6, training=False) + F.dropout(x, 0.0)


@dataclasses.dataclass
class _Sharding:
    contexts: typing.Any = dataclasses.field(default_factory=list)
    a: int = 1


def c_r2_dataclass_default_factory_argument(x, items):
    d = _Sharding(items)
    d.contexts.append(x.sin() + d.a)
    return d.contexts, _Sharding().contexts


c_r2_dataclass_default_factory_argument.extra_args = lambda: ([1, 2, 3],)

_Four = collections.namedtuple("_Four", "one two three four", defaults=[0, 0, 0, 0])


def c_r2_index_on_sequence_kinds(x):
    out = []
    for kind in (list, tuple, torch.Size, collections.deque):
        xs = kind([1, 2, 3, 4])
        out += [xs.index(3), xs.index(3, 2), xs.index(3, 0, 3)]
    out.append(_Four(1, 2, 3, 4).index(3, 1))
    return x + sum(out), out


def c_r2_index_missing_caught(x):
    xs = ["bar", "foo", "baz"]
    try:
        res = xs.index("nothing")
    except ValueError as e:
        res = len(str(e))
    return x + res


class _MaskedSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, mask, dim):
        ctx.dim = dim
        rmask = ~mask.to(torch.bool)
        out = torch.softmax(inp.masked_fill(rmask, torch.finfo(inp.dtype).min), dim)
        out = out.masked_fill(rmask, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return out * (grad - (grad * out).sum(ctx.dim, keepdim=True)), None, None


def c_r2_masked_softmax_function(x):
    inp = torch.outer(x, x + 1)
    return _MaskedSoftmax.apply(inp + 1, inp > 2, 1) + 2


class _PrintingSin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        print("forward", file=_SINK)
        ctx.save_for_backward(t)
        return t.sin()

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * t.cos()


def c_r2_autograd_function_break_in_forward(x):
    w = x.clone().requires_grad_(True)
    y = _PrintingSin.apply(w)
    (g,) = torch.autograd.grad(y.sum(), w)
    return y.detach(), g


def c_r2_tuple_iadd(x):
    a = ()
    x = torch.sin(x)
    a += (x,)
    a += (x + 1, 2)
    return a


_DTYPES = {float: torch.float32, int: torch.int64, bool: torch.bool}


def c_r2_type_keyed_dict(x):
    return torch.zeros(3, dtype=_DTYPES[float]) + x, torch.zeros(2, dtype=_DTYPES[int])


def c_r2_randint_out(x):
    out = torch.empty(5, dtype=torch.int32)
    r = torch.randint(17, (5,), out=out)
    return r is out, out, x + 1


_ROOT: list = []
_ROOT[:] = [_ROOT, _ROOT, None, None]


def c_r2_list_holding_itself(x):
    return x + len(_ROOT), _ROOT[0] is _ROOT, _ROOT[2]


def c_r2_check_type_loop(x):
    def check_type(obj, checks):
        for check in checks:
            if isinstance(obj, check) if isinstance(check, type) else check(obj):
                return True
        return False

    return check_type(x, [torch.Tensor]), check_type(x, [int, lambda o: o.dim() == 1]), check_type(1, [str])


def c_r2_frexp_kwargs_out_list(x):
    params = {"input": x.reshape(1, 3) + 1, "out": [torch.empty(0), torch.empty(0, dtype=torch.int32)]}
    mantissa, exponent = torch.frexp(**params)
    return mantissa, exponent


class _FnHolder(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, **inp):
        return self.fn(**inp)


_BCE = _FnHolder(F.binary_cross_entropy)


def c_r2_module_holding_functional(x):
    p = (x + 1) / 5
    return _BCE(input=p, target=p.flip(0), reduction="mean")


def c_r2_while_true_try_break(x):
    out = x
    while True:
        try:
            print(out.shape, file=_SINK)
            out = out + 1
            break
        except Exception:
            break
    return out


def c_r2_while_int_try_continue(x):
    n = 3
    while n:
        try:
            n -= 1
            x = x + n
        except Exception:
            continue
    return x


_TEMPLATE = "temp{i}"


def c_r2_string_format_branch(x):
    if _TEMPLATE.format(i=4) == "temp4":
        return torch.sin(x)
    return torch.cos(x)


def c_r2_in_empty_list(x, items):
    if x in items:
        return x.cos()
    return x.sin()


c_r2_in_empty_list.extra_args = lambda: ([],)


def c_r2_jit_isinstance(x):
    if torch.jit.isinstance(x, list[str]):
        return x * 2
    return x + 1


def c_r2_add_sub_alpha_out(x):
    out1, out2 = torch.zeros(3), torch.zeros(3)
    torch.add(x, 1, alpha=2, out=out1)
    torch.sub(x, 1, alpha=2, out=out2)
    return out1, out2


def c_r2_addr_alpha_beta_out(x):
    out = torch.zeros(3, 3)
    torch.addr(torch.ones(3, 3), x, x + 1, alpha=2, beta=5, out=out)
    return out


def c_r2_size_ne_tuple(x):
    t = x.reshape(3, 1)
    if t.size() != (3, 1):
        return t.cos()
    if t.size() == (3, 1) and x.size() != (2,):
        return t.sin()
    return t


def c_r2_requires_grad_set_midway(x):
    z = x + 4
    x.requires_grad = True
    y = x * z
    return y, y.requires_grad


def c_r2_callable_made_inside(x):
    class MyCallable:
        def __call__(self, t):
            return t + 1

    return MyCallable()(x)


def c_r2_views_of_one_buffer_mutated(x):
    src = torch.arange(40.0) - 20
    views = [src.as_strided((2, 2), (2, 1), 3 + 8 * i) for i in range(4)]
    views[0].relu_()
    return torch.cat(views).sum() + x, src


def c_r2_tensor_data_swap(x, y):
    x.data = y
    x.add_(1)
    return x, y


c_r2_tensor_data_swap.extra_args = lambda: (torch.ones(4),)


def c_r2_tensor_data_swap_identity(x, y):
    z = x
    x.data = y
    y.data = torch.zeros([0])
    return x is z, x, y.shape


c_r2_tensor_data_swap_identity.extra_args = lambda: (torch.ones(4),)


class _UserCtx:
    def __init__(self, k=None):
        if k is not None:
            k[0] += 1

    def __enter__(self):
        return 1

    def __exit__(self, *exc):
        return None


def c_r2_ctx_manager_made_not_entered(x, counter):
    x = x * x
    ucm = _UserCtx(counter)
    return x * x, counter[0], type(ucm).__name__


c_r2_ctx_manager_made_not_entered.extra_args = lambda: ([5],)


def c_r2_lengths_to_mask(x):
    lengths = torch.tensor([3, 2, 2], dtype=torch.int32)
    row = torch.arange(0, lengths.max().item(), 1)
    mask = (row < lengths.unsqueeze(-1)).type(torch.float32)
    return mask[:, :, None] * x


class _Box(enum.IntEnum):
    X = 0
    Y = 1
    HEADING = 2

    @classmethod
    def size(cls):
        return 3


def c_r2_intenum_slices(x):
    t = torch.outer(x + 1, torch.ones(_Box.size()))
    t[..., slice(_Box.X, _Box.Y + 1)] = t[..., slice(_Box.X, _Box.Y + 1)].tanh() * 32
    t[..., _Box.HEADING] = t[..., _Box.HEADING].tanh() * torch.pi
    return t


def c_r2_invalid_sequence_unpack(x):
    def unpack(arg):
        (a, b) = arg
        return a + b

    return unpack((1, 2, 3)) + x


def c_r2_in_range_constant(x):
    if 3 in range(0, 10) and 12 not in range(0, 10, 2):
        return x + 1
    return x + 2


def c_r2_as_strided_base_mutation(x):
    a = torch.outer(x, x + 1)
    a.as_strided((2,), (1,), 0).add_(1.0)
    return a


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
