"""Small functions modelled on PyTorch's test/dynamo/test_functions.py and the Python-level parts of
test/dynamo/test_misc.py, for ``capture_count.py --only dynamo_tests_funcs5``: builtins on tensors and Python
values, the operator module, math, closures and defaults, ``*args``/``**kwargs`` forwarding, keyword-only
arguments, functools, type checks, torch functions taking Python scalars, unusual tensor-method argument forms,
dtype/device objects, ``torch.Size``, string formatting and container building. Each is written afresh over one
tensor and differs from the _functions3/_functions4/_misc2/_repros3 files' programs.
"""

# ruff: noqa: UP031, RUF005, UP003, B004, B007, B010, RUF015 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import collections
import functools
import math
import operator

import torch


def c_f5_list_compare_chain(x):
    acc = 0.0
    for a, b in [((1, 2), (1, 3)), ((2,), (1, 9)), ((1, 2, 3), (1, 2)), ((), ())]:
        acc += (a < b) * 1 + (a <= b) * 2 + (a > b) * 4 + (a >= b) * 8 + (a == b) * 16 + (a != b) * 32
    return x + acc


def c_f5_operator_methodcaller_itemgetter(x):
    call = operator.methodcaller("add", 2, alpha=3)
    pick = operator.itemgetter(1, -1)
    a, b = pick([x, x * 2, x * 3])
    return call(x), a + b, operator.attrgetter("shape")(x)


def c_f5_operator_inplace_functions(x):
    lst = [1, 2]
    lst = operator.iadd(lst, [3])
    y = operator.imul(x.clone(), 2)
    z = operator.ipow(x.clone(), 2)
    return y + z + len(lst), operator.concat((1,), (2,)), operator.contains(lst, 3)


def c_f5_operator_countof_indexof(x):
    xs = [1, 2, 2, 3, 2]
    return x * operator.countOf(xs, 2) + operator.indexOf(xs, 3)


def c_f5_math_functions_on_sizes(x):
    n = x.shape[0]
    return x * math.sqrt(n) + math.log2(n) + math.gcd(n, 6) + math.ceil(n / 3) + math.prod([n, 2]) + math.comb(n, 2)


def c_f5_math_isclose_and_copysign(x):
    v = 0.1 + 0.2
    s = math.copysign(2.0, -0.0) if math.isclose(v, 0.3) else 5.0
    return x + s + math.fsum([0.1] * 10) + math.hypot(3, 4) + math.fmod(7, 3)


def c_f5_math_isfinite_inf_nan(x):
    vals = [1.0, math.inf, -math.inf, math.nan]
    flags = [math.isfinite(v) + 2 * math.isinf(v) + 4 * math.isnan(v) for v in vals]
    return x + sum(flags)


def c_f5_divmod_and_round_forms(x):
    q, r = divmod(17, 5)
    qf, rf = divmod(-7.5, 2)
    return x + q + r + qf + rf + round(2.5) + round(3.14159, 2) + round(-1.5)


def c_f5_pow_with_modulus_and_abs(x):
    return x + pow(3, 4, 5) + abs(-3) + pow(2, -1) + abs(-2.5)


def c_f5_int_float_bool_conversions(x):
    return x + int("12") + int("ff", 16) + float("1.5") + bool("") + int(3.9) + int(-3.9) + int(True)


def c_f5_str_format_variants(x):
    s = "{:>5}|{:<4}|{:^6}|{:08.3f}|{:x}|{:,}".format("ab", 1, "c", 3.14159, 255, 1234567)
    return x + len(s), s


def c_f5_percent_format_and_repr(x):
    s = "%s-%r-%5.2f-%d%%" % ("a", "b", 2.5, 7)
    return x + len(s), s, repr((1, "x", None)), str([1.5, True])


def c_f5_fstring_with_conversions(x):
    name = "loom"
    w = 3.14159
    s = f"{name!r}:{w:.2f}:{x.shape[0]:03d}:{x.dtype}"
    return x + len(s), s


def c_f5_keyword_only_defaults(x):
    def f(a, *, scale=2, shift=1):
        return a * scale + shift

    return f(x), f(x, shift=3), f(x, scale=0.5, shift=-1)


