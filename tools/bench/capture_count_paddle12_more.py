"""More programs after Paddle's SOT tests for ``capture_count.py --only paddle12``: objects called through
class-level lambdas and ``getattr`` by name (test_call_object), namedtuples (test_collections_namedtuple),
``super()`` forms (test_23_super), list and dict edits (test_mutable_data), ``with`` and exceptions
(test_25_with, test_24_exceptions), ``map`` (test_builtin_map) and a few Python constructs beside them.
"""

from __future__ import annotations

import contextlib
import operator
from collections import namedtuple

import torch

# -- objects called by name (test_call_object) ---------------------------------------------------------------
_scaled = lambda self, v: v * self.a  # noqa: E731 - a lambda stored on the class is the construct
_scaled_plus = lambda self, v: v * self.a + 3  # noqa: E731


class _A:
    def __init__(self, a):
        self.a = a

    def __call__(self, v):
        return self.add(v)

    def add(self, v):
        return v + self.a

    multi = _scaled


class _B:
    def __init__(self, a):
        self.a = _A(a)

    def __call__(self, v, name):
        return getattr(self.a, name)(v)

    def self_call(self, v, name):
        return getattr(self.a, name)(self.a, v)


def c_p12m_class_lambda_as_method(x):
    a = _A(13)
    return a(x), a.multi(x)


def c_p12m_getattr_by_name_then_call(x, b):
    return b(x, "multi"), b(x, "add")


c_p12m_getattr_by_name_then_call.extra_args = lambda: (_B(13),)


def c_p12m_instance_lambda_called_with_self(x, b):
    return b.self_call(x, "multi"), b(x, "add")


def _patched_b():
    b = _B(13)
    b.a.multi = _scaled_plus  # a plain function on the instance: not bound, self passed by hand
    return (b,)


c_p12m_instance_lambda_called_with_self.extra_args = _patched_b


# -- namedtuples (test_collections_namedtuple) --------------------------------------------------------------
_Single = namedtuple("_Single", ["a"])
_Pair = namedtuple("_Pair", ["a", "b"])
_Quartet = namedtuple("_Quartet", ["a", "b", "c", "d"], defaults=[1, 2, 3])


def c_p12m_namedtuple_defaults_sum(x):
    u, v, w, z = _Quartet(1, 2, 3, 4), _Quartet(5, 6, 7), _Quartet(8, 9), _Quartet(10)
    return x + sum(u) + sum(v) + sum(w) + sum(z), w, _Quartet._field_defaults


def c_p12m_namedtuple_fields_concat(x):
    return x + len(_Single._fields + _Pair._fields), _Single(1)._fields + _Pair(2, 3)._fields


def c_p12m_namedtuple_arguments_read(x, s, p):
    return x + s.a + p.a + p.b, p._replace(a=s.a), p._asdict()["b"]


c_p12m_namedtuple_arguments_read.extra_args = lambda: (_Single(torch.tensor(1.0)),
                                                      _Pair(torch.tensor(2.0), torch.tensor(3.0)))


def c_p12m_namedtuple_compare_and_index(x):
    p, q = _Pair(1, 2), _Pair(1, 3)
    return x + p.index(2) + p.count(1), p < q, p == (1, 2), tuple(reversed(p))


# -- super() (test_23_super) ----------------------------------------------------------------------------------
class _Base:
    def __init__(self, scale):
        self.scale = scale

    def run(self, v):
        return v * self.scale

    @classmethod
    def name(cls):
        return cls.__name__


class _Mid(_Base):
    def run(self, v):
        return super().run(v) + 1

    @classmethod
    def name(cls):
        return "mid-" + super().name()


class _Top(_Mid):
    def __init__(self):
        super().__init__(3)

    def run(self, v):
        return super(_Mid, self).run(v) - super().run(v)


def c_p12m_super_skipping_a_level(x):
    t = _Top()
    return t.run(x), _Top.name(), _Mid(2).run(x)


class _Seq(torch.nn.Sequential):
    def forward(self, v):
        return super().forward(v) * 2


def c_p12m_super_forward_of_sequential(x, m):
    return m(x.reshape(1, 3))


def _seq():
    m = _Seq(torch.nn.Linear(3, 2), torch.nn.ReLU())
    with torch.no_grad():
        m[0].weight.copy_(torch.arange(6.0).reshape(2, 3) / 10)
        m[0].bias.fill_(0.5)
    return (m,)


