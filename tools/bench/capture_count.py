#!/usr/bin/env python3
"""Issue 16's, 28's (torch.func transforms) and 29's constructs, one small program each: loom against eager and torch.compile.

For every program: is loom's answer eager's (result, arguments afterwards, state it leaves, the
exception raised), and how many graphs and breaks do loom and torch.compile(backend="eager") report.
Prints one row per construct and the totals (how many capture in 1 graph with 0 breaks).

    .venv/bin/python tools/bench/capture_count.py [--no-torch] [--only AREA] [--dynamic] [--backend c]

``--backend c`` (or ``aot_eager``) compiles loom's graphs with that backend instead of ``eager``: every
program then checks the backend's answers too (a graph the backend refuses counts as differing, since the
runner is strict; by default such a frame runs uncompiled, with one warning).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import inspect
import itertools
import operator
import random
import sys
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple

import torch

_HERE = __import__("pathlib").Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))


# -- the constructs --------------------------------------------------------------------------------
def c_defaultdict(x):
    d = defaultdict(list)
    d["a"].append(1)
    d.setdefault("b", []).append(2)
    e = defaultdict(int)
    for k in "abca":
        e[k] += 1
    return x + len(d) + e["a"], d, defaultdict.fromkeys("xy", 0)


def c_deque(x):
    q = deque(maxlen=3)
    for i in range(5):
        q.append(i)
    q.appendleft(-1)
    q.rotate(1)
    q.extend([7])
    q.pop()
    q.popleft()
    out = x
    for v in q:
        out = out + v
    return out, len(q), q


def c_ordereddict_move_to_end(x):
    d = OrderedDict(a=1, b=2, c=3)
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    return x + next(iter(d.values())), d


def c_counter(x):
    c = Counter("abracadabra")
    c.update("aab")
    c["z"] += 1
    return x + c.most_common(1)[0][1], c


Point = namedtuple("Point", "x y")


def c_namedtuple_replace_asdict(x):
    p = Point(x, 2)._replace(y=3)
    return p.x + p.y, p._asdict()


def c_dict_union_fromkeys(x):
    d = dict.fromkeys("ab", 0) | {"c": 1}
    d |= {"e": 2}
    return x + len(d), d


def c_itertools(x):
    out = x + sum(itertools.chain([1], (2,))) + sum(itertools.chain.from_iterable([[1], [2]]))
    out = out + len(list(itertools.product([1, 2], [3]))) + len(list(itertools.combinations([1, 2, 3], 2)))
    out = out + len(list(itertools.permutations([1, 2], 2))) + sum(itertools.islice(range(10), 2, 5))
    out = out + list(itertools.accumulate([1, 2]))[-1] + len(list(itertools.pairwise([1, 2, 3])))
    counter = itertools.count(5)
    return out + sum(itertools.repeat(1, 2)) + next(counter), list(itertools.zip_longest([1], [2, 3]))


def c_functools_operator(x):
    pairs = [(1, x), (0, x * 2)]
    pairs.sort(key=operator.itemgetter(0))
    return functools.reduce(operator.add, [x, x]) + pairs[0][1] + operator.attrgetter("real")(3)


@functools.lru_cache(maxsize=8)
def _doubled(n):
    return n * 2


def c_lru_cache(x):
    return x + _doubled(3)


def c_iter_sentinel(x):
    values = iter([1, 2, 0, 4])
    return x + sum(iter(lambda: next(values), 0))


def c_iterators(x):
    it = iter([1, 2, 3])
    first = next(it)
    d = iter({"a": 1})
    r = iter(range(3))
    out = x + first + len(next(d)) + next(r)
    for v in it:
        out = out + v
    return out


def _gen():
    received = yield 1
    yield received * 2


def c_generator_send(x):
    g = _gen()
    a = next(g)
    b = g.send(5)
    g.close()
    return x + a + b


def c_min_max_sorted(x):
    scores = {"a": 3, "b": 1}
    best = min(scores, key=lambda k: scores[k])
    return x + scores[best] + max([1, 5, 2], key=lambda v: -v) + sorted([3, 1], key=lambda v: v)[0], 2 in {1, 2}


class _Named:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Named({self.name!r})"


def c_str_repr_objects(x):
    return x + len(str(_Named("a"))) + len(repr(_Named("bc")))


class Registry:
    count = 0


def c_class_attribute(x):
    Registry.count += 1
    return x + Registry.count + Registry().count


class _Vec:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return _Vec(self.v + other.v)


def c_operator_overloading(x):
    return (_Vec(x) + _Vec(x * 2)).v


class _CodedError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def c_user_exception(x):
    try:
        raise _CodedError("bad", 3)
    except _CodedError as e:
        return x + e.code


@dataclasses.dataclass(frozen=True)
class _Frozen:
    a: int
    b: int = 2


def c_frozen_dataclass_replace(x):
    f = dataclasses.replace(_Frozen(1), a=5)
    return x + f.a * f.b, f


class _Hooked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.lin.register_forward_pre_hook(lambda m, a: (a[0] + 1,))
        self.lin.register_forward_hook(lambda m, a, o: o * 2)

    def forward(self, x):
        return self.lin(x)


torch.manual_seed(0)
_HOOKED = _Hooked()


def c_forward_hooks(x):
    return _HOOKED(x)


def c_int_dict_keys(x):
    memo = {}
    n = x.shape[0]
    memo[n] = x * 2
    memo[n + 1] = x
    return memo[n] + memo[3]


def c_random(x):
    return x + random.random() + random.randint(1, 5) + random.uniform(0, 1)


def c_random_choice_gauss(x):
    return x * random.choice([0.5, 2.0]) + random.randrange(4) + random.gauss(0, 1), random.random()


def c_lru_cache_inside(x):
    @functools.lru_cache(maxsize=None)  # noqa: UP033  (the call form, as written in the wild)
    def triple(n):
        return n * 3

    plus_one = functools.cache(lambda n: n + 1)
    return x + triple(2) + triple(2) + plus_one(1)


class _Ring(deque):
    def push(self, v):
        self.append(v * 2)


def c_deque_subclass(x):
    q = _Ring([1, 2], maxlen=4)
    q.push(3)
    out = x
    for v in q:
        out = out + v
    return out + len(q), q


def c_deque_format(x):
    q = deque([1, 2], maxlen=4)
    return x + len(f"{q}") + len(str(q)) + len(repr(q))


def c_deque_copy(x):
    q = deque([1, 2, 3])
    r = copy.copy(q)
    r.append(4)
    return x + len(q) + len(r), q, r


def c_raise(x):
    y = x + 1
    raise ValueError("nope", y.shape[0])


def c_numpy(x):
    import numpy as np

    a = x.numpy()
    return torch.from_numpy(np.sin(a) + np.iinfo(np.int32).bits)


def c_overwritten_random_draw(x):
    for _ in range(3):
        z = torch.abs(torch.randn(3)) + 1
    out = x.clone()
    out[0] = z[0]
    return out, torch.rand(2)  # the next draw shows whether the generator advanced as in eager


def _counted(seen):
    for i in range(6):
        seen.append(i)
        yield i


def c_isdisjoint_generator(x):
    seen = []
    return x + 1, {2, 4}.isdisjoint(_counted(seen)), 3 in _counted(seen), seen


def _stops():
    yield 1
    raise StopIteration


def c_pep479(x):
    gen = _stops()
    next(gen)
    try:
        next(gen)
    except RuntimeError as exc:
        return x + 1, type(exc.__cause__).__name__


def c_exception_chain(x):
    try:
        try:
            try:
                raise TypeError("t")
            except TypeError:
                raise ValueError("v")  # noqa: B904 (the implicit chain is what this construct is about)
        finally:
            raise OSError("o")
    except OSError as exc:
        return x + 1, type(exc.__context__).__name__, type(exc.__context__.__context__).__name__


def _documented(a):
    """Documented."""
    return a


def c_function_attributes(x):
    @functools.wraps(_documented)
    def wrapper(a):
        return _documented(a) * 2

    return wrapper(x), _documented.__class__.__name__, wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__.__name__


def c_contextmanager_inside(x):
    @contextlib.contextmanager
    def shifted(amount):
        yield amount + 1

    with shifted(2) as value:
        return x + value


def c_slice_fields_intern_bit_length(x):
    s = slice(0, 2)
    return x[s] + len(_PAIR._fields), sys.intern("name"), \
        x.shape[0].bit_length()


_PAIR = namedtuple("Pair", "a b")


CONSTRUCTS = [c_defaultdict, c_deque, c_ordereddict_move_to_end, c_counter, c_namedtuple_replace_asdict,
              c_dict_union_fromkeys, c_itertools, c_functools_operator, c_lru_cache, c_iter_sentinel, c_iterators,
              c_generator_send, c_min_max_sorted, c_str_repr_objects, c_class_attribute, c_operator_overloading,
              c_user_exception, c_frozen_dataclass_replace, c_forward_hooks, c_int_dict_keys, c_random,
              c_random_choice_gauss, c_lru_cache_inside, c_deque_subclass, c_deque_format, c_deque_copy, c_raise,
              c_numpy, c_overwritten_random_draw, c_isdisjoint_generator, c_pep479, c_exception_chain,
              c_function_attributes, c_contextmanager_inside, c_slice_fields_intern_bit_length]


# -- issue 29's break causes -------------------------------------------------------------------------
def c_in_dict_views(x):
    d = {"a": 1, "b": 2}
    return x + ("a" in d.keys()) + (("a", 1) in d.items()) + (2 in d.values())


def _processor(attn, hidden_states, encoder_hidden_states=None):
    return hidden_states


def c_signature_parameters(x):
    params = inspect.signature(_processor).parameters
    return x + len(set(params.keys())) + ("encoder_hidden_states" in params) + sum(1 for _ in params)


def c_str_of_containers(x):
    return x + len(str([_Named("a"), (_Named("b"),), {"k": _Named("c")}]))


class _Ranked:
    def __init__(self, n):
        self.n = n

    def __lt__(self, other):
        return self.n < other.n


def c_sort_objects(x):
    ranked = sorted([_Ranked(3), _Ranked(1), _Ranked(2)], reverse=True)
    sizes = [x.shape[0], 1]
    sizes.sort()
    return x + ranked[0].n + sizes[0]


def c_tensor_tag(x):
    y = x + 1
    y.tag = "made"
    return y, y.tag


def c_in_class_dict(x):
    return x + ("name" in _Named.__dict__) + ("__repr__" in _Named.__dict__)


def c_grad_mode_objects(x):
    disabling = torch.set_grad_enabled(False)
    with disabling:
        y = x * 3
    return y


def c_next_on_iterators(x):
    numbers = iter(range(3))
    out = x + next(numbers)
    for v in iter([1, 2]):
        out = out + v
    for _k, v in iter({"a": 1}.items()):
        out = out + v
    return out


CONSTRUCTS += [c_in_dict_views, c_signature_parameters, c_str_of_containers, c_sort_objects, c_tensor_tag,
               c_grad_mode_objects, c_next_on_iterators, c_in_class_dict]


# -- torch.func transforms (issue 28) ------------------------------------------------------------------
_FUNC_NET = torch.nn.Linear(3, 2)


def c_func_grad(x):
    return torch.func.grad(lambda y, w: ((y * w).sin() ** 2).sum(), argnums=(0, 1))(x, x + 1)


def c_func_grad_and_value_aux(x):
    return torch.func.grad_and_value(lambda y: (y.exp().sum(), {"c": y.cos()}), has_aux=True)(x)


def c_func_vmap_dims(x):
    return torch.vmap(lambda a, b: a * b.sum(), in_dims=(1, None), out_dims=1)(torch.outer(x, x + 1), x)


def c_func_vmap_nested_random(x):
    return torch.vmap(torch.vmap(lambda a: a.cos() + torch.rand(()), randomness="same"),
                      randomness="same")(torch.outer(x, x))


def c_func_per_sample_grads(x):
    params = dict(_FUNC_NET.named_parameters())

    def loss(p, row):
        return torch.func.functional_call(_FUNC_NET, p, (row.unsqueeze(0),)).pow(2).sum()

    return torch.vmap(torch.func.grad(loss), in_dims=(None, 0))(params, torch.outer(x, x))


def c_func_jacobians(x):
    f = lambda y: y.sin() * y.sum()  # noqa: E731
    return torch.func.jacrev(f)(x), torch.func.jacfwd(f)(x), torch.func.hessian(lambda y: f(y).sum())(x)


def c_func_jvp_vjp(x):
    out, tangent = torch.func.jvp(lambda y: y.sin() * 2, (x,), (torch.ones_like(x),))
    value, pullback = torch.func.vjp(lambda y: y.exp(), x)
    return out, tangent, value, pullback(torch.ones_like(x))


CONSTRUCTS += [c_func_grad, c_func_grad_and_value_aux, c_func_vmap_dims, c_func_vmap_nested_random,
               c_func_per_sample_grads, c_func_jacobians, c_func_jvp_vjp]
# -- issue 29's model zoo: module truth, list subclasses from outside the frame --------------------------
_NORM, _NO_LAYERS, _LAYERS = torch.nn.GroupNorm(1, 3), torch.nn.ModuleList(), torch.nn.Sequential(torch.nn.Identity())


class _Blocks(list):
    def total(self):
        return sum(self)


_BLOCKS = _Blocks([1, 2, 3])


def c_module_truth(x):
    # diffusers: `if self.conv_norm_out:`
    return x + bool(_NORM) + 10 * bool(_NO_LAYERS) + 100 * bool(_LAYERS)


def c_list_subclass_global(x):
    out = x + _BLOCKS.total() + len(_BLOCKS[1:])
    for v in _BLOCKS:
        out = out + v
    return out


CONSTRUCTS += [c_module_truth, c_list_subclass_global]
# every sibling capture_count_<area>.py adds its CONSTRUCTS (stdlib stand-ins, generators, containers...)
for _module in sorted(_HERE.glob("capture_count_*.py")):
    CONSTRUCTS += __import__(_module.stem).CONSTRUCTS


if __name__ == "__main__":
    import capture_runner

    sys.exit(capture_runner.main(CONSTRUCTS, Registry))
