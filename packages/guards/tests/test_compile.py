"""compile(): simplification, implication, ordering, each source read once, frame views and fallbacks,
describe(), bad input, and extension by new guard kinds and sources."""

from __future__ import annotations

import builtins
import types

import pytest
import torch

import loom_guards
from loom_guards import (
    Attr,
    Builtin,
    Closure,
    Const,
    ConstantMatch,
    DictContains,
    DictKeys,
    Global,
    GlobalState,
    Guard,
    GuardFn,
    Identity,
    IsNone,
    Item,
    Length,
    Local,
    ModuleParam,
    NotNone,
    Source,
    Submodule,
    TensorMatch,
    TypeMatch,
    simplify,
)

from .helpers import Counter, FrameView, make_closure

X = Local("x")


# -- simplification -----------------------------------------------------------------------------------


def test_duplicates_merge():
    assert simplify([TypeMatch(X, int), TypeMatch(X, int), Length(X, 2), Length(X, 2)]) == [
        TypeMatch(X, int),
        Length(X, 2),
    ]


def test_implied_guards_are_dropped():
    t = torch.randn(2)
    assert simplify([TypeMatch(X, torch.Tensor), TensorMatch(X, t), NotNone(X)]) == [TensorMatch(X, t)]
    assert simplify([NotNone(X), TypeMatch(X, int)]) == [TypeMatch(X, int)]
    assert simplify([TypeMatch(X, int), ConstantMatch(X, 3), NotNone(X)]) == [ConstantMatch(X, 3)]
    assert simplify([Length(X, 2), TypeMatch(X, tuple), ConstantMatch(X, (1, 2))]) == [ConstantMatch(X, (1, 2))]
    assert simplify([Length(X, 1), DictKeys(X, ["a"])]) == [DictKeys(X, ["a"])]

    def f():
        pass

    assert simplify([TypeMatch(X, types.FunctionType), Identity(X, f)]) == [Identity(X, f)]
    assert simplify([IsNone(X), ConstantMatch(X, None), Identity(X, None)]) == [IsNone(X)]
    assert simplify([NotNone(X), DictContains(X, "a", present=False)]) == [DictContains(X, "a", present=False)]


def test_guards_on_other_sources_are_kept():
    kept = simplify([TypeMatch(X, int), NotNone(Local("y")), ConstantMatch(Local("z"), 1)])
    assert len(kept) == 3


@pytest.mark.parametrize(
    "guards",
    [
        [TypeMatch(X, int), TypeMatch(X, float)],
        [IsNone(X), NotNone(X)],
        [IsNone(X), TypeMatch(X, int)],
        [ConstantMatch(X, 1), ConstantMatch(X, 2)],
        [ConstantMatch(X, 1), TypeMatch(X, float)],
        [Length(X, 1), Length(X, 2)],
        [DictKeys(X, ["a"]), DictKeys(X, ["b"])],
        [DictKeys(X, ["a"]), Length(X, 2)],
        [DictContains(X, "a"), DictContains(X, "a", present=False)],
        [IsNone(X), DictContains(X, "a", present=False)],
    ],
)
def test_contradictions_are_rejected(guards):
    with pytest.raises(ValueError, match="contradictory guards"):
        loom_guards.compile(guards)


class _CustomNotNone(NotNone):
    """A kind loom-guards does not define: its guard sets take the full implication pass."""

    __slots__ = ()


def _full_closure_simplify(guards):
    from loom_guards import _plan

    lone = _plan._lone_guards
    _plan._lone_guards = lambda guards: set()
    try:
        return simplify(guards)
    except ValueError as exc:
        return f"ValueError: {exc}"
    finally:
        _plan._lone_guards = lone


def _simplify_or_error(guards):
    try:
        return simplify(guards)
    except ValueError as exc:
        return f"ValueError: {exc}"


