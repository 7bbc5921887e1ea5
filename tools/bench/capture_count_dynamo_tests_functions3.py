"""Small programs in the manner of PyTorch's test/dynamo/test_functions.py and the first half of test_misc.py,
for ``capture_count.py --only dynamo_tests_functions3``: ``callable`` on many kinds, tensor predicates and
dtype queries, tuple ordering, ``del``, imports inside the frame, closures with ``nonlocal``, lists and dicts
built and mutated, ``functools.partial`` in its forms, ``filter``/``zip_longest``, user mappings,
``defaultdict`` factories, ``match`` statements, distributions, ints taken from shapes and bumped in place.
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
from collections.abc import MutableMapping

import torch
from torch import nn


class _Callable:
    def __call__(self):
        return 1


def c_f3_callable_kinds(x):
    kinds = (lambda v: v, torch.abs, sum, _Callable(), object(), [1], (1,), 1.5, x)
    return x + sum(1 for k in kinds if callable(k)), [callable(k) for k in kinds]


def c_f3_len_of_constants_and_float(x):
    n = len((1, 2, 3)) + len("some str") + len({"a": 1})
    y = float(1.25) + float("2.5")  # noqa: UP018 (a float call on a float is the point)
    return torch.add(x, n + y)


def c_f3_dict_from_keywords(x):
    plain = dict(first=x + 1, second=x + 2)
    ordered = collections.OrderedDict(sample=torch.ones(2), other=x)
    return plain, ordered, type(ordered).__name__


def c_f3_tensor_predicates(x):
    y = x + 1
    flags = (torch.is_floating_point(y), torch.is_floating_point(input=y), torch.is_complex(y), y.is_complex(),
             y.is_sparse, y.is_cuda, torch.is_tensor(y), y.is_contiguous(memory_format=torch.contiguous_format))
    return (y * 2 if all(f is False for f in flags[2:6]) else y), flags


def c_f3_default_and_promoted_dtypes(x):
    out = x + 1 if x.dtype == torch.get_default_dtype() else x - 1
    promoted = torch.promote_types(torch.int32, torch.float32)
    return out * 2 if promoted == x.dtype else out, str(promoted), promoted.is_floating_point, promoted.itemsize


def c_f3_private_state_queries(x):
    a = torch._C._is_any_autocast_enabled()
    b = torch.autograd._is_checkpoint_valid()
    c = torch._C._are_functorch_transforms_active()
    d = torch.distributed.is_available()
    return (x + 1 if not a and b and not c else x - 1), d


def c_f3_tuple_ordering(x):
    table = [((1, 2, 3), (1, 2, 3), 1.0), ((1, 4, 3), (1, 2, 3), 2.0), ((1, 2), (1, 2, 3), 3.0),
             ((1, 2, 3), (1, 2), 4.0), ((1, -1, 3), (1, 2, 3), 5.0)]
    for a, b, w in table:
        x = x + (a != b) * w + (a == b) * 2 * w + (a < b) * 4 * w + (a > b) * 8 * w
        x = x + (a <= b) * 16 * w + (a >= b) * 32 * w
    return x


def c_f3_calculate_fan(x):
    w = x.reshape(3, 1).expand(3, 4)
    return x + nn.init._calculate_correct_fan(w, "fan_in") + nn.init._calculate_correct_fan(w, mode="fan_out")


def c_f3_tensor_shape_queries(x):
    m = x.reshape(1, 3)
    if m.ndim == 2 and m.ndimension() == 2 and m.dim() == 2 and m.element_size() == 4:
        return torch.ones_like(m.T) + m.mT.sum(), m.T.shape, x.nbytes
    return x


def c_f3_del_names(x):
    c = x + 1
    d = c + 2
    e = [d]
    del c, e[0]
    return d * 2, e


def c_f3_assert_on_chunks(x):
    y = torch.cat([x, x + 1])
    size = 3
    assert y.shape[0] % size == 0, "uneven"
    assert y.shape[0] // size == 2
    return y[:size] - y[size:]


def c_f3_import_inside(x):
    import operator as op

    import torch as t
    from torch import sub

    return sub(t.add(x, 2), op.mul(x, 3))


def c_f3_return_dict_sharing_lists(x):
    z = [x + 1, x, False]
    out = {"x": x, "z": z, "a": x, "b": z}
    out["z"].append(True)
    return out, out["b"] is out["z"]


def c_f3_closure_nonlocal_pair(x):
    y = x * 2
    x = x + y + 1.0

    def step(z):
        nonlocal x, y
        y = x + z + 20.0
        x = y + z + 10.0

    step(2.0)
    step(3.0)
    return x, y


def c_f3_module_made_and_called(x):
    return nn.Softmax(dim=-1)(x * 2), nn.LeakyReLU(0.2)(x - 1), nn.Identity()(x)


def c_f3_star_unpack_generators(x):
    gens = ((t + 1 for t in (x, x * 2)), (t - 1 for t in (x, x * 3)))
    first, second = gens
    return torch.cat([*first, *second], dim=-1)


def c_f3_tensor_len_dunder(x):
    return x + len(x) + x.__len__() + x.reshape(3, 1).__len__()


def c_f3_list_pop_extend(x):
    items = [x, x * 2]
    items.append(x + 1)
    items.extend([x + 2, x + 3])
    items.pop(-1)
    items.pop(0)
    items.pop()
    a, b = items
    items.insert(0, x)
    return a - b, len(items), items.index(x)


def c_f3_list_tuple_round_trip(x):
    items = [x + 2, x]
    items = tuple(items)
    extra = x + 3
    items = list(items) + list(())
    first, second = items
    return first - second + extra, type(items).__name__


def c_f3_index_by_tensor(x):
    items = [x, x + 1, x + 2, x + 3]
    k = torch.as_tensor(2)
    return items[k], (10, 20, 30)[torch.tensor(1)]


def c_f3_string_predicates(x):
    name = "foobar"
    if name.startswith("foo") and name.endswith(("bar", "baz")) and "torch" in torch.add.__module__:
        x = x + 1
    return x, name.partition("o"), name.upper().count("O")


def c_f3_dict_get_pop_update(x):
    d = {"a": x + 1, "b": x + 2}
    assert d.get("zzz") is None
    v = d.pop("b") + d.get("a") + d.get("missing", 3) + d.pop("missing", 4)
    d.update({"d": 3}, e=5)
    d["c"] = v + d["d"]
    if "c" in d and "missing" not in d:
        return d["c"] - d["a"] + len(d), list(d)
    return x, None


def c_f3_jit_helpers(x):
    if torch.jit._unwrap_optional(x) is None or torch.jit.is_scripting() or torch.jit.is_tracing():
        return torch.ones(2)
    return x.sin()


def c_f3_zip_longest(x):
    nums, letters, flags = [1, 2, 3], ["a", "b"], [True, False, True, False]
    rows = list(itertools.zip_longest(nums, letters, flags, fillvalue=None))
    return torch.sin(x + len(rows)), rows


def c_f3_size_as_cache_key(x):
    cache = {}
    for t in (x, x + 1, x.reshape(1, 3)):
        if t.shape not in cache:
            cache[t.shape] = t
    return x + cache[x.shape], len(cache), list(cache)


class _Store(MutableMapping):
    def __init__(self):
        self._data = {}

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self._data[key] = value

    def __delitem__(self, key):
        del self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


_STORE = _Store()
_STORE["a"] = torch.ones(3) * 2


def c_f3_mutable_mapping_copied(x):
    copied = dict(_STORE)
    return x * copied["a"], list(_STORE.keys()), "a" in _STORE, _STORE.get("b", 7)


def _scaled(x, a=1):
    return x * a


def c_f3_mutable_mapping_double_star(x):
    return _scaled(x, **_STORE)


def c_f3_defaultdict_factories(x):
    def factory():
        return {}

    out = []
    for make in (dict, list, tuple, set, lambda: dict(), factory):
        dd = collections.defaultdict(make)
        dd["a"] = x + 1
        dd["c"] = x * 2
        out.append((dd["b"], len(dd)))
    return out


def c_f3_defaultdict_fromkeys_setdefault(x):
    d = collections.defaultdict.fromkeys("a", "b")
    d["b"] = 2
    d.setdefault("c", 10)
    d.setdefault("e")
    return (x + 1 if d["c"] == 10 and d["e"] is None else x - 1), d, d.default_factory


class _WithClassAttrs:
    x = 4
    y = 5

    def __init__(self):
        self.a = 6


_INSTANCE = _WithClassAttrs()


def c_f3_class_dict_membership(x):
    cls = type(_INSTANCE)
    return (x + 1 if "x" in cls.__dict__ else x + 2), "a" in _INSTANCE.__dict__, cls.__dict__["y"]


def c_f3_list_slice_assignment(x):
    m = [1, 2, 3, 4]
    m[1:] = [6] * (len(m) - 1)
    m[:1] = []
    m[::2] = [0, 0]
    return x + sum(m), m


def c_f3_distributions_log_prob(x):
    normal = torch.distributions.Normal(x, torch.tensor(1.0))
    independent = torch.distributions.Independent(normal, 1)
    return independent.log_prob(x + 0.5), normal.mean, normal.stddev


def c_f3_decorated_nested_no_grad(x):
    @torch.no_grad()
    def augment(t):
        return (t + 1) * 2

    y = augment(x)
    return y, y.requires_grad, torch.is_grad_enabled()


def c_f3_match_sequence(x):
    out = x
    for point in ((0, 0), (0, 3), (2, 0), (5, 8), (1, 2, 3)):
        match point:
            case (0, 0):
                out = out + 1
            case (0, y):
                out = out - y
            case (px, 0):
                out = out + px
            case (px, y):
                out = out + px - y
            case _:
                out = out * 2
    return out


def c_f3_match_mapping_and_class(x):
    out = x
    for param in ({"a": 0.5}, {"b": 2.0}, [1, 2], 3):
        match param:
            case {"a": v}:
                out = out * v
            case {"b": v}:
                out = out / v
            case [first, *rest]:
                out = out + first + len(rest)
            case int(n):
                out = out - n
    return out


def c_f3_math_on_constants(x):
    return x + math.radians(12) + math.log2(8) + math.fsum([0.1] * 10) + math.prod([2, 3]) + math.gcd(12, 18)


def c_f3_partial_torch_ops(x):
    by_keyword = functools.partial(torch.mul, other=torch.full((3,), 2.0))
    by_position = functools.partial(torch.add, torch.ones(3))
    return by_keyword(x) + by_position(x), by_keyword.keywords.keys() == {"other"}


def c_f3_partial_lambda_and_attrs(x):
    multiply = lambda a, b: a * b  # noqa: E731 (a lambda is the point)
    triple = functools.partial(multiply, b=3)
    found = [hasattr(triple, a) for a in ("func", "args", "keywords", "__call__", "__name__", "__code__")]
    return triple(x), found, triple.args, triple.func is multiply


def c_f3_partial_of_partial(x):
    def combine(a, b, c, scale=1):
        return (a + b + c) * scale

    first = functools.partial(combine, x, scale=2)
    second = functools.partial(first, 1, scale=3)
    return second(2), second.args, len(second.keywords)


def c_f3_list_concat_then_sum(x):
    items = [1, x]
    y = x / 4.0
    items = items + [x / 2.0, 4]  # noqa: RUF005 (list + list is the point)
    items.append(y)
    return sum(items), sum(4 * [x]), sum([x, x], start=x)


def c_f3_in_not_in_lists(x):
    mine = [1, 2, 3, 4, 5, x]
    other = [1, 2, 3, 4, 5]
    assert 3 in mine
    assert 6 not in other
    return sum(mine), x in (x, 1), 4.0 in other


def c_f3_filter_requires_grad(x):
    inputs = [x, (x + 1).requires_grad_(), x * 2]
    out = inputs[0]
    for inp in filter(lambda t: t.requires_grad, inputs):
        out = out * inp
    return out.detach(), len(list(filter(None, [0, 1, 2, None])))


def c_f3_shape_indexed_by_shape(x):
    y = torch.zeros(10, 8, 6)
    m = x.reshape(3, 1)
    index = m.shape[-1]
    return x + y.shape[index] + y.size(-index), y.shape[m.dim() - 1:]


def c_f3_tensor_type_strings(x):
    half = x.to(torch.float16)
    h2 = x.type(torch.HalfTensor)
    return x.type(half.type()), h2.dtype, x.type("torch.DoubleTensor").dtype, x.type()


def c_f3_shape_int_inplace_binops(x):
    p = x.shape[0]
    p += 2
    p -= 1
    p *= 3
    p //= 2
    p **= 2
    p %= 7
    p <<= 1
    p |= 1
    return x + p, p


def c_f3_unpack_size(x):
    m = x.reshape(1, 3)
    a, b = m.size()
    (c,) = x.shape
    return m.view(b, a) * c, [*m.shape]


class _Lookup:
    def __init__(self, base):
        self.base = base

    def __getattr__(self, name):
        if name.startswith("plus_"):
            return self.base + int(name[5:])
        raise AttributeError(name)

    @property
    def doubled(self):
        return self.base * 2


def c_f3_user_getattr_and_property(x):
    obj = _Lookup(x)
    return obj.plus_3 + obj.doubled, hasattr(obj, "other"), getattr(obj, "plus_1")  # noqa: B009


def c_f3_comprehensions(x):
    squares = {k: x * k for k in range(3)}
    evens = [v for k, v in squares.items() if k % 2 == 0]
    names = {str(k) for k in squares}
    nested = [[i * j for j in range(i)] for i in range(3)]
    return sum(evens), sorted(names), nested


def c_f3_inplace_on_list_items(x):
    items = [x.clone(), x.clone()]
    for t in items:
        t.add_(1)
    items[0].mul_(2)
    return items, x


def c_f3_namedtuple_make_and_fields(x):
    Row = collections.namedtuple("Row", ["a", "b", "c"], defaults=[0])
    r = Row._make([x, 2, 1])
    q = Row(x, 1)
    s = r._replace(c=5)
    return r.a + s.c + r.b, Row._fields, Row._field_defaults, len(s), q.c


def c_f3_isinstance_kinds(x):
    checks = (isinstance(x, torch.Tensor), isinstance(x.shape, tuple), isinstance(x.dtype, torch.dtype),
              isinstance([x], (list, tuple)), isinstance(3, (float, str)), isinstance(True, int),
              issubclass(torch.Size, tuple), isinstance(x, nn.Parameter))
    return x + sum(checks), checks


def c_f3_bound_method_of_module(x):
    lin = nn.Linear(3, 2)
    fwd = lin.forward
    nn.init.constant_(lin.weight, 0.5)
    nn.init.zeros_(lin.bias)
    return fwd(x), fwd.__self__ is lin, fwd.__func__ is nn.Linear.forward


def c_f3_set_operations(x):
    a = {1, 2, 3}
    b = {2, 3, 4}
    a.discard(1)
    a.add(7)
    u = a | b
    return x + len(u) + len(a & b) + len(a - b) + len(a ^ b), sorted(u), a.isdisjoint({9}), b.issuperset({2})


def c_f3_numel_and_sizes(x):
    m = torch.zeros(2, 3, 4)
    return x + m.numel() + m.size().numel() + torch.numel(m) + m.size(1) + math.prod(m.shape), m.shape.count(4)


def c_f3_enumerate_zip_reversed(x):
    out = x
    for i, (a, b) in enumerate(zip([1, 2, 3], reversed([4, 5, 6])), start=1):
        out = out + i * a - b
    return out, list(reversed(range(3))), list(enumerate("ab"))


def c_f3_global_mutated_list(x):
    _LOG.append(1)
    n = len(_LOG)
    _LOG.pop()
    return x + n


_LOG = []


def c_f3_min_max_with_keys(x):
    values = [3, -7, 5]
    return (x + max(values, key=abs) + min(values, key=lambda v: -v) + max(2, 9, 4) + min((), default=1),
            sorted(values, key=abs, reverse=True))


def c_f3_reduce_and_accumulate(x):
    total = functools.reduce(lambda a, b: a + b, [x, x * 2, x * 3])
    running = list(itertools.accumulate([1, 2, 3, 4]))
    return total + running[-1], running, functools.reduce(max, [4, 9, 2], 0)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
