"""More programs in the manner of the second half of PyTorch's test/dynamo/test_misc.py, for
``capture_count.py --only dynamo_tests_misc2``: ``torch._assert`` with f-string messages, ``tolist``
loops, closures returned and called, deques handed in and mutated, ``yield from`` (lists, loops, user
iterators, PEP 479), the ``itertools`` family (islice, repeat, count, cycle, accumulate, groupby, tee),
``in`` on a list iterator, frozen dataclasses (defaults, factories, kw-only, hashing, nesting), dicts
rebuilt with ``**``, list comprehensions inside ``try``, ``nn.Sequential`` slicing, and ``any``/``all``.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import operator

import torch


def c_m2_assert_with_fstring(x):
    img = x.reshape(1, 1, 3, 1)
    y = torch.sin(img)
    torch._assert(len(y.shape[-2:]) == 2, f"shape {img.shape}")
    return img + y


def c_m2_assert_shape_condition(x):
    img = x.reshape(1, 3, 1)
    torch._assert(img.shape[-2] == 3 and img.shape[-1] == 1, f"shape {img.shape}")
    return img + torch.sin(img)


def c_m2_tolist_loop(x):
    out = []
    for v in (x * 2).long().tolist():
        out.append(v * 4)
    return out


def c_m2_tolist_nested(x):
    grid = torch.stack([x, x + 1]).reshape(2, 3, 1)
    out = []
    for row in grid.tolist():
        out.append(row * 2)
    return out, x.sum().tolist()


def c_m2_inline_closure_chain(x):
    def outer(a):
        return a + 1

    def direct(v):
        def deep2(c):
            return outer(c)

        def deep(c):
            return deep2(c)

        return deep(v)

    return direct(x)


_ONE = torch.ones(1)


def _closure_factory():
    def inner():
        return _ONE + 2

    return inner


def c_m2_returned_closure_called(x):
    inner = _closure_factory()
    return inner() + x


def _deque_pop_two(q):
    a = q.pop()
    b = q.pop()
    return a * b


def c_m2_deque_argument_popped(x, q):
    return _deque_pop_two(q) + x, q


c_m2_deque_argument_popped.extra_args = lambda: (collections.deque(["foo", torch.ones(3), torch.full((3,), 2.0)]),)


def c_m2_deque_appendleft_popleft(x, q):
    q.appendleft(x)
    q.appendleft(x + 1)
    return q.popleft() * q.popleft(), q


c_m2_deque_appendleft_popleft.extra_args = lambda: (collections.deque(["foo", 10, 10]),)


def c_m2_yield_from_list(x):
    def gen(items):
        scaled = [t * 2 for t in items]
        yield from scaled

    return [t * 2 for t in gen([x, x + 1, x + 2])]


def c_m2_yield_from_in_loop(x):
    def one():
        yield 1

    def many():
        for _ in range(5):
            yield from one()

    c = 0
    for i in many():
        c = c + i
    return x + c


def c_m2_generator_then_yield_from(x):
    def tensors(n):
        for i in range(n):
            yield torch.tensor([float(i)])

    scaled = [t * x[1] for t in tensors(4)]

    def again():
        yield from scaled

    return [t for t in again()]


class _Counting:
    def __init__(self, seq):
        self.seq = seq
        self.index = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.index += 1
        if self.index <= len(self.seq):
            return self.seq[self.index - 1]
        raise StopIteration(self.index)


def c_m2_yield_from_user_iterator(x):
    def gen(seq):
        result = yield from _Counting(seq)
        yield result

    return [i for i in gen([x, x + 1])]


def c_m2_stopiteration_becomes_runtimeerror(x):
    def gen():
        yield 1
        raise StopIteration("inside")

    try:
        g = gen()
        next(g)
        next(g)
    except RuntimeError:
        return x + 100
    except StopIteration:
        return x + 200
    return x


@dataclasses.dataclass(frozen=True)
class _FrozenPair:
    x: torch.Tensor
    y: torch.Tensor
    z: int = dataclasses.field(default=5)
    a: int = 6


def c_m2_frozen_dataclass_defaults(x):
    dc = _FrozenPair(x, x + 1)
    return dc.x + dc.y + dc.z + dc.a


@dataclasses.dataclass(frozen=True)
class _FrozenFactory:
    x: torch.Tensor
    z: list = dataclasses.field(default_factory=list)
    a: list = dataclasses.field(default_factory=lambda: [5])


def c_m2_frozen_dataclass_default_factory(x):
    dc = _FrozenFactory(x)
    return dc.x + dc.a[0] + len(dc.z)


@dataclasses.dataclass(frozen=True)
class _FrozenKw:
    x: torch.Tensor
    z: int = dataclasses.field(kw_only=True)
    a: int = dataclasses.field(kw_only=True)


def c_m2_frozen_dataclass_kw_only(x):
    dc = _FrozenKw(x, z=5, a=2)
    return dc.x + dc.a + dc.z


@dataclasses.dataclass(frozen=True)
class _FrozenScalars:
    x: float
    y: float
    z: int


def c_m2_frozen_dataclass_as_dict_key(x):
    dc = _FrozenScalars(x=3.2, y=2.5, z=5)
    d = {dc: 2}
    return dc.x + dc.y + d[dc] + x, _FrozenScalars(3.2, 2.5, 5) in d


@dataclasses.dataclass(frozen=True)
class _FrozenOuter:
    inner: _FrozenScalars
    n: int


def c_m2_nested_frozen_dataclass_key(x):
    dc = _FrozenOuter(_FrozenScalars(2.4, 4.4, 1), 5)
    d = {dc: 3}
    return dc.inner.x + dc.inner.y + d[dc] + x, hash(dc) == hash(_FrozenOuter(_FrozenScalars(2.4, 4.4, 1), 5))


def c_m2_frozen_dataclass_setattr_raises(x):
    dc = _FrozenScalars(1.0, 2.0, 3)
    try:
        dc.x = 5.0
    except dataclasses.FrozenInstanceError:
        return x + dc.x
    return x


def c_m2_islice_variants(x):
    return list(itertools.islice(x, 1, 3, 1)), list(itertools.islice(x, 2)), list(itertools.islice(x, 0, None, 2))


def c_m2_repeat_finite_and_infinite(x):
    for v in itertools.repeat(100.0, 3):
        x = x + v
    idx = 0
    for v in itertools.repeat(1.0):
        x = x + v
        idx += 1
        if idx > 4:
            break
    return x


def c_m2_count_with_step(x):
    out = []
    for args in ((), (10,), (5, -1)):
        total = x
        for idx, v in enumerate(itertools.count(*args)):
            total = total + v
            if idx >= 3:
                break
        out.append(total)
    return out


def c_m2_cycle_over_iterators(x):
    for it in (iter([]), iter([10, 11.0]), itertools.repeat(-1, 3)):
        x = x + 1
        for idx, v in enumerate(itertools.cycle(it)):
            x = x + v
            if idx >= 5:
                break
    return x


def c_m2_accumulate_sizes(x):
    m = x.reshape(1, 3)
    out = m
    for i in itertools.accumulate([m.size(0), m.size(1)]):
        out = out * i
    return out


def c_m2_accumulate_tensors_ops(x):
    parts = [x, x + 1, x + 2]
    return (list(itertools.accumulate(parts)), list(itertools.accumulate(parts, operator.mul)),
            list(itertools.accumulate(parts, initial=100)), list(itertools.accumulate(parts, func=operator.sub, initial=-1)))


def c_m2_accumulate_user_function(x):
    seen = []

    def step(a, b):
        seen.append(b)
        return a * len(seen)

    return list(itertools.accumulate([x, x + 1, x + 2], step)), len(seen)


def c_m2_groupby_default_and_key(x):
    data = [1, 2, 2, 3, 4, 4, 4, 1, 2]
    plain = [(k, list(g)) for k, g in itertools.groupby(data)]
    keyed = [(k, list(g)) for k, g in itertools.groupby([1, 2, -2, 3, 4, -4, 0], key=abs)]
    return x + len(plain), plain, keyed


def c_m2_tee_two_copies(x):
    a, b = itertools.tee([x, x + 1, x + 2])
    return list(a), list(b)


def c_m2_in_on_list_iterator(x):
    it = iter(["mine", "theirs", "other"])
    next(it)
    found = "mine" in it
    return (x + 2 if found else x + 1), "other" in iter(["other"])


def _graph_broken_dict():
    return {0: torch.tensor(3.0)}


def c_m2_dict_splat_of_call(x):
    d = {**_graph_broken_dict(), 1: x}
    return d[0] + d[1], list(d)


def c_m2_listcomp_in_try(x):
    items = [x, None, x + 1]
    try:
        return [torch.sin(v) for v in items if v is not None]
    except Exception:
        return None


_L1 = torch.nn.Linear(3, 3)
_L2 = torch.nn.Linear(3, 3)


def c_m2_sequential_slice(x):
    seq = torch.nn.Sequential(_L1, _L2)
    return seq[1:](x), len(seq[:1])


def c_m2_any_all_on_sizes(x):
    t = x.size(0) >= 2
    f = x.size(0) >= 100
    if any([]) or any([f]) or all([t, f]):
        return x - 1
    if not (all([]) and all([t]) and any([f, t])):
        return x - 2
    return x + 1


def c_m2_pure_python_accumulate(x):
    def acc(iterable, func=lambda a, b: a + b):
        it = iter(iterable)
        try:
            total = next(it)
        except StopIteration:
            return
        yield total
        for element in it:
            total = func(total, element)
            yield total

    return list(acc([x, x + 1, x * 2])), list(acc([]))


def c_m2_dtype_from_tensor_builds(x):
    dt = x.dtype
    a = torch.zeros(3, dtype=dt)
    assert isinstance(dt, torch.dtype)
    return a + x + torch.ones(3, dtype=dt), dt.is_floating_point


_CPU = torch.device("cpu")


class _DefaultsFromTorch:
    def __init__(self, dtype: torch.dtype = torch.float16, device: torch.device = _CPU) -> None:
        self.value = torch.tensor(10, dtype=dtype, device=device)


def c_m2_default_args_device_dtype(x):
    return _DefaultsFromTorch().value + 1 + x.to(torch.float16)


def c_m2_importerror_caught(x):
    try:
        import a_module_nobody_installed  # noqa: F401 (the ImportError is the point)
    except ImportError:
        return x.sin()
    return x


def _bind_target(a, b, *rest, c=10, d=11, **extra):
    return a


def c_m2_inspect_signature_bind(x):
    import inspect

    sig = inspect.signature(_bind_target)
    bound = sig.bind(1, 2, 3, d=12, e=15)
    bound.arguments["d"] = 13
    bound.apply_defaults()
    first = sig.parameters["a"].default is inspect.Parameter.empty
    return x + len(bound.args), dict(bound.arguments), bound.kwargs, first


def c_m2_new_with_size_list(x):
    m = torch.arange(6).view(2, 3)
    return m.new(*m.size()).fill_(5).shape, x + 5


@dataclasses.dataclass(frozen=True)
class _Replaceable:
    n: int
    tag: str = "a"


def c_m2_dataclass_replace_is_dataclass(x):
    base = _Replaceable(0)
    if dataclasses.is_dataclass(base):
        new = dataclasses.replace(base, **{"n": 1})
        return x + new.n, new.tag, dataclasses.asdict(new)
    return x


class _EqOnly:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v


def c_m2_ne_from_custom_eq(x):
    a, b, c = _EqOnly(0), _EqOnly(0), _EqOnly(1)
    return x + 1, a != b, a != c, a == b


def _raises_then_reraises():
    try:
        raise ValueError
    except ValueError:
        raise


def c_m2_bare_reraise_caught_outside(x):
    try:
        _raises_then_reraises()
    except ValueError:
        return x.sin()
    except Exception:
        return x.cos()
    return x


def c_m2_complex_builtin_forms(x):
    forms = (0j, complex(1), complex(2, 3), complex(imag=2), complex(real=1), complex("1+2j"),
             complex(1, 2).conjugate())
    return [x + z for z in forms]


def c_m2_tensor_compared_with_none(x):
    return torch.tensor(x == None), x is None, x != None  # noqa: E711 (== None on a tensor is the point)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