def test_skipping_lone_guards_implications_changes_nothing():
    t = torch.randn(2)

    def f():
        pass

    y, z = Attr(X, "y"), Item(Local("w"), 0)
    cases = [
        [Identity(X, f), ConstantMatch(y, (1, 2)), TensorMatch(z, t), DictKeys(Local("d"), ["a"])],
        [Identity(X, f), TypeMatch(X, types.FunctionType), ConstantMatch(y, 3), Length(z, 2)],
        [ConstantMatch(y, (1, 2)), Length(y, 2), TensorMatch(z, t), NotNone(z), IsNone(Local("n"))],
        [ConstantMatch(y, (1, 2)), Length(y, 3)],
        [Identity(X, f), TypeMatch(X, int)],
        [TensorMatch(z, t), IsNone(z)],
        [DictKeys(X, ["a"]), Length(X, 2), Identity(y, f)],
        [_CustomNotNone(X), Identity(y, f), TypeMatch(Local("q"), int)],
    ]
    for guards in cases:
        assert _simplify_or_error(guards) == _full_closure_simplify(guards), guards


def test_only_guards_alone_on_their_source_skip_implications():
    from loom_guards import _plan

    alone, shared = Identity(Local("a"), test_duplicates_merge), TypeMatch(X, int)
    lone = _plan._lone_guards([alone, shared, ConstantMatch(X, 3)])
    assert lone == {id(alone)}
    assert _plan._lone_guards([_CustomNotNone(X), alone]) == set()


def test_dict_contains_of_other_keys_or_sources_is_no_contradiction():
    guards = [DictContains(X, "a"), DictContains(X, "b", present=False), DictContains(Local("y"), "a", False)]
    assert simplify(guards) == guards
    assert simplify([DictContains(X, 1), DictContains(X, 1.0, present=False)])  # distinct constants


def test_same_object_contradicts_no_aliasing():
    a, b, c = Local("a"), Local("b"), Local("c")
    same, distinct = loom_guards.SameObject(a, b), loom_guards.NoAliasing([a, b])
    with pytest.raises(ValueError, match="contradictory guards"):
        loom_guards.compile([same, distinct])
    with pytest.raises(ValueError, match="contradictory guards"):  # through a chain of SameObject
        loom_guards.compile([same, loom_guards.SameObject(b, c), loom_guards.NoAliasing([a, c])])
    # one input reached two ways, distinct from a third: no contradiction
    assert len(loom_guards.simplify([same, loom_guards.NoAliasing([a, c])])) == 2
    assert loom_guards.simplify([same, loom_guards.SameObject(b, a)]) == [same]  # duplicates merge


# -- bad input ----------------------------------------------------------------------------------------


def test_bad_compile_input():
    with pytest.raises(TypeError):
        loom_guards.compile([TypeMatch(X, int), "not a guard"])
    with pytest.raises(TypeError):
        loom_guards.compile(TypeMatch(X, int))
    with pytest.raises(TypeError):
        loom_guards.compile([], f_globals=3)
    with pytest.raises(TypeError):
        loom_guards.compile([], f_builtins=3)
    with pytest.raises(TypeError):
        loom_guards.compile([], closure=(1, 2))


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: TypeMatch("x", int), TypeError),
        (lambda: TypeMatch(X, 3), TypeError),
        (lambda: Identity(3, object), TypeError),
        (lambda: IsNone(None), TypeError),
        (lambda: Length(X, -1), ValueError),
        (lambda: Length(X, 1.0), TypeError),
        (lambda: Length(X, True), TypeError),
        (lambda: DictKeys(X, "ab"), TypeError),
        (lambda: DictKeys(X, [[1]]), TypeError),
        (lambda: DictKeys(X, 3), TypeError),
        (lambda: ConstantMatch(X, {"a": 1}), TypeError),
        (lambda: DictContains(X, ["a"]), TypeError),
        (lambda: DictContains(X, "a", present="no"), TypeError),
        (lambda: loom_guards.NoAliasing([X]), ValueError),
        (lambda: loom_guards.NoAliasing([X, "y"]), TypeError),
    ],
)
def test_bad_guard_input_fails_at_construction(make, error):
    with pytest.raises(error):
        make()