def c_f5_posonly_and_kwargs_forwarding(x):
    def inner(a, /, b, *rest, c=1, **kw):
        return a + b * c + sum(rest) + sum(kw.values())

    def outer(*args, **kwargs):
        return inner(*args, **kwargs)

    return outer(x, 2, 3, 4, c=5, d=6, e=7)


def c_f5_star_args_with_tensor_and_defaults(x):
    def f(a, b=10, *args, c, d=4, **kwargs):
        return a + b + len(args) + c + d + len(kwargs)

    return f(x, c=1), f(x, 1, 2, 3, c=1, z=9), f(*(x, 2), **{"c": 3, "d": 0})


def c_f5_defaults_mutable_shared(x):
    def f(v, acc=[]):  # noqa: B006
        acc.append(v)
        return len(acc)

    f(1)
    return x + f(2), f.__defaults__[0]


def c_f5_kwdefaults_read(x):
    def f(a, *, k=3):
        return a * k

    return f(x) + f.__kwdefaults__["k"] + f.__code__.co_argcount + f.__code__.co_kwonlyargcount


def c_f5_closure_cells_and_nonlocal_counter(x):
    def make():
        n = 0

        def bump(k=1):
            nonlocal n
            n += k
            return n

        return bump

    b = make()
    b()
    b(5)
    return x + b(), b.__closure__[0].cell_contents


def c_f5_lambda_defaults_capture_loop(x):
    fs = [lambda t, i=i: t * i for i in range(4)]
    gs = [lambda t: t * i for i in range(4)]  # noqa: B023
    return sum(f(x) for f in fs), sum(g(x) for g in gs)


def c_f5_functools_reduce_operator_mul(x):
    dims = list(x.shape) + [2, 3]
    return x * functools.reduce(operator.mul, dims, 1) + functools.reduce(lambda a, b: a * 10 + b, [1, 2, 3])


def c_f5_functools_partial_keyword_override(x):
    def f(a, b=1, c=2):
        return a * b + c

    p = functools.partial(f, b=3, c=4)
    return p(x), p(x, c=0), p.keywords["b"] + len(p.args)


def c_f5_functools_wraps_decorator_chain(x):
    def twice(fn):
        @functools.wraps(fn)
        def w(*a, **k):
            return fn(*a, **k) * 2

        return w

    @twice
    @twice
    def g(t, k=1):
        """doc"""
        return t + k

    return g(x, k=2), g.__name__, g.__doc__, g.__wrapped__.__name__


def c_f5_isinstance_tuple_and_abc(x):
    import collections.abc as cabc

    checks = [
        isinstance(x, (int, torch.Tensor)),
        isinstance([], cabc.Sequence),
        isinstance({}, cabc.Mapping),
        isinstance(x.shape, tuple),
        isinstance(torch.float32, torch.dtype),
        isinstance(1, (float, (str, int))),
        issubclass(bool, int),
        issubclass(torch.nn.Linear, (torch.nn.Module,)),
    ]
    return x + sum(checks)


def c_f5_type_checks_and_names(x):
    kinds = [type(1).__name__, type(x).__name__, type(x.shape).__name__, type(x.dtype).__name__, type(None).__name__]
    return x + len("".join(kinds)), kinds, type(x) is torch.Tensor, type(3.0) in (float, int)


def c_f5_torch_fns_with_python_scalars(x):
    a = torch.add(x, 2, alpha=3)
    b = torch.clamp(x, min=-0.5)
    c = torch.where(x > 0, x, 0.0)
    d = torch.maximum(x, torch.tensor(0.25))
    e = torch.full_like(x, 7)
    return a + b + c + d + e + torch.pow(2, x)


def c_f5_tensor_methods_tuple_args(x):
    y = x.reshape((2, -1)) if x.numel() % 2 == 0 else x.reshape(-1, 1)
    z = y.permute(*reversed(range(y.dim())))
    w = y.view([-1]).expand(2, -1).sum(dim=(0,))
    return z.contiguous(), w, y.sum((0, 1), keepdim=True), y.flip(dims=[0])


