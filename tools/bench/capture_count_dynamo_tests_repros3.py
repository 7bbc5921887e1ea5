"""Python-level behaviour in the style of PyTorch's test/dynamo/test_repros.py and test_misc.py, for
``capture_count.py --only dynamo_tests_repros3``: descriptors and properties, ``__getattr__`` and
``__getattribute__``, class and instance attribute mutation, closures, functools and itertools, namedtuples and
dataclasses, string formatting, ABCs, tensor metadata reads, ``torch.Size`` arithmetic, in-place ops on views,
dtype promotion with Python scalars, grad-mode nesting, numpy interop, ``random``, dict outputs and nn.Module
patterns (containers indexed and sliced, hooks, buffers registered in forward, parametrizations). Each program is
written afresh over one tensor; none repeats the repros1/repros2/misc2 files.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import itertools
import operator
import random
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import torch
from torch import nn
from torch.nn.utils import parametrize


# -- descriptors and properties ------------------------------------------------------------------------------
class _Scaled:
    """A data descriptor that stores its value on the instance under a private name."""

    def __set_name__(self, owner, name):
        self.private = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.private, 1) * 2

    def __set__(self, obj, value):
        setattr(obj, self.private, value)


class _HasScaled:
    factor = _Scaled()


def c_r3_data_descriptor_set_get(x):
    h = _HasScaled()
    before = h.factor
    h.factor = 5
    return x * h.factor + before, h._factor, type(_HasScaled.__dict__["factor"]).__name__


class _Lazy:
    """A non-data descriptor that caches its result in the instance dict (so the second read skips it)."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__

    def __get__(self, obj, objtype=None):
        value = self.fn(obj)
        obj.__dict__[self.name] = value
        return value


class _Holder:
    calls = 0

    def __init__(self, t):
        self.t = t

    @_Lazy
    def doubled(self):
        type(self).calls += 1
        return self.t * 2


def c_r3_nondata_descriptor_caches(x):
    _Holder.calls = 0
    h = _Holder(x)
    a = h.doubled
    b = h.doubled
    return a + b, _Holder.calls, "doubled" in vars(h)


class _Temp:
    def __init__(self):
        self._c = 0.0

    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, value):
        if value < -273.15:
            raise ValueError("below absolute zero")
        self._c = value

    @celsius.deleter
    def celsius(self):
        self._c = -1.0


def c_r3_property_setter_deleter(x):
    t = _Temp()
    t.celsius = 20.0
    try:
        t.celsius = -300.0
        ok = False
    except ValueError:
        ok = True
    first = t.celsius
    del t.celsius
    return x + first + t.celsius, ok


class _Proxy:
    def __init__(self, target):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "reads", [])

    def __getattribute__(self, name):
        if name.startswith("_") or name == "reads":
            return object.__getattribute__(self, name)
        object.__getattribute__(self, "reads").append(name)
        return getattr(object.__getattribute__(self, "_target"), name)


class _Target:
    alpha = 3
    beta = 4


def c_r3_getattribute_proxy_records(x):
    p = _Proxy(_Target())
    out = x * p.alpha + p.beta
    return out, list(p.reads)


class _Defaults:
    def __init__(self):
        self.known = 1

    def __getattr__(self, name):
        if name.startswith("opt_"):
            return len(name)
        raise AttributeError(name)


def c_r3_getattr_fallback_only_missing(x):
    d = _Defaults()
    d.opt_set = 100
    return x + d.known + d.opt_width + d.opt_set, hasattr(d, "other"), getattr(d, "other", -1)


# -- class and instance attribute mutation -------------------------------------------------------------------
class _Counter:
    made = 0
    step = 1

    def __init__(self):
        type(self).made += 1
        self.value = 0

    def bump(self):
        self.value += self.step
        return self


def c_r3_class_attr_mutated_then_shadowed(x):
    _Counter.made = 0
    _Counter.step = 1
    a = _Counter().bump().bump()
    _Counter.step = 10
    b = _Counter().bump()
    b.step = 100
    b.bump()
    return x + a.value + b.value + _Counter.made, a.step, b.step


def c_r3_setattr_getattr_dynamic_names(x):
    class Cfg:
        pass

    cfg = Cfg()
    for i, name in enumerate(["lr", "wd", "mom"]):
        setattr(cfg, name, (i + 1) * 0.5)
    total = sum(getattr(cfg, n) for n in ("lr", "wd", "mom"))
    delattr(cfg, "wd")
    return x * total, sorted(vars(cfg)), hasattr(cfg, "wd")


def c_r3_class_made_in_frame_with_type(x):
    Base = type("Base", (), {"k": 2, "scale": lambda self, t: t * self.k})
    Child = type("Child", (Base,), {"k": 5})
    return Base().scale(x) + Child().scale(x), Child.__mro__[1].__name__, issubclass(Child, Base)


# -- closures ------------------------------------------------------------------------------------------------
def c_r3_closure_cells_shared_between_closures(x):
    def make():
        total = 0

        def add(v):
            nonlocal total
            total += v
            return total

        def get():
            return total

        return add, get

    add, get = make()
    add(2)
    add(3)
    return x * get(), add.__closure__[0].cell_contents


def c_r3_closure_late_binding_loop(x):
    fns = [lambda t: t + i for i in range(3)]
    fixed = [lambda t, i=i: t + i for i in range(3)]
    return [f(x) for f in fns], [f(x) for f in fixed]


def c_r3_closure_over_tensor_mutated(x):
    acc = x.clone()

    def step(k):
        acc.add_(k)
        return acc.sum()

    s1 = step(1)
    s2 = step(2)
    return acc, s1, s2


