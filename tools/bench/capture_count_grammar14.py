"""Programs after CPython's test_patma as PyTorch's Dynamo suite runs it (``test/dynamo/cpython/3_13/``), for
``capture_count.py --only grammar14``: structural pattern matching beyond ``capture_count_cpython_lang_more.py``:
mapping patterns on ``dict`` subclasses, ``defaultdict`` and ``Mapping`` classes, sequence patterns on ``deque``,
``range``, ``collections.abc.Sequence`` classes and their refusals (``str``, ``bytes``, iterators), class patterns
with ``__match_args__``, keyword sub-patterns, their errors, or-patterns binding names, guards with side effects,
value patterns on enum members, and the literal corners (``-0``, ``True``/``1``, complex literals).
Grammar, except*, tuples, ranges, slices and enums are in ``capture_count_grammar14_more.py``.
Each mixes the construct with tensor work so that the frame is compiled.
"""

from __future__ import annotations

import collections
import collections.abc
import dataclasses
import enum

# ---- mappings ------------------------------------------------------------------------------------------------


class _DictSub(dict):
    pass


def c_grammar14_match_dict_subclass(x):
    d = _DictSub(a=1, b=2)
    match d:
        case {"a": 1, "b": b}:
            return x + b
    return x


def c_grammar14_match_defaultdict_no_missing(x):
    d = collections.defaultdict(int, {"a": 3})
    match d:
        case {"z": z}:  # a mapping pattern uses get(): no default is inserted
            out = x + z
        case {"a": a}:
            out = x * a
        case _:
            out = x
    return out, sorted(d)


def c_grammar14_match_mapping_rest_copy(x):
    d = {"a": 1, "b": 2, "c": 3}
    match d:
        case {"a": 1, **rest}:
            rest["z"] = 9
            return x + len(rest), sorted(rest.items()), sorted(d)
    return x, [], []


def c_grammar14_match_mapping_empty_matches_any(x):
    hits = []
    for v in ({}, {"q": 1}, [], "s"):
        match v:
            case {}:
                hits.append("map")
            case _:
                hits.append("other")
    return x + len(hits), hits


class _Mapping(collections.abc.Mapping):
    def __init__(self, **kw):
        self._d = dict(kw)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


def c_grammar14_match_abc_mapping_class(x):
    m = _Mapping(w=2, h=3)
    match m:
        case {"w": w, "h": h}:
            return x * w + h
    return x


def c_grammar14_match_mapping_value_subpattern(x):
    out = []
    for d in ({"k": [1, 2]}, {"k": (3,)}, {"k": "ab"}, {"k": {"n": 4}}):
        match d:
            case {"k": [a, b]}:
                out.append(a + b)
            case {"k": [a]}:
                out.append(a * 10)
            case {"k": {"n": n}}:
                out.append(n * 100)
            case _:
                out.append(-1)
    return x + sum(out), out


def c_grammar14_match_mapping_tensor_values(x):
    d = {"w": x * 2, "b": x + 1}
    match d:
        case {"w": w, "b": b}:
            return w + b
    return x


# ---- sequences -----------------------------------------------------------------------------------------------


def c_grammar14_match_deque_sequence(x):
    q = collections.deque([1, 2, 3])
    match q:
        case [first, *_, last]:
            return x + first * 10 + last
    return x


def c_grammar14_match_range_sequence(x):
    match range(4):
        case [0, 1, *rest]:
            return x + len(rest), rest
    return x, None


def c_grammar14_match_str_bytes_not_sequences(x):
    kinds = []
    for v in ("ab", b"ab", bytearray(b"ab"), ["a", "b"], ("a", "b")):
        match v:
            case [_, _]:
                kinds.append("seq")
            case _:
                kinds.append("no")
    return x + kinds.count("seq"), kinds


def c_grammar14_match_iterator_not_sequence(x):
    kinds = []
    for v in (iter([1, 2]), (i for i in range(2)), {1, 2}, {"a": 1, "b": 2}, [1, 2]):
        match v:
            case [a, b]:
                kinds.append(a + b)
            case _:
                kinds.append(0)
    return x + sum(kinds), kinds


class _Seq(collections.abc.Sequence):
    def __init__(self, *items):
        self._items = items

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self):
        return len(self._items)


def c_grammar14_match_abc_sequence_class(x):
    match _Seq(5, 6, 7):
        case [a, *mid, c]:
            return x + a + c + len(mid)
    return x


def c_grammar14_match_star_in_middle(x):
    out = []
    for s in ([1, 2], [1, 2, 3, 4, 5], [9]):
        match s:
            case [a, *mid, b]:
                out.append((a, mid, b))
            case [only]:
                out.append((only,))
    return x + len(out), out