def c_f5_tensor_size_methods_and_numel(x):
    s = x.size()
    return x + s.numel() + len(s) + s.count(x.shape[0]) + s.index(x.shape[0]), s[-1:], torch.Size([2, 3]) + s


def c_f5_size_built_from_list_and_compared(x):
    s = torch.Size([x.shape[0], 1])
    t = x.unsqueeze(-1)
    return t.expand(s) if t.shape == s else t, s == (x.shape[0], 1), list(s), tuple(s) + (5,)


def c_f5_dtype_properties(x):
    dts = [torch.float16, torch.int8, torch.bool, torch.complex64, x.dtype]
    info = [(d.is_floating_point, d.is_complex, d.is_signed, d.itemsize) for d in dts]
    return x + sum(i[3] for i in info), info, str(torch.float64), torch.float == torch.float32


def c_f5_device_objects(x):
    d = torch.device("cpu")
    e = torch.device("cpu", 0) if False else x.device
    return x.to(d) + 1, d == e, d.type, str(d), d.index is None, x.new_ones(2, device=d)


def c_f5_promote_and_result_type(x):
    r = torch.result_type(x, 2.5)
    p = torch.promote_types(torch.int32, torch.float16)
    return x.to(r) + 1, x.to(p), torch.can_cast(torch.float32, torch.int32), r, p


def c_f5_get_default_dtype_and_is_floating(x):
    if torch.get_default_dtype() == torch.float32 and torch.is_floating_point(x) and not torch.is_complex(x):
        return x + 1
    return x - 1


def c_f5_dict_building_forms(x):
    d1 = dict(a=x, b=2)
    d2 = dict([("c", 3)], d=4)
    d3 = {**d1, **d2, "e": 5}
    d4 = dict(zip("xyz", range(3)))
    d5 = {k: v for k, v in d3.items() if not isinstance(v, torch.Tensor)}
    return d3["a"] + sum(d5.values()) + sum(d4.values()), sorted(d3), list(d4.items())


def c_f5_dict_methods_chain(x):
    d = {"a": 1}
    d.setdefault("b", 2)
    d.setdefault("a", 99)
    d.update(c=3)
    k, v = d.popitem()
    d |= {"z": 26}
    return x + sum(d.values()) + v, k, list(reversed(d)), d.get("q", -1)


def c_f5_list_building_and_sorting(x):
    xs = [3, 1, 2]
    ys = sorted(xs, reverse=True) + xs[::-1] + [*range(2), *"ab".upper()]
    xs.sort(key=lambda v: -v)
    xs.insert(1, 7)
    xs.remove(1)
    return x + sum(v for v in ys if isinstance(v, int)) + xs.index(7), ys, xs


def c_f5_tuple_methods_and_mul(x):
    t = (1, 2, 2, 3) * 2
    return x + t.count(2) + t.index(3) + len(t[1::3]), t[-3:], (x,) * 2


def c_f5_set_building_and_ops(x):
    a = {1, 2, 3}
    b = set(range(2, 6))
    a.discard(9)
    c = (a | b) - {5}
    c ^= {1, 10}
    return x + len(c) + min(c) + max(c), sorted(c), frozenset(a) <= frozenset(b | a), a.isdisjoint({7})


def c_f5_builtin_sum_min_max_variants(x):
    parts = [x, x * 2, x * 3]
    return sum(parts, torch.zeros_like(x)), max(3, 1, 2), min([4, 2], default=0), max([], default=-1), min("bca")


def c_f5_any_all_map_filter_chain(x):
    vals = list(map(lambda v: v * 2, filter(None, [0, 1, 2, 0, 3])))
    flag = any(v > 5 for v in vals) and all(map(bool, vals))
    return x + sum(vals) + flag, vals


def c_f5_enumerate_start_and_zip_three(x):
    total = 0
    for i, (a, b, c) in enumerate(zip([1, 2], "ab", [x, x * 2]), start=10):
        total = total + i + a + c.sum()
    return x + total


