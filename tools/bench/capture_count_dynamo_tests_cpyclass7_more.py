"""Second part of ``dynamo_tests_cpyclass7`` (after test_class.py, test_binop.py and test_userdict.py):
descriptors with ``__get__``/``__set__``/``__delete__``, ``__slots__`` with defaults through descriptors,
``__index__``, ``__format__``, ``__missing__`` on dict subclasses, iterators that return themselves,
``__reversed__`` and ``__length_hint__``, binary operators with reflection, and a list subclass's own
dunders. Each is written afresh over one tensor with module-level classes.
"""

from __future__ import annotations

import operator


# -- descriptors ---------------------------------------------------------------------------------------------
class _Clamped:
    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.slot, 0.0)

    def __set__(self, obj, value):
        setattr(obj, self.slot, min(max(value, -1.0), 1.0))

    def __delete__(self, obj):
        delattr(obj, self.slot)


class _Knob:
    level = _Clamped()


def c_cp7m_data_descriptor_set_get(x):
    k = _Knob()
    k.level = 5.0
    return x * k.level, k.__dict__


def c_cp7m_data_descriptor_delete(x):
    k = _Knob()
    k.level = -0.5
    del k.level
    return x + k.level, "_level" in k.__dict__


def c_cp7m_data_descriptor_beats_instance_dict(x):
    k = _Knob()
    k.__dict__["level"] = 9.0
    k.level = 0.25
    return x * k.level, k.__dict__["level"]


class _ReadOnly:
    def __get__(self, obj, objtype=None):
        return 7 if obj is None else 3

    def __set__(self, obj, value):
        raise AttributeError("read only")


class _HasReadOnly:
    v = _ReadOnly()


def c_cp7m_set_raising_descriptor(x):
    h = _HasReadOnly()
    try:
        h.v = 4
        r = 0
    except AttributeError:
        r = 1
    return x + h.v + _HasReadOnly.v + r


class _NonData:
    def __get__(self, obj, objtype=None):
        return "class-level" if obj is None else "descr"


class _HasNonData:
    v = _NonData()


def c_cp7m_nondata_descriptor_shadowed_after_store(x):
    h = _HasNonData()
    before = h.v
    h.v = x * 2
    return h.v + 1, before, _HasNonData.v


# -- __slots__ -----------------------------------------------------------------------------------------------
class _Slotted:
    __slots__ = ("a", "b")

    def __init__(self, t):
        self.a = t


def c_cp7m_slots_unset_then_set(x):
    s = _Slotted(x)
    missing = not hasattr(s, "b")
    s.b = x + 1
    return s.a + s.b, missing


def c_cp7m_slots_reject_new_attr(x):
    s = _Slotted(x)
    try:
        s.c = 1
        r = 0
    except AttributeError:
        r = 1
    return x + r


class _SlotWithDefault:
    __slots__ = ("_v",)
    v = property(lambda self: getattr(self, "_v", None) or 2.0)

    def set(self, val):
        self._v = val
        return self


def c_cp7m_slots_default_via_property(x):
    a = _SlotWithDefault()
    b = _SlotWithDefault().set(5.0)
    return x * a.v + b.v


# -- __index__ / __format__ ----------------------------------------------------------------------------------
class _Idx:
    def __init__(self, i):
        self.i = i

    def __index__(self):
        return self.i


def c_cp7m_index_for_subscript_and_range(x):
    i = _Idx(1)
    return x[i] + sum(range(_Idx(4))), [10, 20, 30][_Idx(2)]


def c_cp7m_index_in_operator_index_and_bin(x):
    return x * operator.index(_Idx(3)), bin(_Idx(5)), hex(_Idx(255))


def c_cp7m_index_in_slice(x):
    return x[_Idx(0):_Idx(2)] * 2


class _Fmt:
    def __init__(self, t):
        self.t = t

    def __format__(self, spec):
        return "T<" + spec + ">" if spec else "T"


def c_cp7m_format_dunder(x):
    f = _Fmt(x)
    return x + 1, f"{f}|{f:>5}", format(f, "abc")