# -- functools -----------------------------------------------------------------------------------------------
def c_r3_partial_of_partial_keywords(x):
    def affine(t, scale=1.0, shift=0.0, *, clamp=None):
        out = t * scale + shift
        return out.clamp(max=clamp) if clamp is not None else out

    p = functools.partial(affine, scale=2.0)
    q = functools.partial(p, shift=1.0, clamp=4.0)
    return q(x), p(x, shift=-1.0), q.keywords, q.func is affine


def c_r3_reduce_with_initial_over_tensors(x):
    parts = [x, x * 2, x * 3]
    total = functools.reduce(operator.add, parts, torch.zeros_like(x))
    prod = functools.reduce(lambda a, b: a * b, [1, 2, 3, 4])
    return total * prod


def c_r3_lru_cache_on_int_helper(x):
    @functools.lru_cache(maxsize=None)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    return x + fib(10), fib.cache_info().hits


def c_r3_wraps_keeps_name_and_doc(x):
    def traced(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return fn(*args, **kwargs) + 1

        return inner

    @traced
    def scale(t, k=2):
        """Scales."""
        return t * k

    return scale(x, k=3), scale.__name__, scale.__doc__, scale.__wrapped__(x)


class _Area:
    computed = 0

    def __init__(self, t):
        self.t = t

    @functools.cached_property
    def norm(self):
        type(self).computed += 1
        return self.t.norm()


def c_r3_cached_property_once(x):
    _Area.computed = 0
    a = _Area(x)
    return a.norm + a.norm, _Area.computed


def c_r3_total_ordering_sort(x):
    @functools.total_ordering
    class Rank:
        def __init__(self, v):
            self.v = v

        def __eq__(self, other):
            return self.v == other.v

        def __lt__(self, other):
            return self.v < other.v

    ranks = sorted([Rank(3), Rank(1), Rank(2)])
    return x + ranks[0].v, Rank(2) >= Rank(1), Rank(1) > Rank(2), [r.v for r in ranks]


# -- itertools -----------------------------------------------------------------------------------------------
def c_r3_itertools_product_permutations(x):
    pairs = list(itertools.product(range(2), "ab"))
    perms = list(itertools.permutations([1, 2, 3], 2))
    combos = list(itertools.combinations_with_replacement(range(3), 2))
    return x * len(pairs) + len(perms) + len(combos), pairs[-1], perms[0]


def c_r3_itertools_chain_from_iterable_tensors(x):
    rows = [[x, x + 1], [x * 2]]
    flat = list(itertools.chain.from_iterable(rows))
    return torch.stack(flat).sum(0), len(flat)


def c_r3_itertools_zip_longest_starmap(x):
    pairs = list(itertools.zip_longest([1, 2, 3], [10, 20], fillvalue=0))
    sums = list(itertools.starmap(operator.add, pairs))
    taken = list(itertools.takewhile(lambda v: v < 20, sums))
    dropped = list(itertools.dropwhile(lambda v: v < 20, sums))
    return x + sum(taken), sums, dropped


def c_r3_itertools_pairwise_compress(x):
    sizes = [1, 3, 6, 10]
    gaps = [b - a for a, b in itertools.pairwise(sizes)]
    kept = list(itertools.compress("abcd", [1, 0, 1, 0]))
    return x * gaps[-1], gaps, kept


# -- namedtuples and dataclasses -----------------------------------------------------------------------------
class _Span(NamedTuple):
    start: int
    stop: int = 4

    @property
    def width(self):
        return self.stop - self.start

    def take(self, t):
        return t[self.start:self.stop]


def c_r3_typed_namedtuple_property_method(x):
    s = _Span(1)
    s2 = s._replace(stop=3)
    return s.take(x) * s.width, s2.take(x), s2, _Span._fields, _Span._field_defaults


_Pair = namedtuple("_Pair", ["lo", "hi"], defaults=[10])


def c_r3_namedtuple_defaults_unpack_make(x):
    p = _Pair(1)
    q = _Pair._make([2, 3])
    lo, hi = q
    return x.clamp(p.lo, p.hi) + lo * hi, p, q._asdict(), p == (1, 10)


@dataclasses.dataclass
class _Stats:
    mean: torch.Tensor
    count: int = 0
    tags: list = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self.tags.append("made")


def c_r3_dataclass_post_init_fields_astuple(x):
    s = _Stats(x.mean(), 3)
    names = [f.name for f in dataclasses.fields(s)]
    s.count += 1
    return s.mean * s.count, names, s.tags, dataclasses.astuple(s)[1]


@dataclasses.dataclass(order=True)
class _Prio:
    rank: int
    name: str = dataclasses.field(compare=False, default="")


def c_r3_dataclass_order_compare(x):
    items = sorted([_Prio(3, "c"), _Prio(1, "a"), _Prio(2, "b")])
    return x + items[0].rank, [p.name for p in items], _Prio(1, "x") == _Prio(1, "y"), _Prio(1) < _Prio(2)


# -- string formatting ---------------------------------------------------------------------------------------
def c_r3_format_specs_on_metadata(x):
    label = "{:>6}|{:<4}|{:^5}".format(x.dim(), x.numel(), "z")
    pct = f"{0.256:.1%}"
    hexed = "%04x-%s-%r" % (255, x.dtype, "q")
    return x + len(label), label, pct, hexed


def c_r3_str_methods_build_key(x):
    parts = "layer.0.weight".split(".")
    key = "_".join(p.upper() if p.isdigit() is False else p.zfill(2) for p in parts)
    return x * len(key), key, key.startswith("LAYER"), key.replace("_", "/", 1), "weight".center(10, "*")


# -- isinstance / issubclass with ABCs -----------------------------------------------------------------------
class _Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...

    def twice(self):
        return 2 * self.area()


class _Sq(_Shape):
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s * self.s


class _Duck:
    def area(self):
        return 7


_Shape.register(_Duck)


def c_r3_abc_register_virtual_subclass(x):
    shapes = [_Sq(2), _Duck()]
    total = sum(s.area() for s in shapes if isinstance(s, _Shape))
    try:
        _Shape()
        made = True
    except TypeError:
        made = False
    return x + total + _Sq(3).twice(), issubclass(_Duck, _Shape), made


def c_r3_collections_abc_checks(x):
    import collections.abc as cabc

    things = [x, [1], (2,), {"a": 1}, "s", range(3), x.shape]
    kinds = [
        (isinstance(t, cabc.Sequence), isinstance(t, cabc.Mapping), isinstance(t, cabc.Iterable)) for t in things
    ]
    return x + sum(sum(k) for k in kinds), kinds


# -- tensor metadata -----------------------------------------------------------------------------------------
def c_r3_tensor_metadata_branches(x):
    y = x.view(3, 1).expand(3, 2)
    out = x
    if y.is_contiguous():
        out = out + 100
    if y.stride() == (1, 0):
        out = out + 1
    if y.layout == torch.strided and y.device.type == "cpu":
        out = out + 2
    if not y.requires_grad and y.dtype.is_floating_point:
        out = out + 4
    return out, y.stride(), y.storage_offset(), y.ndim, y.element_size()


def c_r3_size_arithmetic_and_numel(x):
    s = x.unsqueeze(0).expand(2, 3).shape
    bigger = s + (4,)
    sliced = bigger[1:]
    return (
        x.new_zeros(bigger).sum() + sliced.numel(),
        type(bigger).__name__,
        type(sliced).__name__,
        s * 2,
        torch.Size([2, 3]) == s,
    )


def c_r3_transposed_views_strides(x):
    m = torch.arange(6.0).reshape(2, 3) + x.sum()
    t = m.t()
    return t.contiguous().stride(), t.stride(), t.is_contiguous(), t.data_ptr() == m.data_ptr(), t * 1


# -- in-place ops on views and slices ------------------------------------------------------------------------
def c_r3_inplace_on_strided_slice_of_clone(x):
    base = x.repeat(2).clone()
    evens = base[::2]
    evens.mul_(10)
    base[1:3] += 1
    diag = base.view(2, 3).diagonal()
    diag.zero_()
    return base, evens


def c_r3_inplace_on_narrow_and_select(x):
    m = x.unsqueeze(0).repeat(3, 1).clone()
    m.narrow(1, 0, 2).add_(1)
    m.select(0, 2).fill_(-1)
    m[:, -1].clamp_(min=0.5)
    return m


# -- dtype promotion with Python scalars ---------------------------------------------------------------------
def c_r3_promotion_with_python_scalars(x):
    i = x.to(torch.int32)
    a = i + 1
    b = i * 1.5
    c = i / 2
    d = i // 2
    e = x.half() + 1.0
    f = i + True
    g = i.to(torch.bool) & True
    return [(t.dtype, t) for t in (a, b, c, d, e, f, g)]


def c_r3_promotion_complex_and_int64(x):
    a = x.long() * 2
    b = x.long() + 0.5
    c = x * 1j
    d = torch.tensor(3, dtype=torch.uint8) + x.int()
    return a.dtype, b.dtype, c.dtype, d.dtype, b, c.imag, torch.result_type(x.int(), 2.0)


# -- grad mode nesting ---------------------------------------------------------------------------------------
def c_r3_grad_mode_nesting_decorators(x):
    w = x.clone().requires_grad_(True)

    @torch.no_grad()
    def frozen(t):
        with torch.enable_grad():
            inner = t * 2
        return t * 3, inner

    a, b = frozen(w)
    with torch.set_grad_enabled(False):
        c = w + 1
        with torch.set_grad_enabled(True):
            d = w + 2
    return a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, torch.is_grad_enabled(), a, d


def c_r3_inference_mode_flags(x):
    with torch.inference_mode():
        y = x * 2
        inside = torch.is_inference_mode_enabled()
    return y + 0, inside, torch.is_inference_mode_enabled()


# -- numpy interop -------------------------------------------------------------------------------------------
def c_r3_numpy_scalars_in_tensor_math(x):
    k = np.float32(2.5)
    n = np.int64(3)
    shape = np.array([3, 1]).tolist()
    return x * float(k) + int(n), x.reshape(shape), np.prod([2, 3]).item()


def c_r3_numpy_constant_table_index(x):
    table = np.linspace(0.0, 1.0, 5)
    idx = int(np.argmax(table))
    w = torch.from_numpy(table[:3].copy()).to(x.dtype)
    return x * w + idx, table.shape


# -- random module -------------------------------------------------------------------------------------------
def c_r3_random_choice_shuffle_state(x):
    rng = random.Random(7)
    order = [0, 1, 2]
    rng.shuffle(order)
    pick = rng.choice([1, 2, 3])
    return x[order] * pick, order, rng.random() < 2


def c_r3_random_global_draws(x):
    a = random.randint(1, 5)
    b = random.uniform(0, 1)
    return x * a + b, random.random()


# -- dict-of-tensors outputs ---------------------------------------------------------------------------------
def c_r3_dict_of_tensors_built_and_updated(x):
    out = {"base": x}
    out.update(doubled=x * 2, **{"neg": -x})
    out.setdefault("base", x + 100)
    nested = {"stats": {k: v.sum() for k, v in out.items()}, "keys": tuple(out)}
    out.pop("neg")
    return out, nested


def c_r3_dict_comprehension_keyed_by_name(x):
    names = ["a", "b", "c"]
    weights = {n: x[i] * (i + 1) for i, n in enumerate(names)}
    inverted = {v: k for k, v in {"a": 1, "b": 2}.items()}
    return weights, inverted, sorted(weights, reverse=True)


# -- nn.Module patterns --------------------------------------------------------------------------------------
class _Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(4)])
        self.heads = nn.ModuleDict({"a": nn.Identity(), "b": nn.Tanh()})
        self.seq = nn.Sequential(nn.ReLU(), nn.Linear(3, 3), nn.Sigmoid())

    def forward(self, t):
        for layer in self.layers[1:3]:
            t = layer(t)
        t = self.layers[-1](t)
        for name, head in self.heads.items():
            t = head(t) if name == "b" else t
        return self.seq[:2](t) + self.seq[-1](t), len(self.seq[1:])


