"""test_class's idea: a class whose every special method logs its call (made with ``type(name, bases, ns)``
over functions wrapped by a tracking decorator), driven by operators, subscripts with slices and Ellipsis,
unary operators and conversions, comparisons both ways, attribute hooks, special methods that return the wrong
type, and the names ``object`` predefines; for ``capture_count.py --only descr14``. Written afresh over one
tensor; each program clears the log first.
"""

from __future__ import annotations

_CALLS = []


def _tracked(f):
    def track(*args, **kwargs):
        _CALLS.append((f.__name__, args[1:]))
        return f(*args, **kwargs)
    return track


def _returns_none(self, *args):
    return None


def _make_logged():
    ns = {}
    for name in ("add", "radd", "sub", "rsub", "mul", "rmul", "matmul", "rmatmul", "truediv", "rtruediv",
                 "floordiv", "rfloordiv", "mod", "rmod", "divmod", "rdivmod", "pow", "rpow", "rshift", "rrshift",
                 "lshift", "rlshift", "and", "rand", "or", "ror", "xor", "rxor", "contains", "getitem", "setitem",
                 "delitem", "neg", "pos", "abs", "init"):
        ns[f"__{name}__"] = _tracked(_returns_none)
    fixed = {"__hash__": 7, "__str__": "Logged", "__repr__": "Logged", "__int__": 1, "__index__": 1,
             "__float__": 1.0, "__eq__": True, "__ne__": False, "__lt__": False, "__le__": True, "__gt__": False,
             "__ge__": True}
    for name, answer in fixed.items():
        def answering(self, *args, _answer=answer):
            return _answer
        answering.__name__ = name
        ns[name] = _tracked(answering)
    return type("Logged", (object,), ns)


_Logged = _make_logged()


class _Hooked(_Logged):
    @_tracked
    def __getattr__(self, *args):
        return "SomeVal"

    @_tracked
    def __setattr__(self, *args):
        pass

    @_tracked
    def __delattr__(self, *args):
        pass


class _BadType:
    def __int__(self):
        return None

    __float__ = __complex__ = __str__ = __repr__ = __bytes__ = __bool__ = __index__ = __int__


class _Empty:
    pass


def c_descr14c_logged_binary_operators(x):
    _CALLS.clear()
    t = _Logged()
    _ = t + 1, 1 + t, t - 1, 1 - t, t * 1, 1 * t, t @ 1, 1 @ t, t / 1, 1 / t, t // 1, 1 // t
    _ = t % 1, 1 % t, divmod(t, 1), divmod(1, t), t ** 1, 1 ** t, t >> 1, 1 >> t, t << 1, 1 << t
    _ = t & 1, 1 & t, t | 1, 1 | t, t ^ 1, 1 ^ t
    return x + len(_CALLS), [name for name, _ in _CALLS]


def c_descr14c_logged_subscripts_with_slices(x):
    _CALLS.clear()
    t = _Logged()
    _ = 1 in t
    t[1]
    t[1] = 1
    del t[1]
    t[:42]
    t[:42] = "The Answer"
    del t[:42]
    t[2:1024:10]
    t[:42, ..., :24:, 24, 100]
    t[:42, ..., :24:, 24, 100] = "Strange"
    return x + len(_CALLS), list(_CALLS)


def c_descr14c_contains_without_protocol_raises(x):
    try:
        _ = 1 in _Empty()
        raised = False
    except TypeError:
        raised = True
    return x + 1, raised


def c_descr14c_logged_unary_and_conversions(x):
    _CALLS.clear()
    t = _Logged()
    _ = -t, +t, abs(t)
    out = (int(t), float(t), oct(t), hex(t))
    return x * out[0], out, [name for name, _ in _CALLS]


def c_descr14c_logged_misc_and_reflected_comparisons(x):
    _CALLS.clear()
    t = _Logged()
    out = (hash(t), repr(t), str(t), t == 1, t < 1, t > 1, t != 1, 1 == t, 1 < t, 1 > t, 1 != t)
    return x + 1, out, list(_CALLS)


def c_descr14c_logged_attribute_hooks(x):
    _CALLS.clear()
    t = _Hooked()
    got = t.spam
    t.eggs = "spam, spam, spam and ham"
    del t.cardinal
    return x + 1, got, list(_CALLS)


def c_descr14c_wrong_type_returned_raises(x):
    raised = []
    for f in (float, complex, str, repr, bytes, bin, oct, hex, bool, lambda v: [][v]):
        try:
            f(_BadType())
            raised.append(False)
        except TypeError:
            raised.append(True)
    return x + 1, raised