# -- __missing__ ---------------------------------------------------------------------------------------------
class _Counting(dict):
    def __missing__(self, key):
        self[key] = len(key)
        return self[key]


def c_cp7m_missing_inserts(x):
    d = _Counting()
    v = d["abc"] + d["ab"]
    return x + v, dict(d), d.get("zz", -1)


class _TensorDefault(dict):
    def __init__(self, t):
        super().__init__()
        self.t = t

    def __missing__(self, key):
        return self.t * key


def c_cp7m_missing_uses_tensor_attribute(x):
    d = _TensorDefault(x)
    d[1] = x + 100
    return d[1] + d[3], 3 in d


class _MissingRaises(dict):
    def __missing__(self, key):
        raise LookupError("no " + str(key))


def c_cp7m_missing_raises_custom(x):
    d = _MissingRaises(a=1)
    try:
        d["b"]
        r = 0
    except LookupError as e:
        r = len(str(e))
    return x + r + d["a"]


# -- iteration dunders ---------------------------------------------------------------------------------------
class _Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


def c_cp7m_iter_returns_self(x):
    c = _Countdown(3)
    first = next(c)
    rest = list(c)
    return x + first + sum(rest), list(c), iter(c) is c


class _Rev:
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __reversed__(self):
        return iter(["custom", *self.items[::-1]])


def c_cp7m_reversed_dunder(x):
    r = _Rev([1, 2, 3])
    return x * len(r), list(reversed(r))


class _SeqOnly:
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def c_cp7m_reversed_sequence_protocol(x):
    s = _SeqOnly([x, x + 1, x + 2])
    out = list(reversed(s))
    return out[0] - out[2]


class _Hinted:
    def __iter__(self):
        return iter([4, 5])

    def __length_hint__(self):
        return 2


def c_cp7m_length_hint(x):
    h = _Hinted()
    return x + operator.length_hint(h), operator.length_hint([1, 2, 3]), operator.length_hint(7, 11)


# -- binary operators ----------------------------------------------------------------------------------------
class _Vec:
    def __init__(self, t):
        self.t = t

    def __add__(self, other):
        if isinstance(other, _Vec):
            return _Vec(self.t + other.t)
        if isinstance(other, (int, float)):
            return _Vec(self.t + other)
        return NotImplemented

    __radd__ = __add__

    def __rsub__(self, other):
        return _Vec(other - self.t)

    def __matmul__(self, other):
        return (self.t * other.t).sum()

    def __neg__(self):
        return _Vec(-self.t)

    def __abs__(self):
        return _Vec(self.t.abs())


def c_cp7m_radd_and_sum(x):
    vs = [_Vec(x), _Vec(x * 2)]
    return sum(vs).t, (1 + vs[0]).t


def c_cp7m_matmul_dunder(x):
    return _Vec(x) @ _Vec(x + 1)


def c_cp7m_add_notimplemented_typeerror(x):
    try:
        _Vec(x) + "s"
        r = 0
    except TypeError:
        r = 1
    return x + r


class _Acc:
    def __init__(self, t):
        self.t = t

    def __iadd__(self, other):
        self.t = self.t + other
        return self


def c_cp7m_iadd_mutates_and_returns_self(x):
    a = _Acc(x)
    b = a
    a += 1
    a += x
    return b.t, a is b


# -- container subclasses' own dunders ------------------------------------------------------------------------
class _OwnList(list):
    def __contains__(self, item):
        return 0

    def __eq__(self, other):
        return "own eq"

    def __add__(self, other):
        return "own add"

    def __iter__(self):
        return iter([7, 8])


def c_cp7m_list_subclass_own_operators(x):
    s = _OwnList([1, 2])
    return x + len(s), 1 in s, s == [1, 2], s + [3], [1, 2] == s  # noqa: RUF005 (its own __add__)


def c_cp7m_list_subclass_star_unpack(x):
    s = _OwnList([x, x])
    a, b = s
    return x * a + b, [*s], max(*s)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