def _stack_args():
    torch.manual_seed(0)
    return (_Stack(),)


def c_r3_module_containers_indexed_sliced(x, mod):
    return mod(x)


c_r3_module_containers_indexed_sliced.extra_args = _stack_args


class _LazyBuffer(nn.Module):
    def forward(self, t):
        if not hasattr(self, "running"):
            self.register_buffer("running", torch.zeros_like(t))
        self.running.add_(t)
        return t + self.running


def _lazy_buffer_args():
    return (_LazyBuffer(),)


def c_r3_buffer_registered_in_forward(x, mod):
    out = mod(x)
    return out, [n for n, _ in mod.named_buffers()]


c_r3_buffer_registered_in_forward.extra_args = _lazy_buffer_args


class _Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.seen = []
        self.lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        self.lin.register_forward_hook(lambda m, args, out: out + 1)

    def forward(self, t):
        self.seen.append(t.shape[0])
        return self.lin(t)


def _hooked_args():
    torch.manual_seed(0)
    return (_Hooked(),)


def c_r3_module_pre_and_post_hooks(x, mod):
    return mod(x), list(mod.seen)


c_r3_module_pre_and_post_hooks.extra_args = _hooked_args


class _Symmetric(nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


def _param_args():
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", _Symmetric())
    return (lin,)


def c_r3_parametrized_weight_read(x, lin):
    w = lin.weight
    return lin(x), torch.equal(w, w.t())


c_r3_parametrized_weight_read.extra_args = _param_args


class _Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))
        self.mode = "mul"

    def forward(self, t):
        if self.mode == "mul":
            return t * self.scale
        return t + self.scale


