"""Programs after CPython's test_funcattrs, test_functools and test_grammar as PyTorch's Dynamo suite runs them
(``test/dynamo/cpython/3_13/``), for ``capture_count.py``: function attributes (``__defaults__``, ``__closure__``,
``__dict__``), ``functools`` (partial, reduce, total_ordering, cached_property, cmp_to_key, wraps, singledispatch,
lru_cache, partialmethod) and grammar corners (walrus, star unpacking, nonlocal, try/else/finally, chained
comparisons, for/while-else, f-strings). Each mixes the construct with tensor work so that the frame is compiled.
"""

from __future__ import annotations

import functools

from capture_count_cpython_lang import _Callable

# ---- test_funcattrs ------------------------------------------------------------------------------------------

def _target(a, b=2, *, c=3):
    """Doc."""
    return a + b + c


def c_cl_function_attributes(x):
    y = x * 2
    n = len(_target.__name__) + len(_target.__qualname__) + len(_target.__doc__)
    return y + n + sum(_target.__defaults__) + _target.__kwdefaults__["c"] + _target.__code__.co_argcount


def c_cl_function_dict_attribute(x):
    def f(t):
        return t + f.bonus

    f.bonus = 3
    y = x + 1
    return f(y) + len(f.__dict__)


def c_cl_closure_cells(x):
    k = 4

    def inner(t):
        return t + k

    y = x * 2
    cells = inner.__closure__
    return inner(y) + cells[0].cell_contents + len(inner.__code__.co_freevars)


def c_cl_defaults_rebound(x):
    def f(t, k=1):
        return t * k

    y = x + 1
    before = f(y)
    f.__defaults__ = (5,)
    return before + f(y)


def c_cl_bound_method_attributes(x):
    y = x + 1
    obj = _Callable(2)
    m = obj.__call__
    return y + (m.__self__ is obj) + len(m.__func__.__name__) + m(y)


# ---- test_functools ------------------------------------------------------------------------------------------

def _axpy(a, t, b=0):
    return a * t + b


def c_cl_partial_nested(x):
    y = x + 1
    p = functools.partial(_axpy, 2)
    q = functools.partial(p, b=3)
    return q(y) + len(q.args) + len(q.keywords) + (q.func is _axpy)


def c_cl_reduce_initial(x):
    y = x * 2
    total = functools.reduce(lambda acc, v: acc + v, [1, 2, 3], 10)
    prod = functools.reduce(lambda a, b: a * b, [y, y, 2])
    return prod + total


@functools.total_ordering
class _Version:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n

    def __lt__(self, other):
        return self.n < other.n


def c_cl_total_ordering(x):
    y = x - 1
    a, b = _Version(1), _Version(2)
    return y + (a <= b) + (b >= a) + (a > b) + (b <= b)


class _Expensive:
    def __init__(self, t):
        self.t = t
        self.calls = 0

    @functools.cached_property
    def doubled(self):
        self.calls += 1
        return self.t * 2


def c_cl_cached_property(x):
    e = _Expensive(x + 1)
    first = e.doubled
    second = e.doubled
    return first + second + e.calls


def c_cl_cmp_to_key(x):
    y = x * 2
    words = sorted(["ccc", "a", "bb"], key=functools.cmp_to_key(lambda a, b: len(b) - len(a)))
    return y + len(words[0]) * 10 + len(words[-1])