def c_f5_iter_with_sentinel_and_next_default(x):
    it = iter([1, 2, 0, 3])
    got = list(iter(lambda: next(it), 0))
    rest = next(it, None)
    none = next(iter([]), "empty")
    return x + sum(got) + rest, none


def c_f5_getattr_default_and_hasattr(x):
    class Cfg:
        scale = 2.0

    c = Cfg()
    return x * getattr(c, "scale", 1.0) + getattr(c, "missing", 3.0), hasattr(c, "scale"), hasattr(x, "nope")


def c_f5_setattr_delattr_on_instance(x):
    class Box:
        pass

    b = Box()
    setattr(b, "v", x + 1)
    b.w = 2
    delattr(b, "w")
    return b.v * 2, hasattr(b, "w"), sorted(vars(b))


def c_f5_callable_and_id_identity(x):
    f = torch.sin
    g = f
    return x + (g is f) + callable(f) + callable(3) + (id(f) == id(g))


def c_f5_chr_ord_hex_bin(x):
    s = chr(ord("a") + 2) + hex(255) + bin(5) + oct(8)
    return x + ord(s[0]) + len(s), s


def c_f5_str_methods_mix(x):
    s = "  Hello, World  "
    parts = s.strip().lower().replace(",", "").split()
    t = "-".join(p.capitalize() for p in parts).center(15, "*")
    return x + len(t) + s.count("l") + s.find("W") + s.rfind("o"), t, s.partition(","), "a1".isalnum()


def c_f5_string_in_and_startswith_tuple(x):
    name = "layer.weight"
    if name.startswith(("layer", "blk")) and name.endswith(".weight") and "." in name:
        return x + name.rsplit(".", 1)[0].__len__()
    return x


def c_f5_nested_function_default_tensor(x):
    def f(t, bias=None):
        if bias is None:
            bias = torch.ones_like(t)
        return t + bias

    return f(x), f(x, bias=x * 2)