def _gate_args():
    return (_Gate(),)


def c_r3_module_attr_flipped_between_calls(x, mod):
    a = mod(x)
    mod.mode = "add"
    b = mod(x)
    mod.mode = "mul"
    return a, b


c_r3_module_attr_flipped_between_calls.extra_args = _gate_args


def c_r3_module_made_in_frame_state_dict(x):
    seq = nn.Sequential(nn.Linear(3, 2, bias=False), nn.Flatten(0))
    with torch.no_grad():
        seq[0].weight.fill_(0.5)
    sd = seq.state_dict()
    return seq(x), list(sd), sd["0.weight"].shape


def c_r3_module_apply_and_children(x):
    net = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.1)
            nn.init.zeros_(m.bias)

    net.apply(init)
    kinds = [type(c).__name__ for c in net.children()]
    return net(x), kinds, sum(p.numel() for p in net.parameters())


# -- more objects: slots, operators, __call__, __setattr__ overrides -------------------------------------------
class _Vec:
    __slots__ = ("t", "w")

    def __init__(self, t, w=1):
        self.t = t
        self.w = w

    def __add__(self, other):
        if isinstance(other, _Vec):
            return _Vec(self.t + other.t, self.w + other.w)
        return _Vec(self.t + other, self.w)

    __radd__ = __add__

    def __iadd__(self, other):
        self.t = self.t + other
        self.w += 1
        return self

    def __len__(self):
        return self.t.shape[0]

    def __bool__(self):
        return self.w > 0


def c_r3_slots_operators_radd_iadd(x):
    v = _Vec(x)
    u = 1 + v + _Vec(x, 2)
    u += 3
    total = sum([_Vec(x), _Vec(x)], _Vec(x * 0, 0))
    return u.t, u.w, total.t, len(u), bool(_Vec(x, 0)), hasattr(v, "__dict__")


class _Frozen:
    def __init__(self, **kw):
        for k, v in kw.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"{name} is read-only")


def c_r3_setattr_override_raises(x):
    f = _Frozen(scale=3)
    try:
        f.scale = 4
        msg = ""
    except AttributeError as e:
        msg = str(e)
    return x * f.scale, msg


class _Affine:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __call__(self, t, *, inverse=False):
        return (t - self.b) / self.a if inverse else t * self.a + self.b

    def __repr__(self):
        return f"Affine({self.a}, {self.b})"


def c_r3_callable_object_and_repr(x):
    f = _Affine(2.0, 1.0)
    y = f(x)
    return f(y, inverse=True), repr(f), callable(f), str([f])


class _Registry:
    items = {}

    @classmethod
    def register(cls, name):
        def deco(fn):
            cls.items[name] = fn
            return fn

        return deco

    @staticmethod
    def norm(t):
        return t / (t.abs().max() + 1)


def c_r3_classmethod_registry_decorator(x):
    _Registry.items = {}

    @_Registry.register("double")
    def double(t):
        return t * 2

    @_Registry.register("neg")
    def neg(t):
        return -t

    out = x
    for name in sorted(_Registry.items):
        out = _Registry.items[name](out)
    return _Registry().norm(out), sorted(_Registry.items)


class _Seq:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i

    def __contains__(self, v):
        return v in (0, 1, 4, 9)


def c_r3_getitem_protocol_iteration(x):
    s = _Seq(4)
    squares = list(s)
    return x + sum(squares), 4 in s, 5 in s, squares, list(reversed(range(3)))


class _Key:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, _Key) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


def c_r3_user_hash_eq_dict_keys(x):
    d = {_Key("a"): x, _Key("b"): x * 2}
    d[_Key("a")] = d[_Key("a")] + 10
    return d[_Key("a")], len(d), _Key("b") in d, len({_Key("c"), _Key("c")})