# -- ordering and reading each source once ----------------------------------------------------------


def test_cheapest_first():
    t = torch.randn(2)
    guards = [
        TensorMatch(Local("t"), t),
        GlobalState({"grad_mode": True}),
        DictKeys(Local("d"), ["a"]),
        ConstantMatch(Local("n"), 3),
        Length(Local("s"), 2),
        TypeMatch(Local("s"), list),
        IsNone(Local("z")),
    ]
    check = loom_guards.compile(guards, accelerate=False)
    kinds = [g.kind for g in check.guards]
    assert kinds == ["none", "type", "len", "const", "dict_keys", "global_state", "tensor"]
    lines = check.describe().splitlines()
    assert lines[0] == "GuardFn (pure Python, 7 guards):"
    assert lines[1] == "  1. L['z'] is None"
    assert lines[-1].startswith("  7. L['t'] is a torch.Tensor")


def test_parent_checked_before_reading_through_it(build):
    # an object of the wrong type must not have its attributes read
    class Good:
        value = 1

    class Bad:
        @property
        def value(self):
            raise AssertionError("read through an object of the wrong type")

    obj = Local("o")
    check = build([ConstantMatch(Attr(obj, "value"), 1), TypeMatch(obj, Good)])
    assert [g.kind for g in check.guards] == ["type", "const"]
    assert check({"o": Good()})
    assert check({"o": Bad()}) is False
    assert check.why_failed({"o": Bad()}).endswith("Good, got " + f"{__name__}.test_parent_checked_before_reading_through_it.<locals>.Bad")


def test_dict_contains_runs_after_the_type_of_the_object(build):
    class Good:
        pass

    class Bad:
        @property
        def __dict__(self):
            raise AssertionError("read through an object of the wrong type")

    m = Local("m")
    guards = [DictContains(Attr(m, "__dict__"), "forward", present=False), TypeMatch(m, Good),
              ConstantMatch(Local("n"), 1), DictKeys(Local("d"), ["a"])]
    check = build(guards)
    assert [g.kind for g in check.guards] == ["type", "const", "dict_contains", "dict_keys"]
    assert check({"m": Good(), "n": 1, "d": {"a": 0}})
    assert check({"m": Bad(), "n": 1, "d": {"a": 0}}) is False


def test_each_source_read_once(build):
    src = Attr(Local("c"), "value")
    guards = [TypeMatch(src, tuple), Length(src, 2), ConstantMatch(Item(src, 0), 1), ConstantMatch(Item(src, 1), 2)]
    check = build(guards)
    c = Counter((1, 2))
    assert check({"c": c})
    assert c.reads == 1
    assert check({"c": c})
    assert c.reads == 2


def test_first_failing_guard_stops_the_check(build):
    c = Counter(5)
    check = build([ConstantMatch(Local("n"), 1), ConstantMatch(Attr(Local("c"), "value"), 5)])
    assert not check({"n": 2, "c": c})
    assert c.reads == 0


# -- frames, mappings and fallbacks -------------------------------------------------------------------


def test_frame_view_and_mapping(build):
    g = {"W": 3}
    check = build([ConstantMatch(Global("W"), 3), Identity(Builtin("len"), len), ConstantMatch(X, 1)], f_globals=g)
    assert check({"x": 1})
    assert check(FrameView({"x": 1}, f_globals={"W": 3}))
    assert not check(FrameView({"x": 1}, f_globals={"W": 4}))  # the frame's globals win
    assert check(FrameView({"x": 1}, f_globals={"W": 3}, f_builtins=builtins))  # builtins as a module
    assert not check(FrameView({"x": 1}, f_globals={"W": 3}, f_builtins={"len": abs}))
    assert check(types.MappingProxyType({"x": 1}))  # any mapping of locals


def test_globals_missing_without_fallback(build):
    check = build([ConstantMatch(Global("W"), 3)])
    assert not check({})
    why = check.why_failed({})
    assert why.startswith("G['W'] == 3, got nothing: G['W'] raised KeyError")