def c_f5_recursive_inner_function(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    return x * fact(5)


def c_f5_generator_expression_into_tuple_and_dict(x):
    t = tuple(x * i for i in range(3))
    d = dict((str(i), i * i) for i in range(3))
    return t[2] + d["2"], tuple(d)


def c_f5_slice_objects(x):
    s = slice(1, None, 2)
    lst = list(range(10))
    return x[s] if x.dim() else x, lst[s], s.indices(5), lst[slice(-3, None)]


def c_f5_tensor_item_and_tolist_in_python_math(x):
    n = int(x.numel())
    return x + n // 2 + float(n) / 4 + (n % 3), x.dim() ** 2


def c_f5_ordereddict_move_to_end(x):
    od = collections.OrderedDict(a=1, b=2, c=3)
    od.move_to_end("a")
    od.move_to_end("c", last=False)
    return x + list(od.values())[0], list(od)


def c_f5_counter_and_deque_maxlen(x):
    cnt = collections.Counter("abracadabra")
    dq = collections.deque(range(5), maxlen=3)
    dq.append(9)
    return x + cnt["a"] + cnt.most_common(1)[0][1] + sum(dq), list(dq), dq.maxlen


def c_f5_bool_of_containers_and_none(x):
    flags = [bool([]), bool([0]), bool({}), bool(()), bool(""), bool(None), bool(0.0), bool(x.shape)]
    return x + sum(flags), flags


def c_f5_chained_comparison_ints_and_tensor_shape(x):
    n = x.shape[0]
    if 0 < n <= 100 != n:
        return x + 1
    return x - 1


def c_f5_method_unbound_call_forms(x):
    return torch.Tensor.add(x, 1), torch.Tensor.mul(x, other=2), str.upper("ab"), list.__len__([1, 2])


def c_f5_class_with_classmethod_staticmethod(x):
    class M:
        base = 3

        @classmethod
        def make(cls, t):
            return t + cls.base

        @staticmethod
        def twice(t):
            return t * 2

    return M.make(x) + M.twice(x) + M().make(x) + M().twice(x)


def c_f5_dunder_operators_on_user_object(x):
    class V:
        def __init__(self, t):
            self.t = t

        def __add__(self, o):
            return V(self.t + (o.t if isinstance(o, V) else o))

        def __radd__(self, o):
            return V(self.t + o + 100)

        def __neg__(self):
            return V(-self.t)

        def __len__(self):
            return 4

    v = V(x)
    w = 1 + (-v + v + 2)
    return w.t, len(v)


def c_f5_exception_types_and_messages(x):
    out = []
    for thunk in (lambda: int("z"), lambda: [][1], lambda: {}["k"], lambda: 1 / 0):
        try:
            thunk()
        except (ValueError, IndexError) as e:
            out.append(type(e).__name__)
        except LookupError as e:
            out.append("lookup:" + str(e))
        except ArithmeticError:
            out.append("arith")
    return x + len(out), out


# -- attributes of functions, methods and other callables ---------------------------------------------------
def _f5_helper(t, k=2):
    return t * k


def _f5_make_adder():
    amount = 4

    def add(t):
        return t + amount

    return add


_F5_ADDER = _f5_make_adder()


def c_f5_hasattr_function_class_names(x):
    names = ("__closure__", "__globals__", "__call__", "__get__", "__missing_name__")
    return x + 1, [hasattr(_f5_helper, n) for n in names]


def c_f5_function_closure_read_in_try(x):
    try:
        cells = _F5_ADDER.__closure__
        r = cells[0].cell_contents
    except AttributeError:
        r = -1
    return x + r, _f5_helper.__closure__ is None


def c_f5_bound_method_self_and_func(x):
    class A:
        def m(self, t):
            return t + 1

    a = A()
    bm = a.m
    return bm(x), bm.__self__ is a, bm.__func__ is A.m, bm.__name__, hasattr(bm, "__func__")


def c_f5_builtin_method_attributes(x):
    append = [].append
    return x + 1, append.__name__, hasattr(append, "__self__"), type(len).__name__, len.__name__


def c_f5_code_object_fields(x):
    code = _f5_helper.__code__
    return x * code.co_argcount + len(code.co_varnames), code.co_name, _f5_helper.__defaults__


def c_f5_class_attribute_existence(x):
    class K:
        a = 1

        def m(self):
            return 2

    k = K()
    flags = [hasattr(K, "a"), hasattr(K, "m"), hasattr(k, "__dict__"), hasattr(K, "__mro__"), hasattr(k, "zzz"),
             hasattr(K, "__init_subclass__"), hasattr(k, "__class__")]
    return x + sum(flags), flags


def c_f5_module_attribute_existence(x):
    flags = [hasattr(math, "pi"), hasattr(math, "nope"), hasattr(torch, "sin"), hasattr(torch.nn, "Linear"),
             hasattr(operator, "__name__"), hasattr(functools, "__file__")]
    return x + sum(flags), flags


def c_f5_getattr_default_on_functions(x):
    wrapped = getattr(_f5_helper, "__wrapped__", None)
    name = getattr(_f5_helper, "__name__", "?")
    closure = getattr(_F5_ADDER, "__closure__", ())
    return x + len(name) + (wrapped is None) + len(closure)


def c_f5_partial_attributes_existence(x):
    p = functools.partial(_f5_helper, k=3)
    return p(x), hasattr(p, "func"), hasattr(p, "__call__"), p.func is _f5_helper, hasattr(p, "nothing")


def c_f5_lambda_attributes(x):
    f = lambda t: t * 2  # noqa: E731
    return f(x), f.__name__, f.__qualname__.endswith("<lambda>"), f.__defaults__, hasattr(f, "__closure__")


def c_f5_tensor_attribute_existence(x):
    flags = [hasattr(x, "shape"), hasattr(x, "grad"), hasattr(x, "nope"), hasattr(x, "__array__"),
             hasattr(x, "_base"), hasattr(x.shape, "numel"), hasattr(x.dtype, "itemsize")]
    return x + sum(flags), flags


def c_f5_nested_function_attribute_existence(x):
    def inner(t, k=1):
        return t * k

    flags = [hasattr(inner, "__closure__"), hasattr(inner, "__call__"), hasattr(inner, "__globals__"),
             hasattr(inner, "zzz"), callable(inner)]
    return inner(x), flags


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
