"""Class protocols modelled on PyTorch's copy of CPython's test/dynamo/cpython/3_13/test_class.py (with a little
of test_binop.py and test_userdict.py), for ``capture_count.py --only dynamo_tests_cpyclass7``: the dunders a class
can define, from attribute hooks (``__getattr__``/``__getattribute__``/``__setattr__``/``__delattr__``) through
containment fallbacks, truth rules, reflected comparisons, ``__hash__ = None``, class-creation hooks, descriptors,
``__index__``/``__format__``, ``__missing__`` and the iteration dunders. The classes live at module level and
carry tensors; each program is written afresh over one tensor. Its second part is ``_more``.
"""

from __future__ import annotations


# -- attribute hooks -----------------------------------------------------------------------------------------
class _Fallback:
    def __init__(self, t):
        self.t = t

    def __getattr__(self, name):
        if name.startswith("scaled_"):
            return self.t * int(name[len("scaled_"):])
        raise AttributeError(name)


def c_cp7_getattr_computed_name(x):
    f = _Fallback(x)
    return f.scaled_3 + f.scaled_2


def c_cp7_getattr_not_called_for_real_attr(x):
    f = _Fallback(x)
    return f.t + 1, hasattr(f, "missing"), hasattr(f, "scaled_4")


class _Tracing:
    def __init__(self, t):
        object.__setattr__(self, "log", [])
        object.__setattr__(self, "t", t)

    def __getattribute__(self, name):
        object.__getattribute__(self, "log").append(name)
        return object.__getattribute__(self, name)


def c_cp7_getattribute_logs_reads(x):
    o = _Tracing(x)
    y = o.t * 2
    return y, list(object.__getattribute__(o, "log"))


class _GetattributeRaises:
    def __init__(self, t):
        self.t = t

    def __getattribute__(self, name):
        if name == "hidden":
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return self.t - 1


def c_cp7_getattribute_raises_then_getattr(x):
    o = _GetattributeRaises(x)
    return o.hidden, o.t


class _Recorder:
    def __init__(self, t):
        self.__dict__["writes"] = []
        self.__dict__["t"] = t

    def __setattr__(self, name, value):
        self.__dict__["writes"].append(name)
        self.__dict__[name] = value * 2

    def __delattr__(self, name):
        self.__dict__["writes"].append("-" + name)
        del self.__dict__[name]


def c_cp7_setattr_transforms_value(x):
    r = _Recorder(x)
    r.a = x
    r.b = x + 1
    return r.a + r.b, list(r.writes)


def c_cp7_delattr_hook_then_getattr_missing(x):
    r = _Recorder(x)
    r.a = x
    del r.a
    return x * 3, hasattr(r, "a"), list(r.writes)


class _Frozen:
    def __init__(self, t):
        object.__setattr__(self, "t", t)

    def __setattr__(self, name, value):
        raise AttributeError("frozen " + name)


def c_cp7_setattr_refuses(x):
    f = _Frozen(x)
    try:
        f.t = x + 10
        msg = "ok"
    except AttributeError as e:
        msg = str(e)
    return f.t * 2, msg


# -- __call__ ------------------------------------------------------------------------------------------------
class _Affine:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __call__(self, t, *, twice=False):
        y = t * self.a + self.b
        return y * 2 if twice else y


def c_cp7_call_with_kwonly(x):
    f = _Affine(2.0, 1.0)
    return f(x) + f(x, twice=True)


# -- containment fallbacks -----------------------------------------------------------------------------------
class _IterOnly:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


class _GetitemOnly:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i


def c_cp7_contains_falls_back_to_iter(x):
    c = _IterOnly([1, 2, 5])
    return x + (5 in c), 7 in c


def c_cp7_contains_falls_back_to_getitem(x):
    c = _GetitemOnly(4)
    return x * (9 in c), 10 in c, list(c)


class _ContainsNonBool:
    def __contains__(self, item):
        return item * 2  # truthiness decides


def c_cp7_contains_result_coerced_to_bool(x):
    c = _ContainsNonBool()
    return x + (3 in c), 0 in c, 0 not in c


# -- truth rules ---------------------------------------------------------------------------------------------
class _LenOnly:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class _BoolAndLen:
    def __bool__(self):
        return False

    def __len__(self):
        return 5


def c_cp7_len_decides_truth(x):
    a, b = _LenOnly(0), _LenOnly(2)
    return x * (2 if a else 3) + (1 if b else 0), not a


def c_cp7_bool_wins_over_len(x):
    o = _BoolAndLen()
    return x + (1 if o else -1), len(o)


class _BadBool:
    def __bool__(self):
        return 1


def c_cp7_bool_returning_int_raises(x):
    try:
        bool(_BadBool())
        r = 0
    except TypeError:
        r = 1
    return x + r


class _NegLen:
    def __len__(self):
        return -1


def c_cp7_negative_len_raises(x):
    try:
        len(_NegLen())
        r = 0
    except ValueError:
        r = 2
    return x * r


# -- rich comparisons ----------------------------------------------------------------------------------------
class _Weight:
    def __init__(self, t):
        self.t = t

    def __lt__(self, other):
        if isinstance(other, _Weight):
            return bool((self.t.sum() < other.t.sum()).item())
        return NotImplemented

    def __eq__(self, other):
        if isinstance(other, _Weight):
            return self.t.shape == other.t.shape
        return NotImplemented

    __hash__ = None


def c_cp7_gt_reflects_to_lt(x):
    a, b = _Weight(x), _Weight(x + 1)
    return x + (b > a), a > b