def test_deleted_global(build):
    g = {"W": 3}
    check = build([ConstantMatch(Global("W"), 3)], f_globals=g)
    assert check({})
    del g["W"]
    assert check({}) is False
    assert check.why_failed({}).startswith("G['W'] == 3, got nothing: G['W'] raised KeyError")
    g["W"] = 3
    assert check({})
    g["W"] = 4
    assert check.why_failed({}) == "G['W'] == 3, got 4"


def test_builtins_fallback(build):
    check = build([Identity(Builtin("len"), len)], f_builtins={"len": len})
    assert check({})
    check = build([Identity(Builtin("len"), len)], f_builtins={"len": abs})
    assert not check({})
    check = build([Identity(Builtin("len"), len)])
    assert check({})  # the builtins module by default


def test_closure_from_frame_view_and_fallbacks(build):
    fn = make_closure(7)
    check = build([ConstantMatch(Closure("scale"), 7)])
    assert check(FrameView({}, closure=fn.__closure__, code=fn.__code__))
    other = make_closure(8)
    assert not check(FrameView({}, closure=other.__closure__, code=other.__code__))
    assert check.why_failed(FrameView({}, closure=other.__closure__, code=other.__code__)) == "C['scale'] == 7, got 8"
    assert not check({})  # no closure at all
    assert build([ConstantMatch(Closure("scale"), 7)], closure=fn)({})
    assert build([ConstantMatch(Closure("scale"), 7)], closure={"scale": 7})({})
    assert not build([ConstantMatch(Closure("scale"), 7)], closure={"scale": types.CellType()})({})


def test_closure_index_cache_follows_the_code(build):
    def outer():
        a, b = 1, 2

        def f():
            return a + b

        def g():
            return b + a

        return f, g

    f, g = outer()
    check = build([ConstantMatch(Closure("b"), 2), ConstantMatch(Closure("a"), 1)])
    for fn in (f, g, f, g):
        assert check(FrameView({}, closure=fn.__closure__, code=fn.__code__))


def test_wrong_argument_type_raises(build):
    check = build([ConstantMatch(X, 1)])
    with pytest.raises(TypeError):
        check(42)
    with pytest.raises(TypeError):
        check()
    with pytest.raises(TypeError):
        check.why_failed(42)


def test_guardfn_api(build):
    t = torch.randn(2)
    check = build([TensorMatch(X, t), TypeMatch(X, torch.Tensor)])
    assert isinstance(check, GuardFn)
    assert check.guards == (TensorMatch(X, t),)
    assert check.accelerated == (build.keywords["accelerate"])
    assert check.alive
    text = check.describe()
    assert "L['x'] is a torch.Tensor: dtype=torch.float32" in text
    assert check.explain({"x": torch.randn(3)}) == check.why_failed({"x": torch.randn(3)})
    assert build([])({}) is True  # no guards: always true
    assert build([]).why_failed({}) is None


def test_env_var_selects_pure(monkeypatch):
    monkeypatch.setenv("LOOM_GUARDS_PURE", "1")
    assert not loom_guards.compile([TypeMatch(X, int)]).accelerated
    monkeypatch.setenv("LOOM_GUARDS_PURE", "0")
    assert loom_guards.compile([TypeMatch(X, int)]).accelerated == loom_guards.accelerator_available()


# -- modules ------------------------------------------------------------------------------------------


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def module_guards(net: Net) -> list[Guard]:
    self_ = Local("self")
    layers = Submodule(self_, "layers")
    guards: list[Guard] = [TypeMatch(self_, Net), TypeMatch(layers, torch.nn.ModuleList)]
    for i, layer in enumerate(net.layers):
        child = Submodule(layers, str(i))
        guards.append(Identity(child, layer))
        for name, p in layer.named_parameters(recurse=False):
            guards.append(TensorMatch(ModuleParam(child, name), p))
    return guards