def c_descr14c_predefined_object_attributes(x):
    o, c = object(), _Empty()
    present = all(callable(getattr(v, name, None)) for name in ("__class__", "__eq__", "__hash__", "__init__", "__ne__",
                                                                "__repr__", "__str__", "__setattr__", "__new__")
                  for v in (object, o, _Empty, c))
    absent = [name for name in ("__abs__", "__bool__", "__len__", "__iter__", "__getitem__", "__add__", "__iadd__",
                                "__radd__", "__enter__", "__get__")
              if hasattr(object, name) or hasattr(o, name) or hasattr(_Empty, name) or hasattr(c, name)]
    return x + 1, present, absent


def _booh(self):
    raise AttributeError("booh")


class _BoohProp:
    a = property(_booh)


class _BoohInit:
    __init__ = property(_booh)


class _EqHashRaises:
    def __init__(self, x):
        self.x = x

    def f(self):
        pass

    def g(self):
        pass

    def __eq__(self, other):
        return True

    def __hash__(self):
        raise TypeError


class _EqHashSub(_EqHashRaises):
    pass


class _Target:
    pass


class _SlotB:
    y = 0
    __slots__ = ("z",)


class _SlotC:
    __slots__ = ("y",)

    def __setattr__(self, name, value):
        if name == "z":
            super().__setattr__("y", 1)
        else:
            super().__setattr__(name, value)


class _NewInit:
    def __new__(cls, *args, **kwargs):
        super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class _OnlyInit:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


_META_CALLS = [0]


class _CountingMeta(type):
    def __call__(cls, *args, **kwargs):
        _META_CALLS[0] += 1
        return type.__call__(cls, *args, **kwargs)


class _Counted(metaclass=_CountingMeta):
    def __init__(self, obj):
        self._obj = obj


class _NeedsArg:
    def __init__(self, arg):
        pass


def _error_text(call):
    try:
        call()
    except (AttributeError, TypeError) as e:
        return type(e).__name__, str(e)
    return None


def c_descr14c_property_attribute_error_not_masked(x):
    return x + 1, _error_text(lambda: _BoohProp().a), _error_text(_BoohInit)


def c_descr14c_method_comparison_and_hash(x):
    a1, a2 = _EqHashRaises(1), _EqHashRaises(1)
    out = (a1.f == a1.f, a1.f != a1.f, a1.f == a2.f, a1.f != a2.f, a1.f == a1.g, hash(a1.f) == hash(a1.f),
           _EqHashRaises.f == a1.f, _EqHashRaises.f == _EqHashRaises.g, _EqHashSub.f == _EqHashRaises.f,
           hash(_EqHashSub.f) == hash(_EqHashRaises.f))
    return x + 1, out, _error_text(lambda: a1.f < a1.f)


def c_descr14c_type_setattr_and_delattr_special(x):
    def add(self, other):
        return "summa"

    name = str(b"__add__", "ascii")
    type.__setattr__(_Target, name, add)
    try:
        got = _Target() + 1
    finally:
        type.__delattr__(_Target, str(b"__add__", "ascii"))
    return x + 1, got, _error_text(lambda: _Target() + 1)


def c_descr14c_type_setattr_non_string_name(x):
    return x + 1, _error_text(lambda: type.__setattr__(_Target, b"x", None))


def c_descr14c_attribute_error_messages(x):
    def delete_type_attr():
        del _Target.x

    def delete_attr(obj, name):
        delattr(obj, name)

    return (x + 1, _error_text(lambda: _Target.x), _error_text(delete_type_attr), _error_text(lambda: _Target().x),
            _error_text(lambda: delete_attr(_Target(), "x")), _error_text(lambda: _SlotB().x),
            _error_text(lambda: setattr(_SlotB(), "x", 0)), _error_text(lambda: setattr(_SlotC(), "x", 0)),
            _error_text(lambda: delete_attr(_SlotB(), "y")), _error_text(lambda: setattr(_SlotB(), "y", 0)),
            _error_text(lambda: _SlotB().z), _error_text(lambda: delete_attr(_SlotB(), "z")))


def c_descr14c_constructor_error_messages(x):
    return (x + 1, _error_text(lambda: _Target(42)), _error_text(lambda: _Target.__new__(_Target, 42)),
            _error_text(lambda: _Target().__init__(42)), _error_text(lambda: object.__new__(_Target, 42)),
            _error_text(lambda: object.__init__(_Target(), 42)), _error_text(lambda: _NewInit(42)),
            _error_text(lambda: object.__new__(_NewInit, 42)), _error_text(lambda: _OnlyInit().__init__(42)),
            _error_text(lambda: object.__init__(_OnlyInit(), 42)))


def c_descr14c_metaclass_call_counted(x):
    before = _META_CALLS[0]
    made = [_Counted(i) for i in range(5)]
    return x + made[-1]._obj, _META_CALLS[0] - before


def c_descr14c_missing_argument_in_loop(x):
    failures = 0
    for _ in range(4):
        try:
            _NeedsArg()
        except TypeError:
            failures += 1
    return x + failures


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