# -- more tensor metadata -----------------------------------------------------------------------------------
def c_r3_tensor_predicates_and_type_string(x):
    y = x.to(torch.int64)
    flags = (x.is_floating_point(), y.is_floating_point(), x.is_complex(), x.is_leaf, x.grad_fn is None,
             x.dim(), x.nelement(), y.type(), x.type(), x.dtype.itemsize, x.is_signed())
    return x + flags[5], flags


def c_r3_finfo_iinfo_from_dtype(x):
    eps = torch.finfo(x.dtype).eps
    big = torch.iinfo(torch.int32).max
    tiny = torch.finfo(torch.float16).tiny
    return x.clamp(min=eps) + (big > 2**30) + tiny, torch.finfo(x.dtype).bits


def c_r3_size_methods(x):
    s = x.reshape(1, 3, 1).shape
    return x + s.count(1) + s.index(3) + len(s), s.numel(), list(s), tuple(reversed(s)), s[-1], max(s)


def c_r3_view_chain_metadata(x):
    y = x.reshape(3, 1).expand(3, 4).t()
    return y.shape, y.stride(), y.is_contiguous(), y.contiguous().is_contiguous(), y.unsqueeze(1).stride(), y.mT.shape


# -- more in-place on views -----------------------------------------------------------------------------------
def c_r3_inplace_through_unsqueeze_and_transpose(x):
    base = torch.zeros(3, 2) + x.unsqueeze(1)
    base.t()[0].mul_(2)
    base.unsqueeze(0)[0, :, 1].sub_(1)
    base.view(-1)[::3].fill_(7)
    return base


def c_r3_index_put_and_masked_inplace(x):
    y = x.clone()
    y[y > 0] *= 3
    y[[0, 2]] += torch.tensor([10.0, 20.0])
    y.masked_fill_(y > 20, -1)
    y.index_add_(0, torch.tensor([1]), torch.tensor([5.0]))
    return y


# -- more dtype promotion ----------------------------------------------------------------------------------
def c_r3_promotion_bool_and_uint8(x):
    b = x > 0
    u = x.to(torch.uint8)
    return [(t.dtype, t) for t in (b + b, b * 2, b + 0.5, u - 1, u * -1, b & (x < 2), torch.where(b, x, 0),
                                   torch.where(b, 1, 0), u.sum(), b.sum())]


def c_r3_promotion_division_kinds(x):
    i = x.long() + 1
    return [(t.dtype, t) for t in (i / i, i // 2, i % 2, i ** 2, i ** 0.5, 2 ** i, -i // 2, i.true_divide(2),
                                   torch.div(i, 2, rounding_mode="floor"))]


# -- more grad mode ---------------------------------------------------------------------------------------
def c_r3_set_grad_enabled_function_form(x):
    w = x.clone().requires_grad_()
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    a = w * 2
    torch.set_grad_enabled(prev)
    b = w * 2
    return a.requires_grad, b.requires_grad, torch.is_grad_enabled(), a, b.detach()


def c_r3_requires_grad_inside_no_grad(x):
    with torch.no_grad():
        w = x.clone().requires_grad_(True)
        y = w * 3
    z = w * 3
    return w.requires_grad, y.requires_grad, z.requires_grad, y, z.detach()


def c_r3_grad_of_made_leaf(x):
    w = x.clone().requires_grad_(True)
    loss = (w * w).sum()
    (g,) = torch.autograd.grad(loss, [w])
    return g, loss.detach()


# -- more numpy --------------------------------------------------------------------------------------------
def c_r3_numpy_roundtrip_ops(x):
    a = x.numpy()
    b = np.clip(a * 2 - 1, 0, 3)
    c = torch.from_numpy(b) + x
    return c, float(b.sum()), b.dtype.name


def c_r3_numpy_dtype_mapping(x):
    dt = np.dtype("float32")
    y = torch.as_tensor(np.ones(3, dtype=dt)) * x
    return y, str(dt), np.float32 == dt.type


# -- more random -------------------------------------------------------------------------------------------
def c_r3_random_getstate_setstate_replay(x):
    state = random.getstate()
    a = random.random()
    random.setstate(state)
    b = random.random()
    return x * a - x * b, a == b


def c_r3_seeded_random_sample_choices(x):
    rng = random.Random(11)
    parts = [x, x + 1, x * 2, x - 1]
    two = rng.sample(parts, 2)
    picks = rng.choices(parts, weights=[4, 3, 2, 1], k=3)
    return torch.stack(two).sum(0) + torch.stack(picks).sum(0), rng.randint(0, 9)


# -- more dict outputs -------------------------------------------------------------------------------------
def c_r3_ordereddict_and_defaultdict_outputs(x):
    from collections import OrderedDict, defaultdict

    od = OrderedDict()
    od["z"] = x
    od["a"] = x + 1
    od.move_to_end("z")
    groups = defaultdict(list)
    for i in range(3):
        groups[i % 2].append(x[i])
    return od, dict(groups), list(od.keys())


def c_r3_dict_merge_operators(x):
    a = {"x": x, "n": 1}
    b = {"n": 2, "y": x * 2}
    merged = a | b
    a |= {"z": x - 1}
    return merged, a, {**b, "n": 3}


# -- more nn.Module patterns -------------------------------------------------------------------------------
class _Grow(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3)])
        self.params = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.full((3,), 2.0))])

    def forward(self, t):
        for p in self.params[::-1]:
            t = t * p
        for i, blk in enumerate(self.blocks):
            t = blk(t) + i
        return t, len(self.params), isinstance(self.params[0], nn.Parameter)


def _grow_args():
    torch.manual_seed(0)
    return (_Grow(),)


def c_r3_parameter_list_reversed_slice(x, mod):
    return mod(x)


