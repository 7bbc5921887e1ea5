"""More of test_descr, with test_class and test_numeric_tower ideas (operators logged by the class, reflected
operators of subclasses, ``__class__`` lies, ``__new__`` returning another type, hashes and comparisons across
int / float / Fraction / Decimal), for ``capture_count.py --only descr14``. Each program is written afresh over
one tensor; the classes come from outside the compiled frame.
"""

from __future__ import annotations

import abc
import copy
import decimal
import fractions
import math

_LOG = []


class _Logged:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        _LOG.append("add")
        return self.v + other

    def __radd__(self, other):
        _LOG.append("radd")
        return other + self.v

    def __sub__(self, other):
        _LOG.append("sub")
        return self.v - other

    def __rsub__(self, other):
        _LOG.append("rsub")
        return other - self.v

    def __neg__(self):
        _LOG.append("neg")
        return -self.v

    def __pos__(self):
        _LOG.append("pos")
        return self.v

    def __abs__(self):
        _LOG.append("abs")
        return abs(self.v)

    def __invert__(self):
        _LOG.append("invert")
        return ~self.v

    def __index__(self):
        _LOG.append("index")
        return 2


class _Items:
    def __init__(self):
        self.log = []

    def __getitem__(self, key):
        self.log.append(("get", key))
        return key

    def __setitem__(self, key, value):
        self.log.append(("set", key))

    def __delitem__(self, key):
        self.log.append(("del", key))


class _Base:
    def __add__(self, other):
        return "base.add"


class _Derived(_Base):
    def __radd__(self, other):
        return "derived.radd"


class _Num(int):
    def __radd__(self, other):
        return "num.radd"


class _Liar:
    @property
    def __class__(self):
        return int


class _OtherType:
    def __new__(cls, v):
        return [v]

    def __init__(self, v):
        raise AssertionError("not called")


class _Shape(abc.ABC):
    @abc.abstractmethod
    def area(self):
        ...


class _Square(_Shape):
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s * self.s


class _Outer:
    class Inner:
        def m(self):
            return 1


class _Stateful:
    def __init__(self, v):
        self.v = v

    def __getstate__(self):
        return {"v": self.v * 10}

    def __setstate__(self, state):
        self.v = state["v"] + 1


class _InPlace:
    def __init__(self, v):
        self.v = v

    def __imul__(self, other):
        self.v = self.v * other
        return self


class _EqOnly:
    def __eq__(self, other):
        return True


class _Keys:
    def keys(self):
        return ["a", "b"]

    def __getitem__(self, key):
        return key * 2


class _DictWithInit(dict):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.state = len(self)

    def total(self):
        return sum(self.values())


def c_descr14x_logged_binary_operators(x):
    _LOG.clear()
    a = _Logged(x)
    out = (a + 1) + (1 + a) + (a - 1) + (1 - a)
    return out, list(_LOG)


def c_descr14x_logged_unary_operators(x):
    _LOG.clear()
    a = _Logged(x)
    out = -a + (+a) + abs(a)
    i = _Logged(5)
    return out, ~i, list(_LOG)


def c_descr14x_index_dunder_in_builtins(x):
    _LOG.clear()
    a = _Logged(0)
    return x * a.__index__(), [10, 20, 30][a], hex(a), bin(a), list(_LOG)


def c_descr14x_getitem_setitem_delitem_with_slices(x):
    it = _Items()
    got = it[1:3]
    it[::2] = x
    del it[0]
    return x + it[1], got, it.log


def c_descr14x_reflected_operator_of_subclass_first(x):
    return x + 1, _Base() + _Derived(), _Derived() + _Base()


def c_descr14x_int_subclass_radd_asked_first(x):
    return x * 2, 1 + _Num(2), _Num(2) + 1


def c_descr14x_class_property_lies_to_isinstance(x):
    o = _Liar()
    return x + 1, isinstance(o, int), type(o) is _Liar, o.__class__ is int


def c_descr14x_new_returning_another_type(x):
    made = _OtherType(x)
    return made[0] + 1, type(made).__name__


def c_descr14x_abstract_class_refuses_instances(x):
    try:
        _Shape()
        refused = False
    except TypeError:
        refused = True
    sq = _Square(3)
    return x * sq.area(), refused, isinstance(sq, _Shape)


def c_descr14x_nested_class_qualname(x):
    return x + _Outer.Inner().m(), _Outer.Inner.__qualname__, _Outer.__qualname__, _Outer.Inner.__name__


def c_descr14x_copy_with_getstate_setstate(x):
    a = _Stateful(3)
    b = copy.copy(a)
    return x + b.v, a.v, type(b).__name__


def c_descr14x_imul_returns_self(x):
    a = _InPlace(x)
    b = a
    b *= 3
    return b.v, a is b


def c_descr14x_eq_only_class_is_unhashable(x):
    try:
        hash(_EqOnly())
        hashable = True
    except TypeError:
        hashable = False
    return x + 1, hashable, _EqOnly.__hash__ is None, _EqOnly() == 5


def c_descr14x_dict_from_keys_protocol(x):
    d = dict(_Keys())
    return x + len(d), d


def c_descr14x_dict_subclass_with_init(x):
    d = _DictWithInit(a=1, b=2)
    d["c"] = 3
    return x * d.total(), d.state, isinstance(d, dict), sorted(d)


def c_descr14x_method_wrapper_of_list(x):
    items = [x, x]
    add = items.__add__
    return add([x])[2] + 1, add.__self__ is items, add.__name__, len(items.__mul__(2))


def c_descr14x_member_descriptor_of_slots(x):
    class Slot:
        __slots__ = ("a",)

    s = Slot()
    Slot.a.__set__(s, x)
    return Slot.a.__get__(s, Slot) + 1, type(Slot.a).__name__, Slot.a.__name__


def c_descr14x_dir_lists_methods(x):
    names = dir(_Square)
    return x + 1, "area" in names, "__init__" in names, names == sorted(names)


def c_descr14x_numeric_tower_hashes_agree(x):
    hs = {hash(2), hash(2.0), hash(fractions.Fraction(2)), hash(decimal.Decimal(2)), hash(complex(2, 0))}
    half = {hash(0.5), hash(fractions.Fraction(1, 2)), hash(decimal.Decimal("0.5"))}
    return x + len(hs), len(half), hash(-1) == hash(-2), hash(math.inf) == hash(float("inf"))


def c_descr14x_numeric_tower_mixed_comparisons(x):
    f = fractions.Fraction(1, 3)
    d = decimal.Decimal("0.25")
    return (x * float(f), f < 0.5, f > d, d == 0.25, 2 == fractions.Fraction(4, 2), decimal.Decimal(1) < f,
            max(f, d, 0.3))


def c_descr14x_fraction_arithmetic_into_tensor(x):
    f = fractions.Fraction(3, 4) + fractions.Fraction(1, 4) * 2
    return x * float(f), f.numerator, f.denominator, str(f)


def c_descr14x_float_int_hash_and_dict_unify(x):
    d = {1: "int"}
    d[1.0] = "float"
    d[True] = "bool"
    return x + len(d), d, hash(3.0) == hash(3)


def c_descr14x_int_float_big_compare(x):
    big = 2 ** 60 + 1
    return x + 1, big == float(big), big > float(2 ** 60), 1e300 < 10 ** 301


def c_descr14x_abstractmethods_attribute(x):
    return x + 1, sorted(_Shape.__abstractmethods__), len(_Square.__abstractmethods__)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