def test_module_guards(build):
    net = Net()
    check = build(module_guards(net))
    assert check({"self": net})
    net.layers[1].weight = torch.nn.Parameter(torch.randn(3, 4))  # replaced after compile
    assert check.why_failed({"self": net}) == "L['self'].layers[1].weight.shape[1] == 3, got 4"
    assert not check({"self": net})
    net.layers[1].weight = torch.nn.Parameter(torch.randn(3, 3))
    assert check({"self": net})
    net.layers[0] = torch.nn.Linear(3, 3)  # another module in its place
    assert not check({"self": net})
    assert check.why_failed({"self": net}).startswith("L['self'].layers[0] is Linear(")


def test_module_attribute_replaced_after_compile(build):
    mod = types.ModuleType("fake_mod")
    mod.helper = len
    src = Attr(Const(mod), "helper")
    check = build([Identity(src, len)])
    assert check({})
    mod.helper = abs
    assert not check({})
    mod.helper = len
    assert check({})
    del mod.helper
    assert not check({})
    mod.__getattr__ = lambda name: len  # module __getattr__ is honoured, as getattr would
    assert check({})


# -- extending: a new guard kind and a new source work on both back ends ----------------------------


class IsPositive(Guard):
    """A guard kind compile() has no fast path for."""

    __slots__ = ("_source",)
    kind = "positive"
    cost = 3

    def __init__(self, source: Source) -> None:
        object.__setattr__(self, "_source", source)

    @property
    def sources(self):
        return (self._source,)

    def _key(self):
        return (self._source,)

    def describe(self):
        return f"{self._source} > 0"

    def explain(self, value):
        return None if value > 0 else (self.describe(), repr(value))


class Doubled(Source):
    """A chained source compile() has no fast path for."""

    __slots__ = ("_base",)

    def __init__(self, base: Source) -> None:
        object.__setattr__(self, "_base", base)

    @property
    def base(self):
        return self._base

    def _key(self):
        return (self._base,)

    def get(self, ctx):
        return self.read_from(self._base.get(ctx))

    def read_from(self, value):
        return value * 2

    def __str__(self):
        return f"2 * {self._base}"


class Answer(Source):
    """A root source compile() has no fast path for."""

    __slots__ = ()

    def _key(self):
        return ()

    def get(self, ctx):
        return ctx.locals["x"] + 1

    def __str__(self):
        return "answer"


def test_new_guard_kind_and_sources(build):
    check = build([IsPositive(Doubled(X)), ConstantMatch(Answer(), 5)])
    assert check({"x": 4})
    assert not check({"x": 3})
    assert check.why_failed({"x": 3}) == "answer == 5, got 4"
    check = build([IsPositive(Doubled(X))])
    assert check({"x": 1})
    assert not check({"x": -1})
    assert check.why_failed({"x": -1}) == "2 * L['x'] > 0, got -2"
    assert not check({"x": "a"})  # 'aa' > 0 raises TypeError: fails
    assert check.why_failed({"x": "a"}).startswith("2 * L['x'] > 0, got 'aa' (checking raised TypeError")


def test_repeated_reads_see_every_change(build):
    # the accelerator remembers dict lookups against the dict's version: every change must be seen
    d = {"k": 1, "other": 0}
    g = {"CFG": d}
    check = build([ConstantMatch(Item(Global("CFG"), "k"), 1), ConstantMatch(Item(X, "k"), 1)], f_globals=g)
    assert check({"x": d})
    d["k"] = 2
    assert not check({"x": d})
    d["k"] = 1
    assert check({"x": d})
    d["other"] = 5  # another key changed: still passes
    assert check({"x": d})
    g["CFG"] = {"k": 1}
    assert check({"x": d})
    g["CFG"] = {"k": 3}
    assert check.why_failed({"x": d}) == "G['CFG']['k'] == 1, got 3"
    assert not check({"x": d})
    g["CFG"] = d
    assert check({"x": {"k": 1}})
    assert not check({"x": {"k": 0}})
    del d["k"]
    assert not check({"x": {"k": 1}})
