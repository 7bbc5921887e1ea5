"""Further test_descr / test_class / test_numeric_tower ideas (super() in class methods, unbound builtin methods,
``object.__getattribute__``, class dicts, the numbers ABCs, hashes of methods), for ``capture_count.py --only
descr14``. Each program is written afresh over one tensor; the classes come from outside the compiled frame.
"""

from __future__ import annotations

import fractions
import math
import numbers


class _Maker:
    made = 0

    @classmethod
    def make(cls, v):
        return cls.__name__, v

    def method(self, t):
        return t + 1


class _SubMaker(_Maker):
    @classmethod
    def make(cls, v):
        name, got = super().make(v * 2)
        return name + "!", got


class _Regs(dict):
    pass


class _Described:
    def _get(self):
        """the doc of the getter"""
        return 5

    value = property(_get)


class _Counter:
    def __init__(self):
        self.hits = 0

    def __getattribute__(self, name):
        if name != "hits":
            object.__setattr__(self, "hits", object.__getattribute__(self, "hits") + 1)
        return object.__getattribute__(self, name)

    def scale(self, t):
        return t * 2


class _Fallback:
    def __getattr__(self, name):
        if name.startswith("ok_"):
            return name[3:]
        raise AttributeError(name)


class _Power:
    def __init__(self, v):
        self.v = v

    def __ipow__(self, k):
        self.v = self.v ** k
        return self


class _Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class _CallableCls:
    def __call__(self, *args, **kw):
        return len(args), sorted(kw)


class _Iter:
    def __init__(self, n):
        self.i, self.n = 0, n

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i


def c_descr14e_super_in_classmethod(x):
    name, v = _SubMaker.make(3)
    return x + v, name, _Maker.make(1)


def c_descr14e_classmethod_fromkeys_on_dict_subclass(x):
    d = _Regs.fromkeys("ab", 1)
    return x + len(d), type(d).__name__, d


def c_descr14e_unbound_builtin_methods(x):
    items = [1]
    list.append(items, 2)
    return x + int.__add__(1, 2), items, str.upper("ab"), dict.get({"a": 1}, "a"), float.__mul__(1.5, 2.0)


def c_descr14e_object_getattribute_direct(x):
    m = _Maker()
    m.k = 3
    return x * object.__getattribute__(m, "k"), object.__getattribute__(m, "method")(x)


def c_descr14e_class_dict_entries(x):
    d = vars(_Maker)
    return x + 1, "make" in d, type(d["make"]).__name__, "method" in _Maker.__dict__, "k" in d


def c_descr14e_property_takes_getter_doc(x):
    return x + _Described().value, _Described.value.__doc__


def c_descr14e_getattribute_counts_reads(x):
    c = _Counter()
    out = c.scale(x)
    _ = c.scale
    return out, c.hits


def c_descr14e_getattr_default_through_hook(x):
    f = _Fallback()
    return x + 1, getattr(f, "ok_yes", "no"), getattr(f, "bad", "default"), hasattr(f, "bad"), f.ok_z


def c_descr14e_ipow_inplace(x):
    p = _Power(x + 1)
    q = p
    q **= 2
    return p.v, p is q


def c_descr14e_len_decides_bool(x):
    empty, full = _Sized(0), _Sized(2)
    return x + 1, bool(empty), bool(full), not empty, "yes" if full else "no"


def c_descr14e_call_with_star_args(x):
    c = _CallableCls()
    args = (x, x)
    kw = {"b": 1, "a": 2}
    n, keys = c(*args, **kw)
    return x * n, keys, callable(c), callable(_Maker())


def c_descr14e_user_iterator_protocol(x):
    total = x
    for v in _Iter(3):
        total = total + v
    return total, list(_Iter(2)), sum(_Iter(4))


def c_descr14e_method_hash_and_equality(x):
    a, b = _Maker(), _Maker()
    return x + 1, a.method == a.method, a.method == b.method, hash(a.method) == hash(a.method)


def c_descr14e_numbers_abc_isinstance(x):
    return (x + 1, isinstance(1, numbers.Integral), isinstance(1.5, numbers.Real), isinstance(1.5, numbers.Rational),
            isinstance(fractions.Fraction(1, 2), numbers.Rational), isinstance(1j, numbers.Complex),
            issubclass(bool, numbers.Integral), isinstance(x, numbers.Number))


def c_descr14e_fraction_rounding(x):
    f = fractions.Fraction(7, 2)
    return x + math.floor(f), math.ceil(f), round(f), round(fractions.Fraction(5, 2)), int(f), math.trunc(-f)