c_r3_parameter_list_reversed_slice.extra_args = _grow_args


class _Swap(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()

    def forward(self, t):
        a = self.act(t - 1)
        self.act = nn.Tanh()
        return a + self.act(t)


def c_r3_submodule_replaced_in_forward(x):
    m = _Swap()
    out = m(x)
    return out, type(m.act).__name__


def _tree_args():
    torch.manual_seed(0)
    tree = nn.Sequential(nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Linear(3, 2))
    return (tree,)


def c_r3_get_submodule_and_named_modules(x, tree):
    inner = tree.get_submodule("0.0")
    bias = tree.get_parameter("1.bias")
    names = [n for n, m in tree.named_modules() if isinstance(m, nn.Linear)]
    return inner(x) + 1, tree(x) + bias, names


c_r3_get_submodule_and_named_modules.extra_args = _tree_args


class _NonPersistent(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((3,), 2.0), persistent=False)
        self.register_buffer("shift", torch.ones(3))

    def forward(self, t):
        return t * self.scale + self.shift


def c_r3_non_persistent_buffer_state_dict(x):
    m = _NonPersistent()
    return m(x), list(m.state_dict()), [n for n, _ in m.named_buffers()]


def _kw_hook_args():
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    lin.register_forward_pre_hook(lambda m, args, kwargs: (args, {**kwargs}), with_kwargs=True)
    lin.register_forward_hook(lambda m, args, kwargs, out: out * 2, with_kwargs=True)
    return (lin,)


def c_r3_hooks_with_kwargs(x, lin):
    return lin(x)


c_r3_hooks_with_kwargs.extra_args = _kw_hook_args


def c_r3_train_eval_toggle_dropout_identity(x):
    net = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    net.eval()
    out = net(x)
    flags = [m.training for m in net.modules()]
    net.train()
    return out, flags, net.training


def _weight_norm_args():
    torch.manual_seed(0)
    lin = torch.nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
    return (lin,)


def c_r3_weight_norm_parametrization(x, lin):
    return lin(x), lin.parametrizations.weight.original0.shape


c_r3_weight_norm_parametrization.extra_args = _weight_norm_args


# -- batch three: dispatch helpers, operator module, enums, typing -----------------------------------------
@functools.singledispatch
def _describe(v):
    return "other"


@_describe.register
def _(v: int):
    return "int"


@_describe.register(torch.Tensor)
def _(v):
    return "tensor"


def c_r3_singledispatch_on_kinds(x):
    kinds = [_describe(v) for v in (1, x, "s")]
    return x + len(kinds[1]), kinds


def c_r3_cmp_to_key_sort(x):
    def by_len_then_alpha(a, b):
        return (len(a) - len(b)) or ((a > b) - (a < b))

    words = sorted(["ccc", "a", "bb", "ab"], key=functools.cmp_to_key(by_len_then_alpha))
    return x * len(words[-1]), words


def c_r3_operator_getters(x):
    rows = [{"w": 2, "b": 1}, {"w": 3, "b": 0}]
    ws = list(map(operator.itemgetter("w"), rows))
    s = _Span(0, 2)
    width = operator.attrgetter("stop")(s)
    up = operator.methodcaller("upper")("ab")
    return x * sum(ws) + width, ws, up, operator.itemgetter(0, 2)(x.tolist())


def c_r3_enum_flag_combination(x):
    import enum

    class Mode(enum.Flag):
        READ = 1
        WRITE = 2
        EXEC = 4

    m = Mode.READ | Mode.WRITE
    out = x
    if Mode.WRITE in m:
        out = out * 2
    if not (m & Mode.EXEC):
        out = out + 1
    return out, m.value, Mode(3) == m, [f.name for f in Mode if f in m]


def c_r3_intenum_arithmetic_index(x):
    import enum

    class Axis(enum.IntEnum):
        ROW = 0
        COL = 1

    m = x.reshape(1, 3)
    return m.sum(Axis.COL), m.shape[Axis.ROW], Axis.COL + 1, int(Axis.ROW), Axis(1).name


def c_r3_runtime_checkable_protocol(x):
    from typing import Protocol, runtime_checkable

    @runtime_checkable
    class Scales(Protocol):
        def scale(self, t): ...

    class Doubler:
        def scale(self, t):
            return t * 2

    objs = [Doubler(), object()]
    out = x
    for o in objs:
        if isinstance(o, Scales):
            out = o.scale(out)
    return out, [isinstance(o, Scales) for o in objs]


def c_r3_dataclass_init_false_replace_asdict(x):
    @dataclasses.dataclass
    class Box:
        lo: float
        hi: float
        width: float = dataclasses.field(init=False)

        def __post_init__(self):
            self.width = self.hi - self.lo

    b = Box(1.0, 4.0)
    c = dataclasses.replace(b, hi=6.0)
    return x.clamp(b.lo, c.hi) * c.width, dataclasses.asdict(c), b == Box(1.0, 4.0)


def c_r3_dataclass_holding_tensors_asdict(x):
    @dataclasses.dataclass
    class Out:
        logits: torch.Tensor
        extras: dict

    o = Out(x * 2, {"aux": x + 1, "n": 3})
    d = dataclasses.asdict(o)
    return d["logits"] + d["extras"]["aux"], sorted(d), d["extras"]["n"]


def c_r3_percent_and_format_map(x):
    info = {"n": x.numel(), "kind": str(x.dtype).split(".")[-1]}
    a = "%(n)d items of %(kind)s" % info
    b = "{n:03d}-{kind!r}".format_map(info)
    c = "{0[1]}|{1.real}".format([7, 8], 2 + 3j)
    return x + len(a), a, b, c


def c_r3_str_join_on_shapes_and_ljust(x):
    s = "x".join(str(d) for d in x.reshape(1, 3).shape)
    row = "|".join(f"{v:>4}" for v in ("a", "bb"))
    return x + len(s), s, row, "ab".ljust(5, "."), "ab".rjust(5), s.partition("x")


# -- batch three: module patterns -------------------------------------------------------------------------
class _AttrModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self._alias = {"proj": "lin"}

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            alias = self.__dict__["_alias"].get(name)
            if alias is None:
                raise
            return super().__getattr__(alias)

    def forward(self, t):
        return self.proj(t) + self.lin.bias


def _attr_module_args():
    torch.manual_seed(0)
    return (_AttrModule(),)


def c_r3_module_getattr_override_alias(x, mod):
    return mod(x), hasattr(mod, "missing")


c_r3_module_getattr_override_alias.extra_args = _attr_module_args


class _Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))
        self._temp = 1.0

    @property
    def temperature(self):
        return self._temp

    @temperature.setter
    def temperature(self, v):
        self._temp = max(v, 0.1)

    def forward(self, t):
        self.temperature = self.temperature * 0.5
        return t * self.w / self.temperature