def c_grammar14_match_nested_sequences(x):
    pts = [[(0, 1), (2, 3)], [(4, 5)], []]
    acc = []
    for p in pts:
        match p:
            case [(a, b), (c, d)]:
                acc.append(a + b + c + d)
            case [(a, b)]:
                acc.append(a * b)
            case []:
                acc.append(-1)
    return x + sum(acc), acc


def c_grammar14_match_tensor_list(x):
    parts = list(x.split(1))
    match parts:
        case [a, b, c]:
            return a * 3 + b * 2 + c
        case _:
            return x


# ---- classes -------------------------------------------------------------------------------------------------


class _P2:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class _P3(_P2):
    __match_args__ = ("x", "y", "z")

    def __init__(self, x, y, z):
        super().__init__(x, y)
        self.z = z


def c_grammar14_match_args_inherited_override(x):
    out = []
    for p in (_P3(1, 2, 3), _P2(4, 5)):
        match p:
            case _P3(a, b, c):
                out.append(a + b + c)
            case _P2(a, b):
                out.append(a * b)
    return x + sum(out), out


def c_grammar14_match_too_many_positional(x):
    try:
        match _P2(1, 2):
            case _P2(a, b, c):
                return x, a + b + c
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def c_grammar14_match_no_match_args(x):
    class Plain:
        def __init__(self):
            self.v = 4

    try:
        match Plain():
            case Plain(v):
                return x + v, "positional"
    except TypeError:
        pass
    match Plain():
        case Plain(v=v):
            return x * v, "keyword"
    return x, "none"


def c_grammar14_match_keyword_missing_attr(x):
    res = []
    for v in (_P2(1, 2), _P3(1, 2, 3)):
        match v:
            case _P2(z=z):
                res.append(z)
            case _P2(x=1, y=y):
                res.append(-y)
    return x + sum(res), res


def c_grammar14_match_class_not_a_type(x):
    not_cls = len
    try:
        match 3:
            case not_cls():
                return x
    except TypeError as e:
        return x + 1, type(e).__name__
    return x, None


def c_grammar14_match_bad_match_args(x):
    class Listed:
        __match_args__ = ["a"]
        a = 1

    class Numbered:
        __match_args__ = (0,)

    errors = []
    for cls in (Listed, Numbered):
        try:
            match cls():
                case cls(v):
                    errors.append(v)
        except TypeError as e:
            errors.append(str(e))
    return x + len(errors), errors


def c_grammar14_match_attribute_twice(x):
    try:
        match _P2(1, 2):
            case _P2(a, x=b):
                return x, a + b
    except TypeError as e:
        return x - 1, str(e)
    return x, None


def c_grammar14_match_duplicate_value_keys(x):
    out = []
    for d in ({1: "a", 2: "b"}, {3: "c", 4: "d"}):
        try:
            match d:
                case {_Color.RED.value: v, 1: w}:
                    out.append(v + w)
                case _:
                    out.append("none")
        except ValueError as e:
            out.append(str(e))
    return x + len(out), out


def c_grammar14_match_mapping_custom_get(x):
    calls = []

    class Logged(collections.abc.Mapping):
        def __getitem__(self, k):
            calls.append(k)
            if k in ("a", "b"):
                return k * 2
            raise KeyError(k)

        def __iter__(self):
            return iter("ab")

        def __len__(self):
            return 2

    match Logged():
        case {"a": a, "z": z}:
            r = x + len(z)
        case {"b": b, "a": a}:
            r = x + len(a + b)
        case _:
            r = x
    return r, calls


def c_grammar14_match_getattr_side_effect(x):
    seen = []

    class Spy:
        __match_args__ = ("a", "b")

        def __getattr__(self, name):
            seen.append(name)
            if name == "a":
                return 1
            raise AttributeError(name)

    match Spy():
        case Spy(1, b):
            r = x + b
        case Spy(a):
            r = x * a
        case _:
            r = x
    return r, seen


class _MyInt(int):
    pass


def c_grammar14_match_self_builtin_subclass(x):
    out = []
    for v in (_MyInt(5), 6, "7"):
        match v:
            case _MyInt(n):
                out.append(("mine", n))
            case int(n):
                out.append(("int", n))
            case str(s):
                out.append(("str", s))
    return x + len(out), out


@dataclasses.dataclass
class _Box:
    content: object
    tag: str = "t"


def c_grammar14_match_dataclass_nested(x):
    b = _Box(_Box([1, 2], "inner"), "outer")
    match b:
        case _Box(_Box([p, q], tag=inner), tag="outer"):
            return x + p + q, inner
    return x, None


def c_grammar14_match_tensor_in_class(x):
    b = _Box(x * 2, "tensor")
    match b:
        case _Box(content=t, tag="tensor"):
            return t.sum() + 1
        case _:
            return x