c_p12m_super_forward_of_sequential.extra_args = _seq


class _Dict(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)


def c_p12m_super_setitem_of_dict_subclass(x):
    d = _Dict()
    d["a"] = x
    d["b"] = 1
    return d["a"] + d["b"], len(d)


# -- list and dict edits (test_mutable_data) ----------------------------------------------------------------
def c_p12m_list_slice_delete_and_insert(x):
    items = [x, x + 1, x + 2, x + 3, x + 4]
    del items[1:4:2]
    items[1:1] = [x * 10]
    items.insert(-1, x - 1)
    return items, len(items)


def c_p12m_list_argument_extend_by_slice(x, items):
    items.extend(items[:2])
    items[::2] = [v * 2 for v in items[::2]]
    return torch.stack(items).sum(0)


c_p12m_list_argument_extend_by_slice.extra_args = lambda: ([torch.ones(3), torch.zeros(3), torch.full((3,), 2.0)],)


def c_p12m_dict_argument_popitem_setdefault(x, d):
    k, v = d.popitem()
    d.setdefault("z", x)
    d.update(w=v * 2, **{k + "2": v})
    return sorted(d), d["z"] + d["w"]


c_p12m_dict_argument_popitem_setdefault.extra_args = lambda: ({"a": torch.ones(3), "b": torch.arange(3.0)},)


def c_p12m_nested_mutation_through_alias(x):
    grid = [[x, x + 1], [x + 2]]
    row = grid[0]
    row.append(x * 3)
    grid[1].extend(row[1:])
    return sum(len(r) for r in grid), grid[1][-1]


# -- with and exceptions (test_25_with, test_24_exceptions) -------------------------------------------------
class _Counter:
    def __init__(self):
        self.enter = 0
        self.exit = 0

    def __enter__(self):
        self.enter += 1
        return self

    def __exit__(self, kind, value, tb):
        self.exit += 1
        return kind is KeyError


def c_p12m_with_suppresses_keyerror_only(x):
    c = _Counter()
    with c:
        x = x + 1
        _ = {}["missing"]
    try:
        with c:
            raise ValueError("kept")
    except ValueError as e:
        x = x + len(str(e))
    return x, c.enter, c.exit


def c_p12m_exit_stack_callbacks(x):
    order = []
    with contextlib.ExitStack() as stack:
        stack.callback(order.append, 1)
        stack.callback(order.append, 2)
        x = x * 2
    return x, order


def c_p12m_exception_attributes(x):
    try:
        raise KeyError("k", 2)
    except KeyError as e:
        args = e.args
    try:
        int("nope")
    except ValueError as e:
        kind = type(e).__name__
    return x + args[1], kind


def c_p12m_exception_caught_in_callee_loop(x):
    def safe_div(a, b):
        try:
            return a / b
        except ZeroDivisionError:
            return 0

    return x + sum(safe_div(6, b) for b in (0, 1, 2, 3))


# -- map (test_builtin_map) ---------------------------------------------------------------------------------
def c_p12m_map_with_operator_and_lambda(x):
    a = list(map(operator.mul, [1, 2, 3], [4, 5, 6]))
    b = dict(map(lambda kv: (kv[0], kv[1] * 2), {"p": 1, "q": 2}.items()))
    return x + sum(a), b, list(map(str, range(3)))


def c_p12m_map_over_tensor_list_consumed_twice(x):
    m = map(torch.relu, [x - 1, x - 2])
    first = next(m)
    rest = list(m)
    return first, rest, list(m)


def c_p12m_map_of_bound_tensor_method(x):
    return list(map(x.add, [1, 2])), tuple(map(torch.Tensor.sum, [x, x * 2]))


# -- a few constructs beside them -------------------------------------------------------------------------------
def c_p12m_methodcaller_attrgetter(x):
    up = operator.methodcaller("upper")
    shape_of = operator.attrgetter("shape", "ndim")
    return up("ab"), shape_of(x), x + operator.itemgetter(1, 2)([5, 6, 7])[0]


def c_p12m_divmod_round_and_int_bits(x):
    q, r = divmod(17, 5)
    return x + q + r + round(2.675, 2), (255).bit_length(), int.from_bytes(b"\x01\x02", "big"), round(7.5)


def c_p12m_str_translate_partition(x):
    table = str.maketrans("ab", "xy")
    head, sep, tail = "key=value".partition("=")
    return x + len(head), "abc".translate(table), tail, sep


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