def c_descr14e_float_integer_ratio_and_hash(x):
    r = (0.75).as_integer_ratio()
    return x * r[0] / r[1], fractions.Fraction(*r) == 0.75, hash(fractions.Fraction(*r)) == hash(0.75)


def c_descr14e_type_getattribute_on_class(x):
    return x + 1, type.__getattribute__(_Maker, "made"), type(_Maker).__name__, _Maker.__class__ is type


def c_descr14e_staticmethod_via_instance_and_class(x):
    class Tools:
        @staticmethod
        def twice(t):
            return t * 2

    return Tools.twice(x), Tools().twice(x + 1)


def c_descr14e_bound_classmethod_attributes(x):
    m = _SubMaker.make
    return x + 1, m.__self__ is _SubMaker, m.__func__ is _SubMaker.__dict__["make"].__func__, m.__name__




def _find_owner(t, meth):
    while meth not in t.__dict__:
        t = t.__bases__[0]
    return t


class _IntNoAdd(int):
    def __add__(self, other):
        return NotImplemented


class _BoolSub(int):
    pass


def c_descr14e_int_operator_methods_by_name(x):
    a, b = 100, 3
    out = []
    for name in ("__add__", "__sub__", "__mul__", "__floordiv__", "__mod__", "__pow__", "__lshift__", "__and__",
                 "__xor__", "__or__", "__lt__", "__eq__"):
        m = getattr(int, name)
        out.append((m(a, b), getattr(a, name)(b), m is int.__dict__[name]))
    return x + len(out), out


def c_descr14e_float_unary_methods_by_name(x):
    a = 100.0
    out = [getattr(float, name)(a) for name in ("__pos__", "__neg__", "__abs__", "__int__", "__float__")]
    return x + out[3], out, (1).__bool__(), (0).__bool__()


def c_descr14e_list_operator_methods_by_name(x):
    a = [1, 2, 3]
    b = [1]
    list.__iadd__(b, [2])
    c = [1, 2]
    c.__imul__(2)
    d = [1, 2, 3, 4]
    list.__setitem__(d, slice(1, 3), [5, 6])
    return (x + len(d), list.__add__([1], [2]), a.__contains__(2), list.__getitem__(a, slice(0, 2)), b, c, d,
            [1, 2].__rmul__(2), a.__len__())


def c_descr14e_dict_iteration_methods_by_name(x):
    d = {1: 2, 3: 4}
    via_iter = list(dict.__iter__(d))
    via_bound = [k for k in d.__iter__()]
    return x + len(via_iter), via_iter == via_bound, dict.__contains__(d, 1), d.__len__(), d.__repr__()


def c_descr14e_explicit_reverse_methods(x):
    return x + float.__rsub__(3.0, 1), complex.__radd__(3j, 4.0), int.__rtruediv__(2, 1), float.__rpow__(2.0, 3)


def c_descr14e_method_owner_walk(x):
    owner = _find_owner(_BoolSub, "__add__")
    return x + 1, owner.__name__, _find_owner(bool, "__and__").__name__, _find_owner(bool, "__add__").__name__


def c_descr14e_int_subclass_add_not_implemented(x):
    c = _IntNoAdd(5)
    try:
        _IntNoAdd() + ""
        raised = False
    except TypeError:
        raised = True
    return x + c, c == 5, raised


def c_descr14e_range_len_method(x):
    return x + range(10).__len__(), range(2, 20, 3).__len__(), len(range(0))


def c_descr14e_numeric_tower_big_and_special_hashes(x):
    import sys

    big = 2 ** 100
    return (x + 1, hash(big) == hash(float(big)), hash(fractions.Fraction(big, 1)) == hash(big),
            hash(-1) == -2, hash(fractions.Fraction(-1)) == -2, hash(-0.0) == 0, hash(math.inf) == sys.hash_info.inf,
            hash(2.0 ** -10) == hash(fractions.Fraction(1, 2 ** 10)), hash(complex(1.5, 0)) == hash(1.5))


def c_descr14e_complex_orderings_refused(x):
    refused = []
    for a, b in ((1j, 1), (1, 1j), (fractions.Fraction(1, 2), 1j)):
        try:
            _ = a < b
            refused.append(False)
        except TypeError:
            refused.append(True)
    return x + 1, refused, 1j == complex(0, 1), fractions.Fraction(1, 2) == complex(0.5, 0)


def c_descr14e_fraction_float_mixed_arithmetic(x):
    f = fractions.Fraction(1, 3)
    return (x * float(f + 1), f + 0.5, type(f + 0.5).__name__, f * 3 == 1, type(f * 3).__name__, f ** 2,
            -f, abs(-f), f // fractions.Fraction(1, 7), f % fractions.Fraction(1, 7))


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