# ---- or, as, guards, values ----------------------------------------------------------------------------------


class _Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


def c_grammar14_match_enum_values(x):
    out = []
    for c in (_Color.RED, _Color.BLUE, _Color.GREEN):
        match c:
            case _Color.RED | _Color.GREEN:
                out.append(c.value)
            case _Color.BLUE:
                out.append(100)
    return x + sum(out), out


def c_grammar14_match_or_binds_same_name(x):
    out = []
    for v in ([1, 2], (3,), {"k": 4}, 5):
        match v:
            case [a, _] | (a,) | {"k": a}:
                out.append(a)
            case _:
                out.append(0)
    return x + sum(out), out


def c_grammar14_match_as_captures_whole(x):
    match [1, [2, 3]]:
        case [int() as first, [_, _] as pair] as whole:
            return x + first + len(pair) + len(whole), pair
    return x, None


def c_grammar14_match_guard_side_effect_order(x):
    log = []

    def g(tag, result):
        log.append(tag)
        return result

    match 3:
        case 1 if g("a", True):
            r = 1
        case int(n) if g("b", False):
            r = 2
        case int(n) if g("c", n > 2):
            r = 3
        case _:
            r = 4
    return x + r, log


def c_grammar14_match_guard_binds_before_failing(x):
    n = 0
    match 7:
        case n if n > 100:  # the capture binds before the guard fails
            pass
        case _:
            pass
    return x + n


def c_grammar14_match_literals_corners(x):
    res = []
    for v in (-0, 0.0, True, 1, 1.0, 2j, -1.5, None, False):
        match v:
            case True:
                res.append("true")
            case False:
                res.append("false")
            case None:
                res.append("none")
            case -1.5:
                res.append("neg")
            case 2j:
                res.append("cplx")
            case 1:
                res.append("one")
            case 0:
                res.append("zero")
    return x + len(res), res


def c_grammar14_match_string_and_bytes_literals(x):
    res = []
    for v in ("ab", b"ab", "x" "y", "z"):
        match v:
            case "ab":
                res.append(1)
            case b"ab":
                res.append(2)
            case "xy":
                res.append(3)
            case _:
                res.append(0)
    return x + sum(res), res


def c_grammar14_match_wildcard_in_sequence_no_bind(x):
    _ = "kept"
    match [1, 2, 3]:
        case [_, *_, _]:
            return x + 1, _
    return x, _


def c_grammar14_match_on_shape_tuple(x):
    y = x.reshape(1, 3)
    match tuple(y.shape):
        case (1, n):
            return y.sum() + n
        case (n,):
            return y.sum() - n
    return y


def c_grammar14_match_fallthrough_no_case(x):
    hit = "none"
    match {"k": 1}:
        case [_]:
            hit = "seq"
        case {"j": _}:
            hit = "j"
    return x + 1, hit


CONSTRUCTS = [c_grammar14_match_dict_subclass, c_grammar14_match_defaultdict_no_missing,
              c_grammar14_match_mapping_rest_copy, c_grammar14_match_mapping_empty_matches_any,
              c_grammar14_match_abc_mapping_class, c_grammar14_match_mapping_value_subpattern,
              c_grammar14_match_mapping_tensor_values, c_grammar14_match_deque_sequence,
              c_grammar14_match_range_sequence, c_grammar14_match_str_bytes_not_sequences,
              c_grammar14_match_iterator_not_sequence, c_grammar14_match_abc_sequence_class,
              c_grammar14_match_star_in_middle, c_grammar14_match_nested_sequences, c_grammar14_match_tensor_list,
              c_grammar14_match_args_inherited_override, c_grammar14_match_too_many_positional,
              c_grammar14_match_no_match_args, c_grammar14_match_keyword_missing_attr,
              c_grammar14_match_class_not_a_type, c_grammar14_match_getattr_side_effect, c_grammar14_match_bad_match_args,
              c_grammar14_match_attribute_twice, c_grammar14_match_duplicate_value_keys,
              c_grammar14_match_mapping_custom_get,
              c_grammar14_match_self_builtin_subclass, c_grammar14_match_dataclass_nested,
              c_grammar14_match_tensor_in_class, c_grammar14_match_enum_values, c_grammar14_match_or_binds_same_name,
              c_grammar14_match_as_captures_whole, c_grammar14_match_guard_side_effect_order,
              c_grammar14_match_guard_binds_before_failing, c_grammar14_match_literals_corners,
              c_grammar14_match_string_and_bytes_literals, c_grammar14_match_wildcard_in_sequence_no_bind,
              c_grammar14_match_on_shape_tuple, c_grammar14_match_fallthrough_no_case]
