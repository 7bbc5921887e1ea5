"""Python-level behaviour in the style of PyTorch's test/dynamo/test_repros.py and test_misc.py, for
``capture_count.py --only dynamo_tests_repros3``: descriptors and properties, ``__getattr__`` and
``__getattribute__``, class and instance attribute mutation, closures, functools and itertools, namedtuples and
dataclasses, string formatting, ABCs, tensor metadata reads, ``torch.Size`` arithmetic, in-place ops on views,
dtype promotion with Python scalars, grad-mode nesting, numpy interop, ``random``, dict outputs and nn.Module
patterns (containers indexed and sliced, hooks, buffers registered in forward, parametrizations). Each program is
written afresh over one tensor; none repeats the repros1/repros2/misc2 files. Its parts: ``_modules`` (dict
outputs, nn.Module patterns, objects with operators), ``_more`` (dispatch helpers, enums, typing, wrappers, sizes)
and ``_late`` (construction protocols, dataclass options, mutation through views, text of torch objects).
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
    fns = [lambda t: t + i for i in range(3)]  # noqa: B023 - late binding is the construct
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
    @functools.cache
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
    hexed = "%04x-%s-%r" % (255, x.dtype, "q")  # noqa: UP031 - %-formatting is the construct
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
    bigger = s + (4,)  # noqa: RUF005 - torch.Size + tuple is the construct
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


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
