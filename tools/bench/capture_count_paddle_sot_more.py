"""Paddle's SOT tests (``test/sot/test_13`` .. ``test_26``: making functions, operators, slices, torch functions
and layers, tensor methods, closures, strings, globals, generators, ``super``, exceptions, imports, sizes and
``with``) rebuilt in our own words with torch, for ``capture_count.py`` (``--only paddle_sot``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect

import torch


# -- making functions ----------------------------------------------------------------------------
def c_sot_make_function_defaults_annotations(x):
    def inner(a: torch.Tensor, b: int = 2, *, c: int = 3) -> torch.Tensor:
        return a * b + c

    def with_kwdefaults(a, *, scale=x.sum()):  # noqa: B008
        return a * scale

    out = inner(x) + inner(x, 4, c=1) + with_kwdefaults(x)
    return out, inner.__defaults__, inner.__annotations__["b"], inner.__kwdefaults__


def c_sot_make_function_lambdas(x):
    fns = [lambda t, k=k: t + k for k in range(3)]
    compose = (lambda f, g: lambda t: f(g(t)))(torch.sin, fns[2])
    return sum(f(x) for f in fns) + compose(x)


# -- operators -----------------------------------------------------------------------------------
def c_sot_operators_all_binary(x):
    a = x + 2
    return (a + x, a - x, a * x, a / 2, a // 2, a % 2, a ** 2, -a, +a, abs(-a),
            a > x, a >= x, a < x, a <= x, a == x, a != x)


def c_sot_operators_bitwise_ints_tensors(x):
    t = x.to(torch.int64)
    n = 6
    return (t & 1, t | 2, t ^ 3, ~t, t << 1, t >> 1, n & 3, n | 1, n ^ 5, ~n, n << 2, n >> 1, not n)


def c_sot_operators_inplace_tensor_and_int(x):
    y = x.clone()
    y += 1
    y -= 0.5
    y *= 2
    y /= 4
    y **= 2
    n = 7
    n //= 2
    n %= 3
    n <<= 2
    n |= 1
    n &= 5
    n ^= 2
    n >>= 1
    return y, n


def c_sot_operators_matmul_contains(x):
    m = x.reshape(3, 1) @ x.reshape(1, 3)
    m @= torch.eye(3)
    return m, 2 in [1, 2], "a" not in "bcd", 3 in range(4)


def c_sot_operators_tensor_truthiness(x):
    one = x[1:2]
    out = x
    if one:
        out = out + 1
    if not x[0:1]:
        out = out * 2
    return out, bool(x.sum() > 0)


# -- slices --------------------------------------------------------------------------------------
def c_sot_slice_python_sequences(x):
    lst, tup, text = [1, 2, 3, 4, 5], (1, 2, 3, 4), "abcdef"
    lst[1:3] = [9]
    del lst[::2]
    s = slice(1, None, 2)
    return x + sum(lst) + sum(tup[s]) + len(text[::-1]), lst, tup[-2:], text[s], s.indices(10)


def c_sot_slice_tensor_forms(x):
    m = torch.arange(12.0).reshape(3, 4) + x.sum()
    m[1:, ::2] = 0
    idx = slice(0, 2)
    return m[idx], m[..., -1], m[None, 1], m[:, 1:3:1], m[[0, 2]], m[m > 5]


# -- torch functions and layers ------------------------------------------------------------------
def c_sot_torch_api_mix(x):
    a, _ = torch.split(x.repeat(2), [2, 4])
    c = torch.concat([a, x], dim=0)
    d = torch.full_like(x, 2.0)
    e = torch.where(x > 1, x, d)
    return torch.stack([a, a]).sum() + c.mean() + e + torch.clamp(x, 0.5, 1.5) + torch.nn.functional.relu(x - 1)


def c_sot_torch_api_kwargs_and_dtypes(x):
    y = torch.zeros(3, dtype=torch.float32)
    z = torch.ones_like(x, dtype=torch.float64)
    w = torch.arange(start=0, end=3, step=1, dtype=x.dtype)
    return x.add(y, alpha=2) + w, z.dtype == torch.float64, torch.is_tensor(x), torch.numel(x)


class _Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.norm = torch.nn.LayerNorm(3)
        self.drop = torch.nn.Dropout(0.0)

    def forward(self, x):
        return self.drop(self.norm(self.linear(x)))


def c_sot_layer_built_and_called(x):
    block = _Block()
    block.eval()
    return block(x) + sum(p.numel() for p in block.parameters())


_SHARED = _Block()


def c_sot_layer_global_sequential(x):
    seq = torch.nn.Sequential(_SHARED, torch.nn.ReLU())
    return seq(x) + seq[0].linear.weight.sum()


# -- tensor methods ------------------------------------------------------------------------------
def c_sot_tensor_methods_chain(x):
    y = x.unsqueeze(0).transpose(0, 1).flatten().add(1).mul(2).sub(x).pow(2)
    return y.mean(), y.std(), y.argmax(), y.cumsum(0), y.flip(0), y.abs().sqrt()


def c_sot_tensor_attributes(x):
    return (x + x.ndim + x.numel() + x.size(0) + len(x.shape) + x.element_size(), x.dtype, x.is_floating_point(),
            x.device.type, x.requires_grad, x.T.shape, x.is_contiguous(), x.__class__.__name__, x.is_leaf,
            (x * 2).grad_fn is None)


def c_sot_tensor_inplace_methods(x):
    y = x.clone()
    y.add_(1).mul_(2).clamp_(max=5)
    y[0] = -1
    y.zero_() if y.sum() > 100 else y.sub_(1)
    return y


# -- closures ------------------------------------------------------------------------------------
def c_sot_closure_nonlocal_two_writers(x):
    a = 1

    def first():
        nonlocal a
        old = a
        a = 2
        return old

    def second():
        nonlocal a
        a = 1
        return a

    x = x + first()
    x = x + second()
    return x + a


def _wrap(func):
    base = 2

    def inner():
        return func(base)

    return inner


_WRAPPED = _wrap(lambda c: c + 2)


def _kwargs_decorator(func):
    sig = inspect.signature(func)

    def inner(*args, **kwargs):
        return func(*args, **kwargs)

    inner.__signature__ = sig
    return inner


@_kwargs_decorator
def _added(a, b):
    return a + b


def c_sot_closure_incoming_and_signature_decorator(x):
    return x + _WRAPPED() + _added(3, b=5)


def _make_counter():
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    return bump


_BUMP = _make_counter()


def c_sot_closure_cell_outlives_frame(x):
    first = _BUMP()
    return x + (_BUMP() - first)  # the count grows across runs: the difference is what stays the same


c_sot_closure_cell_outlives_frame.calls = 2


# -- strings, globals ----------------------------------------------------------------------------
def c_sot_string_methods(x):
    s = "Hello, World"
    parts = s.lower().split(", ")
    joined = "-".join(parts)
    flags = (s.startswith("He"), s.endswith("d"), s.isalpha(), "12".isdigit(), s.find("o"), s.count("l"))
    text = "{}:{:>3}".format(joined, 5) + "%s=%d" % ("k", 3)  # noqa: UP031, UP032
    text += s.replace("l", "L").strip("H").upper()
    return x + len(text) + sum(flags), text, s.partition(","), ord("a"), chr(98)


def c_sot_string_compare_and_format_tensor_name(x):
    mode = "train"
    if mode == "train" and mode != "eval" and mode in ("train", "val"):
        x = x * 2
    return x, f"{mode}_{x.dtype}", str(x.shape), repr(3)


_GLOBAL_COUNT = 0
_GLOBAL_LIST = []


def c_sot_global_rebind_and_mutate(x):
    global _GLOBAL_COUNT
    _GLOBAL_COUNT = 0  # each run starts afresh, so eager's and loom's runs compare
    _GLOBAL_LIST.clear()
    _GLOBAL_COUNT += 1
    _GLOBAL_LIST.append(_GLOBAL_COUNT)
    return x + _GLOBAL_COUNT + len(_GLOBAL_LIST), list(_GLOBAL_LIST)


def c_sot_global_declared_in_nested(x):
    def inner(a, b=5):
        global _GLOBAL_COUNT
        _GLOBAL_COUNT = 1
        return a + _GLOBAL_COUNT + b

    return x + inner(1) + _GLOBAL_COUNT


# -- generators ----------------------------------------------------------------------------------
def _pair(a, b):
    yield a
    yield b


def _echo():
    received = None
    received = yield received
    received = yield received
    yield received


def _delegating():
    yield from _pair(1, 2)
    yield from [3, 4]


def c_sot_generator_next_send_yield_from(x):
    g = _pair(x, x + 1)
    a, b = next(g), next(g)
    e = _echo()
    init = next(e)
    r1, r2 = e.send(2), e.send(3)
    total = sum(_delegating())
    gen_expr = (i * 2 for i in range(3))
    return a + b + r1 + r2 + total + next(gen_expr) + next(gen_expr), init, next(g, "done")


def c_sot_generator_exhausted_stopiteration(x):
    g = _pair(1, 2)
    out = x
    while True:
        try:
            out = out + next(g)
        except StopIteration:
            break
    return out


# -- super ---------------------------------------------------------------------------------------
class _A:
    scale = 1

    def add(self, x):
        return x + 2


class _B(_A):
    scale = 10

    def add(self, x):
        return super().add(x) + super(_B, self).add(x) + super().scale  # noqa: UP008

    def add_as_me(me, x):
        return super(_B, me).add(x)  # noqa: UP008


class _X:
    def f(self, x):
        return 1 + x


class _Y:
    def f(self, x):
        return 2 + x


class _Z(_X, _Y):
    def f(self, x):
        return super().f(x) + 3


class _P(_Y):
    def f(self, x):
        return super(_P, self).f(x) + 4  # noqa: UP008


class _Q(_Z, _P):
    def f(self, x):
        return super().f(x) + super(_Z, self).f(x) + super(_P, self).f(x)


def c_sot_super_single_and_diamond(x):
    return _B().add(x) + _B().add_as_me(x) + _Q().f(x)


def c_sot_super_object_passed_around(x):
    q = _Q()
    proxy = super(_Q, q)
    return x + proxy.f(1) + (lambda s: s.f(2))(super(_Z, q))


# -- exceptions ----------------------------------------------------------------------------------
def c_sot_exception_reraise_nested(x):
    x = x + 1
    try:
        try:
            x = x + 2
            _ = 10 / 0
        except ZeroDivisionError:
            x = x + 3
            raise
    except ArithmeticError:
        x = x + 4
    return x + 5


def c_sot_exception_raise_from_chains(x):
    try:
        try:
            x = x / 2
            raise NameError("inner")
        except NameError as e:
            x = x - 4
            raise TimeoutError("outer") from e
    except TimeoutError as err:
        x = x + (err.__cause__ is not None) + len(str(err))
    try:
        try:
            x = x - 1
        finally:
            raise ValueError from None
    except ValueError as err:
        x = x + err.__suppress_context__
    return x


def c_sot_exception_else_finally_return(x):
    def guarded(t):
        try:
            t = t + 1
        except RuntimeError:
            t = t * 0
        else:
            t = t * 2
        finally:
            t = t - 1
        return t

    def finally_wins(t):
        try:
            return t + 1
        finally:
            t = t * 10  # the return value is already taken: this does not change it

    return guarded(x) + finally_wins(x)


def c_sot_exception_builtin_objects(x):
    errs = [ValueError(), TypeError("t"), KeyError("k"), Exception("e"), UnicodeTranslateError("", -1, -1, "")]
    return x + len(errs) + len(errs[1].args) + isinstance(errs[2], LookupError), str(errs[2])


def c_sot_exception_assert_message(x):
    try:
        assert x.shape[0] == 4, f"need 4 got {x.shape[0]}"
    except AssertionError as e:
        return x + len(str(e))
    return x


class _ShapeError(ValueError):
    def __init__(self, got):
        super().__init__(f"bad {got}")
        self.got = got


def c_sot_exception_user_defined_class(x):
    try:
        raise _ShapeError(x.shape[0])
    except ValueError as e:
        return x + e.got, e.args


def c_sot_exception_bare_raise_outside_handler(x):
    try:
        x = x + 1
        raise
    except RuntimeError:
        x = x - 3
    return x * 4


# -- imports, sizes ------------------------------------------------------------------------------
def c_sot_import_inside_function(x):
    import math
    from collections import OrderedDict

    import torch.nn.functional as F

    d = OrderedDict(a=1)
    return F.gelu(x) + math.sqrt(4) + math.pi + len(d)


def c_sot_size_operations(x):
    m = x.reshape(1, 3).expand(2, 3)
    s = m.size()
    n = torch.Size([2, 3])
    return (m.reshape(s[1], s[0]), s == n, s[1:], s + (4,), len(s),  # noqa: RUF005
            s.numel(), tuple(s), list(s), s.index(3), torch.zeros(s).shape, m.new_ones(s[0], 1), s.count(2))


# -- with ----------------------------------------------------------------------------------------
class _Scale:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return 3

    def __exit__(self, kind, value, tb):
        self.log.append("out" if kind is None else kind.__name__)
        return kind is KeyError  # swallows KeyError only


def c_sot_with_user_context_manager(x):
    log = []
    with _Scale(log) as k:
        x = x * k
    with _Scale(log):
        x = x + 1
        raise KeyError("swallowed")
    with _Scale(log) as a, _Scale(log) as b:
        x = x + a * b
    return x, log


@contextlib.contextmanager
def _tagged(log, name):
    log.append(name)
    try:
        yield len(name)
    finally:
        log.append("/" + name)


def c_sot_with_contextmanager_and_no_grad(x):
    log = []
    with _tagged(log, "outer") as n, torch.no_grad():
        y = x * n
        with _tagged(log, "in"):
            y = y + 1
    with torch.enable_grad():
        z = x + 1
    return y, z, log, torch.is_grad_enabled()


def c_sot_with_exception_propagates_through(x):
    log = []
    try:
        with _tagged(log, "a"):
            x = x + 1
            raise IndexError("boom")
    except IndexError:
        x = x * 2
    return x, log


def c_sot_functools_partial_reduce(x):
    add3 = functools.partial(torch.add, other=3)
    return functools.reduce(lambda acc, t: acc * t, [x, x + 1, add3(x)])


CONSTRUCTS = [c_sot_make_function_defaults_annotations, c_sot_make_function_lambdas, c_sot_operators_all_binary,
              c_sot_operators_bitwise_ints_tensors, c_sot_operators_inplace_tensor_and_int,
              c_sot_operators_matmul_contains, c_sot_operators_tensor_truthiness, c_sot_slice_python_sequences,
              c_sot_slice_tensor_forms, c_sot_torch_api_mix, c_sot_torch_api_kwargs_and_dtypes,
              c_sot_layer_built_and_called, c_sot_layer_global_sequential, c_sot_tensor_methods_chain,
              c_sot_tensor_attributes, c_sot_tensor_inplace_methods,
              c_sot_closure_nonlocal_two_writers, c_sot_closure_incoming_and_signature_decorator,
              c_sot_closure_cell_outlives_frame, c_sot_string_methods, c_sot_string_compare_and_format_tensor_name,
              c_sot_global_rebind_and_mutate, c_sot_global_declared_in_nested,
              c_sot_generator_next_send_yield_from, c_sot_generator_exhausted_stopiteration,
              c_sot_super_single_and_diamond, c_sot_super_object_passed_around, c_sot_exception_reraise_nested,
              c_sot_exception_raise_from_chains, c_sot_exception_else_finally_return,
              c_sot_exception_builtin_objects, c_sot_exception_assert_message, c_sot_exception_user_defined_class,
              c_sot_exception_bare_raise_outside_handler, c_sot_import_inside_function, c_sot_size_operations,
              c_sot_with_user_context_manager, c_sot_with_contextmanager_and_no_grad,
              c_sot_with_exception_propagates_through, c_sot_functools_partial_reduce]
