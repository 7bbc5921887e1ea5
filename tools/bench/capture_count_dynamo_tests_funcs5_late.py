"""The last of ``capture_count_dynamo_tests_funcs5.py``'s programs: test_misc.py's Python-level corners, and
calls (recursion, unusual keyword names, unpacking). Written afresh over one tensor.
"""

# ruff: noqa: B009, RUF015 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import collections
import functools
import math

import torch


# -- test_misc.py's Python-level corners ---------------------------------------------------------------------
def c_f5_text_of_torch_objects(x):
    parts = [f"{x.shape}", f"{x.dtype!s}", f"{torch.float32}", str(x.device), repr(x.dtype), f"{x.shape[0]:>4}"]
    return x + len("".join(parts)), parts


def c_f5_shape_through_builtins(x):
    s = x.shape
    return (x + sum(s) + max(s) + math.prod(s), sorted(s, reverse=True), list(reversed(s)), "x".join(map(str, s)),
            dict(enumerate(s)))


def c_f5_iterate_tensor_rows(x):
    m = torch.outer(x, x)
    total = torch.zeros_like(x)
    for i, row in enumerate(m):
        total = total + row * i
    pairs = [a + b for a, b in zip(m, m * 2)]
    return total, torch.stack(pairs), len(list(m)), [r.sum() for r in m.unbind(0)][0]


def c_f5_torch_queries_on_values(x):
    flags = [torch.is_tensor(x), torch.is_tensor(3), torch.numel(x) == x.numel(), torch.typename(x) == "torch.FloatTensor",
             x.__class__.__name__ == "Tensor", getattr(torch, "float32") is torch.float32]
    return getattr(torch.Tensor, "add")(x, 1) + sum(flags), flags


def c_f5_tensors_built_from_python_values(x):
    a = torch.tensor(x.shape)
    b = torch.as_tensor([1, 2, 3][: x.shape[0]] + [0] * max(0, x.shape[0] - 3), dtype=x.dtype)
    c = torch.tensor([[1.5, 2], [3, 4]])
    return x + b, a, c.dtype, torch.tensor(True).dtype, torch.tensor(3).dtype


def c_f5_decorator_factory_with_arguments(x):
    def scaled(factor, *, offset=0):
        def deco(fn):
            @functools.wraps(fn)
            def inner(*a, **k):
                return fn(*a, **k) * factor + offset

            inner.factor = factor
            return inner

        return deco

    @scaled(3, offset=1)
    def f(t):
        return t + 1

    return f(x), f.factor, f.__name__


def c_f5_class_decorator_adds_method(x):
    def with_double(cls):
        def double(self, t):
            return self.apply(t) * 2

        cls.double = double
        return cls

    @with_double
    class Op:
        def apply(self, t):
            return t + 1

    return Op().double(x), hasattr(Op, "double")


def c_f5_callable_object_passed_to_function(x):
    class Affine:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __call__(self, t):
            return t * self.a + self.b

    def apply_all(fns, t):
        return [f(t) for f in fns]

    return apply_all([Affine(2, 1), torch.sin, lambda t: t - 1, functools.partial(torch.mul, other=3)], x)


def c_f5_default_bound_at_definition(x):
    scale = 2

    def f(t, s=scale):
        return t * s

    scale = 10
    return f(x), f(x, scale)


def c_f5_contextlib_suppress_and_nullcontext(x):
    import contextlib

    d = {}
    with contextlib.suppress(KeyError):
        x = x + d["missing"]
    with contextlib.nullcontext(x * 2) as y:
        z = y + 1
    return x, z


def c_f5_dict_subclass_missing_and_list_subclass(x):
    class Defaulting(dict):
        def __missing__(self, key):
            return len(key)

    class Logged(list):
        def append(self, v):
            super().append(v * 2)

    d = Defaulting(a=1)
    lst = Logged()
    lst.append(3)
    lst.append(x)
    return lst[1] + d["a"] + d["abcd"], lst[0], "abcd" in d, len(d)


def c_f5_namedtuple_replace_asdict(x):
    Pt = collections.namedtuple("Pt", "a b c", defaults=(0,))
    p = Pt(1, x)
    q = p._replace(a=5)
    return q.b * q.a + q.c, p._asdict()["a"], Pt._fields, q == (5, x, 0) if False else q.a, len(Pt._field_defaults)


def c_f5_enum_members_and_values(x):
    import enum

    class Color(enum.Enum):
        RED = 1
        GREEN = 2

    total = sum(c.value for c in Color)
    return x + total + Color["GREEN"].value + Color(1).value, Color.RED.name, list(Color.__members__), Color.RED in Color


def c_f5_generator_send_and_return_value(x):
    def acc():
        total = 0
        while True:
            v = yield total
            if v is None:
                return total
            total += v

    g = acc()
    next(g)
    g.send(2)
    g.send(5)
    try:
        g.send(None)
        r = -1
    except StopIteration as e:
        r = e.value
    return x + r


def c_f5_float_text_forms(x):
    texts = [str(1e20), repr(1 / 3), str(1e-5), str(2.0), str(-0.0), repr(1e16), str(float("nan")), f"{1e6:g}"]
    return x + len("".join(texts)), texts


# -- calls: recursion, unusual keyword names, unpacking ------------------------------------------------------
def c_f5_mutual_recursion_nested(x):
    def even(n):
        return True if n == 0 else odd(n - 1)

    def odd(n):
        return False if n == 0 else even(n - 1)

    return x + even(6) + odd(3) * 2


def c_f5_kwargs_with_non_identifier_keys(x):
    def f(**kw):
        return sorted(kw)

    keys = f(**{"a-b": 1, "2x": 2, "ok": 3})
    return x + len(keys), keys


def c_f5_star_unpack_generator_and_set(x):
    def f(*args):
        return len(args), args[0] if args else None

    n1, first = f(*(i * 2 for i in range(3)))
    n2, _ = f(*{5}, *[6, 7], *"ab")
    return x + n1 + n2 + first


def c_f5_keyword_argument_error_non_string_key(x):
    def f(**kw):
        return kw

    try:
        f(**{1: 2})
        msg = "none"
    except TypeError as e:
        msg = str(e)
    return x + 1, msg


def c_f5_class_methods_naming_class_for_factory(x):
    class Interval:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

        @classmethod
        def around(cls, t, w):
            return cls(t - w, t + w)

        def shifted(self, d):
            return Interval(self.lo + d, self.hi + d)

        def __eq__(self, other):
            return isinstance(other, Interval) and self.lo is other.lo

    a = Interval.around(x, 1).shifted(2)
    return a.lo, a.hi, a == a, isinstance(a, Interval)


def c_f5_lambda_default_tensor_captured(x):
    y = x * 2
    f = lambda t, b=y: t + b  # noqa: E731
    y = y + 100
    return f(x), f(x, y)


def c_f5_partial_of_recursive_nested(x):
    def power(t, n):
        return t if n == 1 else t * power(t, n - 1)

    cube = functools.partial(power, n=3)
    return cube(x), cube.keywords


def c_f5_function_attribute_set_and_read(x):
    def counter(t):
        counter.calls += 1
        return t + counter.calls

    counter.calls = 0
    counter(x)
    return counter(x), counter.calls, counter.__dict__



def c_f5_double_star_non_string_key_to_torch(x):
    try:
        torch.add(**{1: 2})
        caught = "none"
    except TypeError:
        caught = "TypeError"
    except RuntimeError:
        caught = "RuntimeError"
    return x + 1, caught



CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