def c_r3_module_property_setter_in_forward(x):
    m = _Scaled()
    a = m(x)
    b = m(x)
    return a, b, m.temperature


def c_r3_module_hook_handle_removed(x):
    lin = nn.Linear(3, 3)
    calls = []
    h = lin.register_forward_hook(lambda m, i, o: calls.append(o.shape[-1]))
    a = lin(x)
    h.remove()
    b = lin(x)
    return a, b, calls, len(lin._forward_hooks)


def c_r3_add_module_in_forward(x):
    class Lazy(nn.Module):
        def forward(self, t):
            if "head" not in self._modules:
                self.add_module("head", nn.Identity())
            return self.head(t) + 1

    m = Lazy()
    return m(x), list(dict(m.named_children()))


def c_r3_module_requires_grad_toggle(x):
    lin = nn.Linear(3, 2)
    lin.requires_grad_(False)
    y = lin(x)
    flags = [p.requires_grad for p in lin.parameters()]
    lin.weight.requires_grad_(True)
    z = lin(x)
    return y.requires_grad, z.requires_grad, flags


def c_r3_named_parameters_prefix_and_count(x):
    net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1, bias=False))
    names = [n for n, _ in net.named_parameters(prefix="net")]
    total = sum(p.numel() for p in net.parameters() if p.requires_grad)
    return net(x), names, total, net[1].__class__.__name__


def c_r3_moduledict_update_and_pop(x):
    md = nn.ModuleDict({"a": nn.ReLU()})
    md.update({"b": nn.Tanh(), "c": nn.Sigmoid()})
    md.pop("a")
    out = x
    for k in md:
        out = md[k](out)
    return out, list(md.keys()), "a" in md


def c_r3_sequential_append_insert_in_frame(x):
    seq = nn.Sequential(nn.Linear(3, 3))
    seq.append(nn.ReLU())
    seq.insert(0, nn.Identity())
    return seq(x), [type(m).__name__ for m in seq], len(seq)


# -- batch four: wrappers, class counters, iteration helpers -------------------------------------------------
class _TensorBox:
    """Delegates attribute reads it lacks to the tensor it wraps."""

    def __init__(self, t):
        self.t = t

    def __getattr__(self, name):
        return getattr(self.t, name)

    def __add__(self, other):
        return _TensorBox(self.t + (other.t if isinstance(other, _TensorBox) else other))


def c_r3_getattr_delegates_to_tensor(x):
    b = _TensorBox(x) + 1
    return b.t, b.shape, b.dtype, b.sum(), b.ndim, b.unsqueeze(0).shape


class _Counted(nn.Module):
    instances = 0

    def __init__(self):
        super().__init__()
        type(self).instances += 1
        self.idx = type(self).instances

    def forward(self, t):
        return t * self.idx


def c_r3_class_counter_in_module_init(x):
    _Counted.instances = 0
    a, b = _Counted(), _Counted()
    return a(x) + b(x), _Counted.instances


class _Base:
    @property
    def label(self):
        return "base"

    def scale(self, t):
        return t


class _Child(_Base):
    @property
    def label(self):
        return "child/" + super().label

    def scale(self, t):
        return super().scale(t) * 2


def c_r3_property_super_chain(x):
    c = _Child()
    return c.scale(x), c.label, _Base.label.fget(c), type(c).__mro__[1].__name__


class _Opts:
    def set(self, name, value):
        setattr(self, name, value)
        return self

    set_lr = functools.partialmethod(set, "lr")


def c_r3_partialmethod(x):
    o = _Opts().set_lr(0.5).set("wd", 0.1)
    return x * o.lr + o.wd, vars(o)


def c_r3_update_wrapper_manual(x):
    def base(t):
        """Base doc."""
        return t + 1

    def wrapper(t):
        return base(t) * 2

    functools.update_wrapper(wrapper, base)
    return wrapper(x), wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ is base


def c_r3_zip_strict_map_filter_enumerate(x):
    rows = list(map(lambda a, b: a * b, [1, 2, 3], (4, 5, 6)))
    kept = list(filter(None, [0, 1, "", "a", None, 2]))
    idx = [i for i, _ in enumerate("abc", start=10)]
    try:
        list(zip([1, 2], [1], strict=True))
        err = ""
    except ValueError as e:
        err = type(e).__name__
    return x + sum(rows), kept, idx, err


def c_r3_islice_generator_of_tensors(x):
    def powers(t):
        p = t
        while True:
            yield p
            p = p * t

    first = list(itertools.islice(powers(x), 3))
    return torch.stack(first), len(first)


def c_r3_sorted_by_shape_key(x):
    ts = [x.reshape(3, 1), x, x.reshape(1, 1, 3)]
    by_dim = sorted(ts, key=lambda t: (t.dim(), t.shape))
    return [t.shape for t in by_dim], by_dim[0] + 1, min(ts, key=lambda t: t.numel() + t.dim()).shape


