"""Part of ``capture_count_dynamo_tests_repros3``: construction protocols, context managers, names looked up
at run time, promotion and shape arithmetic, dataclass options, stdlib helpers, arguments mutated through
views, closures over mutable state, text of torch objects and numeric ABCs, after PyTorch's test/dynamo/test_repros.py.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import itertools
import operator
from collections import namedtuple

import numpy as np
import torch
from capture_count_dynamo_tests_repros3_modules import _Symmetric
from torch import nn
from torch.nn.utils import parametrize


# -- batch five: construction protocols, context managers, dynamic names -------------------------------------
class _Point:
    def __init__(self, a, b):
        self.a, self.b = a, b

    @classmethod
    def blank(cls):
        obj = cls.__new__(cls)
        obj.a, obj.b = 0, 0
        return obj

    def __eq__(self, other):
        if not isinstance(other, _Point):
            return NotImplemented
        return (self.a, self.b) == (other.a, other.b)


def c_r3_new_then_fields_and_notimplemented_eq(x):
    import copy

    p = _Point.blank()
    q = copy.copy(_Point(1, x))
    q.a = 5
    return q.b * q.a + p.a, p == _Point(0, 0), p == 3, p != "s", isinstance(q, _Point)


def c_r3_exitstack_of_user_managers(x):
    import contextlib

    log = []

    @contextlib.contextmanager
    def tag(name):
        log.append("in " + name)
        try:
            yield name.upper()
        finally:
            log.append("out " + name)

    with contextlib.ExitStack() as stack:
        names = [stack.enter_context(tag(n)) for n in ("a", "b")]
        y = x * len(names)
    return y, names, log


def c_r3_getattr_torch_function_by_name(x):
    import torch.nn.functional as F

    outs = []
    for name in ("relu", "sigmoid", "tanh"):
        outs.append(getattr(F, name)(x - 1))
    act = torch.exp
    return torch.stack(outs), act(x), hasattr(F, "gelu"), hasattr(F, "nope")


def c_r3_tensor_type_checks(x):
    p = nn.Parameter(x.clone())
    return (x + 1, isinstance(x, (torch.Tensor, np.ndarray)), isinstance(p, nn.Parameter), type(x) is torch.Tensor,
            isinstance(x, nn.Parameter), torch.is_tensor(p), type(p).__name__, issubclass(nn.Parameter, torch.Tensor))


def c_r3_device_reads_and_noop_moves(x):
    d = x.device
    y = x.to(d).cpu()
    same = y.device == torch.device("cpu")
    return y + 1, str(d), d.type, same, x.is_cpu, torch.device("cpu", 0).index if False else None


def c_r3_default_dtype_branch_and_queries(x):
    out = x if torch.get_default_dtype() == torch.float32 else x.double()
    return (out * 2, torch.numel(x), torch.is_floating_point(x), torch.promote_types(torch.int32, torch.float16),
            torch.can_cast(torch.float32, torch.int32))


# -- batch five: promotion and shape arithmetic ---------------------------------------------------------------
def c_r3_zero_dim_promotion_rules(x):
    i0 = torch.tensor(2)
    f64 = torch.tensor(1.5, dtype=torch.float64)
    return [(t.dtype, t) for t in (i0 * 1.5, x + f64, x.int() + f64, i0 + x, x.half() + torch.tensor(1.0),
                                   torch.tensor([1, 2]) + torch.tensor(0.5, dtype=torch.float64))]


def c_r3_shape_tuple_building(x):
    import math

    m = x.reshape(1, 3)
    a = m.view(*m.shape[:-1], -1, 1)
    b = m.expand(*(2, 3))
    c = torch.Size((*m.shape, 1))
    n = math.prod(m.shape) + functools.reduce(operator.mul, m.shape, 1)
    return a.shape, b.shape, c, n, m.shape[1:] + (1,), m.new_zeros(c).shape  # noqa: RUF005


def c_r3_numpy_on_sizes(x):
    n = np.prod(x.shape)
    r = np.sqrt(x.shape[0])
    return x * int(n) + float(r), type(n).__name__


# -- batch five: outputs and modules ----------------------------------------------------------------------
def c_r3_nested_outputs_tuple_keys(x):
    out = {(0, "a"): x, (1, "b"): [x + 1, {"deep": x * 2}]}
    return out, [{"i": i, "t": x[i]} for i in range(2)]


def c_r3_shared_submodule_used_twice(x):
    shared = nn.Linear(3, 3)
    net = nn.Sequential(shared, nn.ReLU(), shared)
    uniq = len(list(net.modules()))
    dup = len(list(net.named_modules(remove_duplicate=False)))
    return net(x), uniq, dup, len(list(net.parameters()))


def c_r3_parameters_to_vector_roundtrip(x):
    lin = nn.Linear(3, 2)
    vec = torch.nn.utils.parameters_to_vector(lin.parameters())
    with torch.no_grad():
        torch.nn.utils.vector_to_parameters(vec * 0 + 0.5, lin.parameters())
    return lin(x), vec.shape


def c_r3_buffers_none_and_get_buffer(x):
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", None)
            self.register_buffer("scale", torch.full((3,), 3.0))

        def forward(self, t):
            out = t * self.get_buffer("scale")
            return out if self.mask is None else out * self.mask

    h = Holder()
    return h(x), [n for n, _ in h.named_buffers()], sum(b.sum() for b in h.buffers())


def c_r3_is_parametrized_checks(x):
    lin = nn.Linear(3, 3)
    before = parametrize.is_parametrized(lin)
    parametrize.register_parametrization(lin, "weight", _Symmetric())
    after = parametrize.is_parametrized(lin, "weight")
    with parametrize.cached():
        y = lin(x) + lin(x)
    return y.shape, before, after


# -- batch six: dataclass options, stdlib helpers ------------------------------------------------------------
def c_r3_dataclass_initvar_kw_only_slots(x):
    @dataclasses.dataclass(slots=True, kw_only=True)
    class Cfg:
        dim: int
        scale: float = 1.0
        seed: dataclasses.InitVar[int] = 0
        tag: str = dataclasses.field(init=False, default="")

        def __post_init__(self, seed):
            self.tag = f"d{self.dim}s{seed}"

    c = Cfg(dim=3, scale=2.0, seed=7)
    return x * c.scale + c.dim, c.tag, hasattr(c, "__dict__"), [f.name for f in dataclasses.fields(c)]


def c_r3_frozen_dataclass_hash_set(x):
    @dataclasses.dataclass(frozen=True)
    class Key:
        name: str
        idx: int = 0

    seen = {Key("a"), Key("a"), Key("b", 1)}
    lookup = {Key("a"): 2.0}
    return x * lookup[Key("a")] + len(seen), Key("b", 1) in seen, hash(Key("a")) == hash(Key("a"))


def c_r3_namedtuple_subclass_new_override(x):
    class Range(namedtuple("Range", "lo hi")):
        __slots__ = ()

        def __new__(cls, lo, hi=None):
            return super().__new__(cls, lo, lo + 1 if hi is None else hi)

        def width(self):
            return self.hi - self.lo

    r = Range(1)
    s = r._replace(hi=3)
    return x[r.lo:s.hi] * s.width(), tuple(r), tuple(s), isinstance(r, tuple)


def c_r3_counter_heapq_bisect(x):
    import bisect
    import heapq
    from collections import Counter

    shapes = Counter(t.dim() for t in (x, x.unsqueeze(0), x, x.reshape(1, 1, 3)))
    top = heapq.nlargest(2, [(3, "c"), (1, "a"), (2, "b")])
    edges = [0, 10, 20]
    pos = bisect.bisect_right(edges, 15)
    h = []
    for v in (5, 1, 3):
        heapq.heappush(h, v)
    return x + pos + heapq.heappop(h), dict(shapes), top, shapes.most_common(1)


def c_r3_deepcopy_dict_of_tensors_independent(x):
    import copy

    state = {"w": x.clone(), "meta": {"steps": [1, 2]}}
    snap = copy.deepcopy(state)
    state["w"].add_(1)
    state["meta"]["steps"].append(3)
    return snap["w"], state["w"], snap["meta"], snap["w"] is state["w"]


def c_r3_string_template_and_textwrap(x):
    import string
    import textwrap

    t = string.Template("$name has $n items").substitute(name="x", n=x.numel())
    wrapped = textwrap.shorten("alpha beta gamma delta", width=12, placeholder="...")
    return x + len(t), t, wrapped, textwrap.indent("a\nb", "> ")


def c_r3_abstract_property_subclass(x):
    class Head(abc.ABC):
        @property
        @abc.abstractmethod
        def width(self): ...

        def out(self, t):
            return t[: self.width]

    class Two(Head):
        @property
        def width(self):
            return 2

    try:
        Head()
        ok = True
    except TypeError:
        ok = False
    return Two().out(x), ok, Head.width.__isabstractmethod__


def c_r3_descriptor_set_name_in_frame_class(x):
    class Positive:
        def __set_name__(self, owner, name):
            self.key = "_" + name

        def __get__(self, obj, owner=None):
            return self if obj is None else obj.__dict__.get(self.key, 1)

        def __set__(self, obj, value):
            obj.__dict__[self.key] = abs(value)

    class Layer:
        gain = Positive()

    layer = Layer()
    layer.gain = -3
    return x * layer.gain, Layer.gain.key, vars(layer)


def c_r3_class_getitem_generic(x):
    from typing import Generic, TypeVar

    T = TypeVar("T")

    class Box(Generic[T]):
        def __init__(self, item: T):
            self.item = item

    b = Box[int](4)
    return x + b.item, Box[int].__origin__ is Box, type(b).__name__


# -- batch six: modules ---------------------------------------------------------------------------------------
def c_r3_module_zero_grad_and_grads(x):
    lin = nn.Linear(3, 1)
    lin.zero_grad()
    return lin(x), [p.grad is None for p in lin.parameters()]


def c_r3_module_to_double_in_frame(x):
    lin = nn.Linear(3, 2).double()
    return lin(x.double()), lin.weight.dtype


def c_r3_prepend_pre_hook_order(x):
    lin = nn.Linear(3, 3)
    order = []
    lin.register_forward_pre_hook(lambda m, a: order.append("late"))
    lin.register_forward_pre_hook(lambda m, a: order.append("early"), prepend=True)
    return lin(x), order


def _spectral_args():
    torch.manual_seed(0)
    return (torch.nn.utils.parametrizations.spectral_norm(nn.Linear(3, 3)),)


def c_r3_spectral_norm_eval_forward(x, lin):
    lin.eval()
    return lin(x)


c_r3_spectral_norm_eval_forward.extra_args = _spectral_args


def c_r3_modulelist_insert_and_negative_index(x):
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.insert(1, nn.Sigmoid())
    return ml[-1](ml[1](ml[0](x - 1))), [type(m).__name__ for m in ml], len(ml)


def c_r3_state_dict_load_in_frame(x):
    a = nn.Linear(3, 2)
    b = nn.Linear(3, 2)
    with torch.no_grad():
        a.weight.fill_(1.0)
        a.bias.fill_(0.5)
    b.load_state_dict(a.state_dict())
    return b(x), torch.equal(a.weight, b.weight) if False else None


# -- batch seven: mutation of arguments through views, closures over mutable state ----------------------------
def _mutable_arg():
    return (torch.arange(6.0).reshape(2, 3),)


def c_r3_argument_mutated_through_row_view(x, m):
    row = m[1]
    row.mul_(x)
    col = m[:, 0]
    col.add_(100)
    return m.sum(), row, col


c_r3_argument_mutated_through_row_view.extra_args = _mutable_arg


def c_r3_argument_mutated_through_transpose_and_reshape(x, m):
    m.t()[2].fill_(-1)
    m.view(-1)[0] = x.sum()
    return m.clone(), m.is_contiguous()


c_r3_argument_mutated_through_transpose_and_reshape.extra_args = _mutable_arg


def c_r3_argument_inplace_then_metadata_change(x, m):
    m.unsqueeze_(0)
    m.transpose_(1, 2)
    return m.shape, m.stride(), m + 0, x.shape


c_r3_argument_inplace_then_metadata_change.extra_args = _mutable_arg


class _Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("hist", torch.zeros(2, 3))
        self.step = 0

    def forward(self, t):
        self.hist[self.step % 2].copy_(t)
        self.step += 1
        return self.hist.mean(0)


def _stateful_args():
    return (_Stateful(),)


def c_r3_buffer_row_written_with_counter(x, mod):
    a = mod(x)
    b = mod(x * 2)
    return a, b, mod.step, mod.hist.clone()


c_r3_buffer_row_written_with_counter.extra_args = _stateful_args


def c_r3_closure_counter_factory_shared(x):
    def make_counter(start):
        count = [start]

        def inc(k=1):
            count[0] += k
            return count[0]

        def peek():
            return count[0]

        return inc, peek

    inc, peek = make_counter(5)
    inc()
    inc(3)
    other_inc, other_peek = make_counter(0)
    other_inc()
    return x * peek() + other_peek(), inc.__closure__[0].cell_contents


def c_r3_nonlocal_rebinding_tensor(x):
    acc = x

    def add(v):
        nonlocal acc
        acc = acc + v
        return acc

    for i in range(3):
        add(i)
    return acc, add(x).shape


def c_r3_lru_cache_method_and_cache_clear(x):
    class Table:
        calls = 0

        @functools.lru_cache(maxsize=4)  # noqa: B019 - a cached method is the construct
        def row(self, i):
            type(self).calls += 1
            return i * 10

    t = Table()
    vals = [t.row(1), t.row(1), t.row(2)]
    return x + sum(vals), Table.calls


def c_r3_itertools_accumulate_initial_groupby_shapes(x):
    sizes = list(itertools.accumulate([1, 2, 3], initial=10))
    parts = [x[:1], x[1:], x[:2], x[2:]]
    groups = {k: len(list(g)) for k, g in itertools.groupby(sorted(p.numel() for p in parts))}
    return x + sizes[-1], sizes, groups


def c_r3_state_dict_hook_in_frame(x):
    lin = nn.Linear(3, 2)

    def drop_bias(module, state_dict, prefix, local_metadata):
        state_dict.pop(prefix + "bias", None)
        return state_dict

    lin._register_state_dict_hook(drop_bias)
    return lin(x).shape, sorted(lin.state_dict())


def c_r3_parametrization_assign_right_inverse(x):
    class Positive(nn.Module):
        def forward(self, w):
            return w.exp()

        def right_inverse(self, w):
            return w.log()

    lin = nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", Positive())
    with torch.no_grad():
        lin.weight = torch.full((3, 3), 2.0)
    return lin(x), lin.parametrizations.weight.original.mean()


# -- batch eight: text of torch objects, numeric ABCs -------------------------------------------------------
def c_r3_text_of_sizes_dtypes_devices(x):
    s = x.reshape(1, 3).shape
    n = s.numel()
    texts = [str(s), repr(s), f"{x.dtype!s}|{x.dtype!r}", f"{x.device}", f"{n=}",
             "%s/%d" % (tuple(s), n),  # noqa: UP031 - %-formatting is the construct
             f"{s[1]:>4d}", str(torch.float16).split(".")[1]]
    return x + len(texts[0]), texts


def c_r3_numbers_abcs(x):
    import numbers

    vals = [1, 2.5, True, 1j, np.int64(3), np.float32(1.5), "s", x.shape[0]]
    kinds = [(isinstance(v, numbers.Number), isinstance(v, numbers.Integral), isinstance(v, numbers.Real)) for v in vals]
    return x + sum(k[1] for k in kinds), kinds


def c_r3_callable_hashable_sized_abcs(x):
    import collections.abc as cabc

    lin = nn.Linear(3, 3)
    part = functools.partial(torch.add, other=1)
    things = [lin, part, x, [1], (1,), "ab", len]
    flags = [(isinstance(t, cabc.Callable), isinstance(t, cabc.Hashable), isinstance(t, cabc.Sized)) for t in things]
    return part(x), flags, issubclass(type(x), torch.Tensor), issubclass(nn.Linear, nn.Module)


def c_r3_typing_iterable_and_union_checks(x):
    import typing

    def accept(v):
        if isinstance(v, (list, tuple)):
            return sum(accept(i) for i in v)
        if isinstance(v, int | float):
            return v
        if isinstance(v, torch.Tensor):
            return v.sum()
        return 0

    hint = typing.Optional[int]  # noqa: UP045 - typing.Optional is the construct
    return accept([1, (2.5, x), None]), typing.get_origin(hint) is typing.Union, typing.get_args(hint)


def c_r3_format_spec_on_tensor_scalars(x):
    total = x.sum()
    return x + 1, f"{3.14159:.2f}", format(7, "08b"), f"{1234567:,}", f"{'left':<6}|", total.shape


def c_r3_dtype_attributes_and_comparisons(x):
    dts = [torch.float32, torch.int64, torch.bool, torch.complex64, torch.bfloat16]
    info = [(d.is_floating_point, d.is_complex, d.is_signed, d.itemsize) for d in dts]
    ordered = sorted(dts, key=lambda d: (d.itemsize, str(d)))
    return x.to(ordered[-1]).real, info, [str(d) for d in ordered], torch.float32 in {torch.float32: 1}


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