def c_cp7_eq_notimplemented_falls_to_identity(x):
    a = _Weight(x)
    return x * 2, a == 3, a != 3, a == a


def c_cp7_lt_unsupported_raises(x):
    try:
        _ = _Weight(x) < 3
        r = 0
    except TypeError:
        r = 1
    return x + r


def c_cp7_hash_none_unhashable(x):
    a = _Weight(x)
    try:
        hash(a)
        r = 0
    except TypeError:
        r = 1
    return x + r, _Weight.__hash__ is None


class _Base:
    def __init__(self, t):
        self.t = t

    def __eq__(self, other):
        return "base"


class _Derived(_Base):
    def __eq__(self, other):
        return "derived"


def c_cp7_subclass_reflected_eq_first(x):
    b, d = _Base(x), _Derived(x)
    return x + 1, b == d, d == b


class _Lazy:
    def __init__(self, t):
        self.t = t

    def __ge__(self, other):
        return self.t >= other

    def __le__(self, other):
        return self.t <= other


def c_cp7_comparison_returns_tensor(x):
    o = _Lazy(x)
    return (o >= 1).float() + (1 >= o).float()


def c_cp7_sorted_by_reflected(x):
    ws = [_Weight(x + 3), _Weight(x), _Weight(x + 1)]
    ws.sort()
    return ws[0].t + ws[-1].t


# -- class-creation hooks ------------------------------------------------------------------------------------
class _Registered:
    registry = []

    def __init_subclass__(cls, scale=1, **kw):
        super().__init_subclass__(**kw)
        cls.scale = scale
        _Registered.registry.append(cls.__name__)


class _Tripled(_Registered, scale=3):
    pass


def c_cp7_init_subclass_module_level(x):
    return x * _Tripled.scale, list(_Registered.registry)


def c_cp7_init_subclass_in_frame(x):
    class Local(_Registered, scale=5):
        pass

    r = x * Local.scale
    _Registered.registry.remove("Local")
    return r


class _Generic:
    def __class_getitem__(cls, item):
        return (cls.__name__, item)


def c_cp7_class_getitem(x):
    name, item = _Generic[int]
    return x + len(name), item is int


class _Named:
    def __set_name__(self, owner, name):
        self.name = name
        self.owner = owner.__name__

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__["_" + self.name]


class _HasNamed:
    weight = _Named()

    def __init__(self, t):
        self._weight = t


def c_cp7_set_name_descriptor(x):
    h = _HasNamed(x)
    return h.weight * 2, _HasNamed.weight.name, _HasNamed.weight.owner


# -- more protocol edges -------------------------------------------------------------------------------------
class _Key:
    def __init__(self, k, t):
        self.k = k
        self.t = t

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, _Key) and self.k == other.k


def c_cp7_user_hash_as_dict_key(x):
    d = {_Key(1, x): "a", _Key(2, x): "b"}
    probe = _Key(1, x * 5)
    return x + len(d), d[probe], probe in d, _Key(3, x) in d


def c_cp7_list_methods_use_user_eq(x):
    items = [_Key(1, x), _Key(2, x), _Key(1, x + 1)]
    n = items.count(_Key(1, x))
    i = items.index(_Key(2, x))
    items.remove(_Key(1, x))
    return items[0].t + n + i, len(items)


class _Divider:
    def __init__(self, v):
        self.v = v

    def __divmod__(self, other):
        return (self.v // other, self.v % other)

    def __rdivmod__(self, other):
        return (other // self.v, other % self.v)

    def __rpow__(self, other):
        return other ** self.v

    def __round__(self, ndigits=None):
        return round(self.v / 10, ndigits)


def c_cp7_divmod_rpow_round(x):
    d = _Divider(7)
    q, r = divmod(d, 3)
    q2, r2 = divmod(20, d)
    return x * q + r + q2 + r2, 2 ** d, round(d), round(d, 1)


class _NotIterable:
    __iter__ = None

    def __getitem__(self, i):
        return i


def c_cp7_iter_none_blocks_iteration(x):
    try:
        iter(_NotIterable())
        r = 0
    except TypeError:
        r = 1
    return x + r


class _NoContains(_IterOnly):
    __contains__ = None


def c_cp7_contains_none_raises(x):
    try:
        _ = 1 in _NoContains([1])
        r = 0
    except TypeError:
        r = 1
    return x + r


def c_cp7_len_truth_in_builtins(x):
    bag = [_LenOnly(0), _LenOnly(2), _LenOnly(0), _LenOnly(5)]
    kept = list(filter(None, bag))
    return x + len(kept), any(bag), all(bag), [b.n for b in kept]


class _Numeric:
    def __init__(self, t):
        self.t = t

    def __int__(self):
        return 4

    def __float__(self):
        return 2.5

    def __complex__(self):
        return 1 + 2j


def c_cp7_numeric_conversions(x):
    n = _Numeric(x)
    return x * int(n) + float(n), complex(n)


class _MinMax:
    def __init__(self, v, t):
        self.v = v
        self.t = t

    def __lt__(self, other):
        return self.v < other.v


def c_cp7_min_max_by_lt_only(x):
    items = [_MinMax(3, x), _MinMax(1, x * 2), _MinMax(2, x * 3)]
    return max(items).t + min(items).t, sorted(items, reverse=True)[0].v


class _Callable:
    __call__ = staticmethod(lambda t: t * 3)


def c_cp7_call_is_staticmethod(x):
    return _Callable()(x) + callable(_Callable())


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