def _wrapper_deco(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        return fn(*args, **kw) + 1
    return wrapper


@_wrapper_deco
def _decorated(t):
    """Decorated doc."""
    return t * 3


def c_cl_wraps_metadata(x):
    y = x + 1
    return _decorated(y) + len(_decorated.__name__) + (_decorated.__wrapped__(y)).sum()


@functools.singledispatch
def _describe(v):
    return 0


@_describe.register
def _(v: int):
    return v * 2


@_describe.register(list)
def _(v):
    return len(v)


def c_cl_singledispatch(x):
    y = x * 2
    return y + _describe(3) + _describe([1, 2]) + _describe("s")


@functools.lru_cache(maxsize=4)
def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


def c_cl_lru_cache_recursion(x):
    y = x + 1
    return y + _fib(10)


def c_cl_partial_method(x):
    class Cell:
        def set_state(self, state):
            self.state = state
            return self
        set_on = functools.partialmethod(set_state, 3)

    y = x * 2
    return y + Cell().set_on().state


# ---- test_grammar --------------------------------------------------------------------------------------------

def c_cl_walrus_in_comprehension(x):
    y = x + 1
    vals = [z for v in range(5) if (z := v * v) > 3]
    return y + sum(vals) + z


def c_cl_star_unpacking_targets(x):
    y = x * 2
    first, *middle, last = [1, 2, 3, 4, 5]
    (a, b), *rest = [(6, 7), 8, 9]
    return y + first + sum(middle) + last + a + b + len(rest)


def c_cl_star_in_literals(x):
    y = x - 1
    merged = [*range(3), *(4, 5)]
    d = {**{"a": 1}, "b": 2, **{"a": 3}}
    s = {*merged, 0}
    return y + sum(merged) + d["a"] + len(d) + len(s)


def c_cl_nonlocal_counter(x):
    count = 0

    def bump(k):
        nonlocal count
        count += k
        return count

    y = x * 2
    bump(2)
    bump(3)
    return y + count


def c_cl_try_finally_return_override(x):
    def f():
        try:
            return 1
        finally:
            pass

    def g(log):
        try:
            return len(log)
        finally:
            log.append("f")

    y = x + 1
    log = []
    return y + f() + g(log) + len(log)


def c_cl_try_else_finally_order(x):
    log = []
    y = x * 2
    try:
        log.append(1)
    except ValueError:
        log.append(2)
    else:
        log.append(3)
    finally:
        log.append(4)
    return y + sum(log) * 10 + len(log)


def c_cl_conditional_and_boolean_values(x):
    y = x + 1
    a = 0 or [] or "z"
    b = 3 and 0 and 5
    c = None if y.sum() > 100 else 2
    return y + len(a) + b + c


def c_cl_chained_comparison_once(x):
    calls = []

    def mid():
        calls.append(1)
        return 5

    y = x * 2
    ok = 1 < mid() < 10 > 2
    return y + ok + len(calls)


def c_cl_lambda_defaults_and_kwonly(x):
    f = lambda t, k=2, *, m=3: t * k + m  # noqa: E731
    y = x + 1
    return f(y) + f(y, 1, m=0)


def c_cl_del_and_unbound_local(x):
    y = x * 2
    v = 3
    del v
    try:
        v  # noqa: B018
        got = 0
    except NameError:
        got = 1
    return y + got


def c_cl_assert_message(x):
    y = x + 1
    try:
        assert y.shape[0] == 99, "size"
        msg = ""
    except AssertionError as e:
        msg = str(e)
    return y + len(msg)


def c_cl_for_else_while_else(x):
    y = x * 2
    for i in range(4):
        if i == 10:
            break
    else:
        y = y + 1
    n = 0
    while n < 3:
        n += 1
        if n == 2:
            break
    else:
        y = y + 100
    return y + n


def c_cl_nested_comprehension_scopes(x):
    y = x + 1
    k = 10
    grid = [[i * k + j for j in range(2)] for i in range(3)]
    return y + sum(map(sum, grid)) + {i: i * i for i in range(3)}[2]


def c_cl_fstring_formatting(x):
    y = x * 2
    n = 7
    s = f"{n:03d}|{n!r}|{3.14159:.2f}|{'ab':>4}"
    return y + len(s) + s.count("0")


CONSTRUCTS = [c_cl_function_attributes, c_cl_function_dict_attribute, c_cl_closure_cells, c_cl_defaults_rebound,
              c_cl_bound_method_attributes, c_cl_partial_nested, c_cl_reduce_initial, c_cl_total_ordering,
              c_cl_cached_property, c_cl_cmp_to_key, c_cl_wraps_metadata, c_cl_singledispatch,
              c_cl_lru_cache_recursion, c_cl_partial_method, c_cl_walrus_in_comprehension,
              c_cl_star_unpacking_targets, c_cl_star_in_literals, c_cl_nonlocal_counter,
              c_cl_try_finally_return_override, c_cl_try_else_finally_order, c_cl_conditional_and_boolean_values,
              c_cl_chained_comparison_once, c_cl_lambda_defaults_and_kwonly, c_cl_del_and_unbound_local,
              c_cl_assert_message, c_cl_for_else_while_else, c_cl_nested_comprehension_scopes,
              c_cl_fstring_formatting]