# -- batch four: sizes, views, grad modes -------------------------------------------------------------------
def c_r3_size_as_dict_key_and_compare(x):
    s = x.reshape(1, 3).shape
    table = {s: "row", torch.Size([3, 1]): "col"}
    return x + len(table), table[torch.Size([1, 3])], s < (2,), s == (1, 3), s.__class__.__name__, hash(s) == hash((1, 3))


def c_r3_new_tensor_and_unfold(x):
    y = x.new_tensor([1.0, 2.0, 3.0, 4.0])
    w = y.unfold(0, 2, 1)
    return w, w.stride(), w.shape, y.new_ones(2).dtype


def c_r3_inplace_on_ellipsis_none_index(x):
    m = x.repeat(2, 1).clone()
    m[..., None][0].mul_(3)
    m[1, ...] = m[0] - 1
    m.T[0] += 100
    return m


def c_r3_no_grad_decorated_module_method(x):
    class Tracker(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("ema", torch.zeros(3))
            self.w = nn.Parameter(torch.ones(3))

        @torch.no_grad()
        def update(self, t):
            self.ema.mul_(0.5).add_(t * self.w)
            return (t * self.w).requires_grad

        def forward(self, t):
            flag = self.update(t)
            return t * self.w + self.ema, flag

    m = Tracker()
    out, flag = m(x)
    return out, flag, out.requires_grad, m.ema


def c_r3_inference_mode_false_inside_no_grad(x):
    w = x.clone().requires_grad_()
    with torch.no_grad():
        with torch.enable_grad():
            a = w * 2
        with torch.inference_mode(mode=False):
            b = w * 2
    return a.requires_grad, b.requires_grad, torch.is_grad_enabled(), a.detach() + b.detach()


def c_r3_random_seed_then_torch_draws(x):
    random.seed(5)
    k = random.randint(1, 3)
    torch.manual_seed(k)
    return x + torch.rand(3), k


# -- batch four: containers and modules ---------------------------------------------------------------------
def c_r3_chainmap_lookup_layers(x):
    from collections import ChainMap

    defaults = {"scale": 1.0, "shift": 0.0}
    user = {"scale": 3.0}
    cfg = ChainMap(user, defaults)
    cfg["shift"] = 2.0
    return x * cfg["scale"] + cfg["shift"], dict(cfg), len(cfg.maps), defaults["shift"]


def c_r3_dict_keys_set_operations(x):
    a = {"w": x, "b": x + 1, "extra": 0}
    b = {"w": 1, "b": 2}
    common = a.keys() & b.keys()
    only = a.keys() - b.keys()
    return sum(a[k] for k in sorted(common)), sorted(only), a.keys() >= b.keys(), list(reversed(a))


def c_r3_sequential_ordereddict_named(x):
    from collections import OrderedDict

    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(3, 2)), ("act", nn.ReLU())]))
    with torch.no_grad():
        seq.fc.weight.fill_(0.25)
        seq.fc.bias.zero_()
    return seq(x), seq.fc.out_features, list(seq._modules), seq[-1] is seq.act


def c_r3_modulelist_extend_iadd_in_frame(x):
    ml = nn.ModuleList([nn.Identity()])
    ml.extend([nn.ReLU(), nn.Tanh()])
    ml += [nn.Sigmoid()]
    out = x - 1
    for m in ml:
        out = m(out)
    return out, len(ml), [type(m).__name__ for m in ml[1::2]]


def c_r3_register_parameter_lazily(x):
    class LazyScale(nn.Module):
        def forward(self, t):
            if getattr(self, "scale", None) is None:
                self.register_parameter("scale", nn.Parameter(torch.full_like(t, 2.0)))
            return t * self.scale

    m = LazyScale()
    return m(x), [n for n, _ in m.named_parameters()]


def c_r3_module_repr_string(x):
    lin = nn.Linear(3, 2, bias=False)
    text = repr(lin)
    return x + len(text), text, lin.extra_repr()


def c_r3_flatten_unflatten_modules(x):
    m = nn.Sequential(nn.Unflatten(0, (1, 3)), nn.Flatten(0, 1))
    return m(x), m[0].unflattened_size


def c_r3_forward_default_tensor_and_kwargs(x):
    class Mix(nn.Module):
        def forward(self, t, *, gain=2.0, bias=None):
            out = t * gain
            return out if bias is None else out + bias

    m = Mix()
    return m(x), m(x, gain=0.5, bias=x), m.forward(x, bias=1.0)


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
    act = getattr(torch, "exp")
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
    return a.shape, b.shape, c, n, m.shape[1:] + (1,), m.new_zeros(c).shape


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

        @functools.lru_cache(maxsize=4)
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
    texts = [str(s), repr(s), f"{x.dtype!s}|{x.dtype!r}", "{}".format(x.device), f"{n=}", "%s/%d" % (tuple(s), n),
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

    hint = typing.Optional[int]
    return accept([1, (2.5, x), None]), typing.get_origin(hint) is typing.Union, typing.get_args(hint)


def c_r3_format_spec_on_tensor_scalars(x):
    total = x.sum()
    return x + 1, f"{3.14159:.2f}", format(7, "08b"), "{:,}".format(1234567), f"{'left':<6}|", total.shape


def c_r3_dtype_attributes_and_comparisons(x):
    dts = [torch.float32, torch.int64, torch.bool, torch.complex64, torch.bfloat16]
    info = [(d.is_floating_point, d.is_complex, d.is_signed, d.itemsize) for d in dts]
    ordered = sorted(dts, key=lambda d: (d.itemsize, str(d)))
    return x.to(ordered[-1]).real, info, [str(d) for d in ordered], torch.float32 in {torch.float32: 1}


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
