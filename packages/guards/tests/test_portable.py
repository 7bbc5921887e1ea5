"""Guards as records and back (``to_records`` / ``from_records``): every kind handled is rebuilt into a
guard that passes and fails on exactly the frames the original does; everything else is refused with a
reason naming it."""

from __future__ import annotations

import builtins
import json
import math
import types
import weakref

import pytest
import torch

import loom_guards
from loom_guards import (
    Attr,
    Builtin,
    BuiltinContents,
    Closure,
    Const,
    ConstantMatch,
    DictAttr,
    DictContains,
    DictKeys,
    GeneratorFunction,
    Global,
    GlobalState,
    Identity,
    IsNone,
    Item,
    IteratorState,
    Length,
    Local,
    ModuleBuffer,
    ModuleParam,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    SetMembers,
    StorageOverlap,
    Submodule,
    TensorMatch,
    TensorSize,
    TypeMatch,
    TypeOf,
    WeakReferent,
    from_records,
    to_records,
)
from loom_guards.portable import FORMAT

from .helpers import FrameView, make_closure
from .portable_helpers import round_trip, same_verdicts, write_subject

X = Local("x")
Y = Local("y")


@pytest.fixture
def subject(tmp_path):
    return write_subject(tmp_path)


# -- round trips, kind by kind -------------------------------------------------------------------------


def test_type_identity_and_none_guards(build, subject):
    guards = [
        TypeMatch(X, subject.Net),
        Identity(Attr(TypeOf(X), "forward"), subject.Net.forward),
        NotNone(Local("y")),
        IsNone(Local("z")),
        Identity(Local("f"), subject.helper),
        Identity(Local("m"), math),
        Identity(Local("b"), len),
        Identity(Local("t"), True),
        Identity(Local("d"), torch.float16),
        Identity(Local("c"), subject.Colour.RED),
        TypeMatch(Local("fn"), types.FunctionType),
        Identity(Local("add"), torch.add),
        Identity(Local("join"), str.join),
        Identity(Local("shape"), torch.Tensor.shape),
        Identity(Local("call"), torch.nn.Module.__call__),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    good = {"x": subject.Net(), "y": 0, "z": None, "f": subject.helper, "m": math, "b": len, "t": True,
            "d": torch.float16, "c": subject.Colour.RED, "fn": subject.helper, "add": torch.add, "join": str.join,
            "shape": torch.Tensor.shape, "call": torch.nn.Module.__call__}
    other = type("Net", (subject.Net,), {})
    frames = [good, {**good, "x": other()}, {**good, "y": None}, {**good, "z": 0}, {**good, "f": lambda x: x},
              {**good, "t": 1}, {**good, "d": torch.float32}, {**good, "c": subject.Colour.GREEN},
              {**good, "fn": len}, {**good, "add": torch.sub}, {**good, "join": str.split},
              {**good, "shape": torch.Tensor.T}, {**good, "call": torch.nn.Module.forward}]
    assert same_verdicts(build, guards, rebuilt, frames) == [True] + [False] * (len(frames) - 1)


def test_constants_keep_their_exact_type_and_bits(build):
    Point = __import__("collections").namedtuple("Point", "x y")
    globals()["Point"] = Point  # reachable by name, as a module-level named tuple is
    Point.__qualname__ = "Point"
    values = [1, True, 1.0, -0.0, 0.0, math.nan, math.inf, -math.inf, 0.1, 1 + 2j, "s\u00e9\ud800", b"\x00\xff",
              (1, (2.5, "a")), frozenset({"a", "b", 3}), torch.float64, torch.device("cpu"), torch.Size([2, 3]),
              range(1, 9, 2), ..., torch.strided, torch.channels_last, Point(1, 2)]
    guards = [ConstantMatch(Local(f"v{i}"), v) for i, v in enumerate(values)]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    for original, again in zip(guards, rebuilt):
        assert type(again.value) is type(original.value)
    good = {f"v{i}": v for i, v in enumerate(values)}
    swaps = {0: True, 1: 1, 2: 1, 3: 0.0, 4: -0.0, 5: 1.0, 6: -math.inf, 9: 1 + 3j, 10: "s", 11: b"\x00",
             12: (1, (2.5, "b")), 13: frozenset({"a"}), 14: torch.float32, 15: torch.device("meta"),
             16: torch.Size([2, 4]), 21: (1, 2)}
    frames = [good] + [{**good, f"v{i}": v} for i, v in swaps.items()]
    assert same_verdicts(build, guards, rebuilt, frames) == [True] + [False] * len(swaps)


def test_a_nan_matches_any_nan_in_the_rebuilt_guard(build):
    guards = [ConstantMatch(X, math.nan)]
    rebuilt = round_trip(guards)
    assert same_verdicts(build, guards, rebuilt, [{"x": float("nan")}, {"x": 0.0}]) == [True, False]


def test_lengths_keys_and_containment(build, subject):
    d = {"a": 1, 2: "b"}
    guards = [
        Length(X, 2),
        DictKeys(X, ["a", 2]),
        DictContains(X, "a"),
        DictContains(X, "zz", present=False),
        DictKeys(Local("k"), [int, subject.helper, ("t", 1)]),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    good = {"x": d, "k": {int: 0, subject.helper: 1, ("t", 1): 2}}
    frames = [good, {**good, "x": {2: "b", "a": 1}}, {**good, "x": {"a": 1, 2.0: "b"}},
              {**good, "x": {"a": 1, 2: "b", "zz": 0}}, {**good, "k": {float: 0, subject.helper: 1, ("t", 1): 2}}]
    assert same_verdicts(build, guards, rebuilt, frames) == [True, False, False, False, False]


def test_every_source_kind(build, subject):
    net = subject.Net()
    net.register_buffer("running", torch.zeros(2))
    seq = torch.nn.Sequential(net)
    ref_target = subject.Net()

    g = subject.counting()
    it = iter([1, 2, 3])
    next(it)
    guards = [
        TypeMatch(Submodule(Local("seq"), "0"), subject.Net),
        TensorMatch(ModuleParam(Submodule(Submodule(Local("seq"), "0"), "lin"), "weight"), net.lin.weight),
        TensorMatch(ModuleBuffer(Submodule(Local("seq"), "0"), "running"), net.running),
        Length(DictAttr(Submodule(Local("seq"), "0"), "_forward_hooks"), 0),
        ConstantMatch(Item(Local("items"), ("k", 1)), 5),
        ConstantMatch(Global("SCALE"), 3),
        Identity(Builtin("len"), len),
        ConstantMatch(Closure("scale"), 7),
        TypeMatch(WeakReferent(Local("ref")), subject.Net),
        ConstantMatch(IteratorState(Local("it"), "index"), 1),
        Length(BuiltinContents(Local("lst")), 2),
        Identity(GeneratorFunction(Local("gen")), subject.counting),
        Relation("s0 * 2 == s1", {"s0": TensorSize(Local("t"), 0), "s1": TensorSize(Local("t"), 1)}),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards

    def frame(**changes):
        f_locals = {"seq": seq, "items": {("k", 1): 5}, "ref": weakref.ref(ref_target), "it": it, "lst": [1, 2],
                    "gen": g, "t": torch.zeros(2, 4), **changes}
        fn = make_closure(7)
        return FrameView(f_locals, f_globals={"SCALE": 3}, closure=fn.__closure__, code=fn.__code__)

    def other():
        yield 1

    frames = [frame(), frame(items={("k", 1): 6}), frame(lst=[1]), frame(t=torch.zeros(2, 5)), frame(gen=other()),
              frame(seq=torch.nn.Sequential(subject.Net())), frame(it=iter([1, 2, 3])), frame(ref=weakref.ref(seq))]
    assert same_verdicts(build, guards, rebuilt, frames) == [True] + [False] * 7


def test_tensor_match_keeps_every_field(build):
    p = torch.nn.Parameter(torch.randn(4, 3))
    x = torch.randn(5, 6)[:, ::2]
    guards = [
        TensorMatch(Local("p"), p),
        TensorMatch(X, x),
        TensorMatch(Local("d"), torch.randn(3, 4), dynamic_dims=[0]),
        TensorMatch(Local("n"), torch.randn(2), strides=None),
        TensorMatch(Local("s"), torch.randn(2, 2).to_sparse()),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    for a, b in zip(guards, rebuilt):
        assert (a.tensor_type, a.dtype, a.device, a.requires_grad, a.sizes, a.strides, a.dispatch_keys) == (
            b.tensor_type, b.dtype, b.device, b.requires_grad, b.sizes, b.strides, b.dispatch_keys)
        assert a.describe() == b.describe()
    good = {"p": p, "x": x, "d": torch.randn(9, 4), "n": torch.randn(4, 1)[:2, 0], "s": torch.randn(2, 2).to_sparse()}
    frames = [good, {**good, "p": p.detach()}, {**good, "x": x.contiguous()}, {**good, "x": x.double()},
              {**good, "d": torch.randn(3, 5)}, {**good, "p": torch.nn.Parameter(torch.randn(4, 3), requires_grad=False)},
              {**good, "s": torch.randn(2, 2)}, {**good, "x": x.to("meta")}]
    for gg in guards:
        print(gg, loom_guards.compile([gg], accelerate=True)(frames[0]), loom_guards.compile([gg], accelerate=False)(frames[0]))
    assert same_verdicts(build, guards, rebuilt, frames) == [True] + [False] * 7


def test_global_state_and_aliasing(build):
    a, b = torch.zeros(4), torch.zeros(4)
    guards = [
        GlobalState(),
        NoAliasing([X, Local("y")]),
        SameObject(X, Local("z")),
        StorageOverlap([X, Local("v")], [(0, 1)]),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    assert rebuilt[0].values == guards[0].values and "num_threads" in rebuilt[0].values
    good = {"x": a, "y": b, "z": a, "v": a[1:]}
    frames = [good, {**good, "y": a}, {**good, "z": b}, {**good, "v": b}]
    assert same_verdicts(build, guards, rebuilt, frames) == [True, False, False, False]
    with torch.no_grad():
        assert same_verdicts(build, guards, rebuilt, [good]) == [False]


def test_const_sources_of_modules_classes_namespaces_and_hook_tables(build, subject):
    hooks = torch.nn.modules.module._global_forward_hooks
    guards = [
        Length(Const(hooks, "torch.nn.modules.module._global_forward_hooks"), 0),
        DictContains(Attr(Const(subject.Net), "__dict__"), "extra", present=False),
        DictContains(Const(vars(subject), "G"), "float", present=False),
        DictContains(Const(builtins.__dict__, "B"), "float"),
        Identity(Attr(Const(subject), "helper"), subject.helper),
        ConstantMatch(Attr(Const(subject.Net), "__name__"), "Net"),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    assert rebuilt[2].source.value is vars(subject) and rebuilt[2].source.name == "G"
    assert rebuilt[0].source.value is hooks
    assert same_verdicts(build, guards, rebuilt, [{}]) == [True]
    subject.float = 1.0
    subject.Net.extra = 1
    handle = torch.nn.modules.module.register_module_forward_hook(lambda *a: None)
    try:
        for i in range(3):
            assert build(rebuilt[i:i + 1])({}) is False
        assert same_verdicts(build, guards, rebuilt, [{}]) == [False]
    finally:
        handle.remove()


def test_records_are_json_with_a_format_number(subject):
    records, why = to_records([TypeMatch(X, subject.Net), GlobalState(), Identity(Local("f"), subject.helper)])
    assert why is None
    assert json.loads(json.dumps(records)) == records
    assert all(r["format"] == FORMAT for r in records)
    assert records[2]["obj"]["module"] == subject.__name__ and records[2]["obj"]["path"] == "helper"


# -- refusals when recording ----------------------------------------------------------------------------


class _Plain:
    pass


def refused(guards) -> str:
    records, why = to_records(guards)
    assert records is None and isinstance(why, str), records
    return why


def test_an_instance_compared_by_identity_is_refused():
    why = refused([TypeMatch(Local("a"), int), Identity(X, _Plain())])
    assert why.startswith("guard 1 (L['x'] is ") and "_Plain" in why


def test_a_value_compared_by_identity_is_refused():
    assert "identity" in refused([Identity(X, 123456789)])
    assert "identity" in refused([Identity(X, (1, 2))])


def test_a_lambda_is_refused():
    why = refused([Identity(X, lambda y: y)])
    assert "lambda" in why


def test_a_class_defined_in_a_function_is_refused():
    class Local_:
        pass

    why = refused([TypeMatch(X, Local_)])
    assert "Local_" in why and "inside a function" in why


def test_a_closure_is_refused(subject):
    why = refused([Identity(X, make_closure(2))])
    assert "fn" in why


def test_a_function_replaced_after_import_is_refused_by_name(subject):
    from loom_guards.portable_values import NotPortable, describe_value

    original = subject.helper
    subject.helper = lambda x: x  # the name reaches another object now
    with pytest.raises(NotPortable, match=f"not the object its name reaches \\({subject.__name__}:helper"):
        describe_value(original, identity=True)
    # An identity guard on it keeps what the function is instead, and is rebuilt on the frame it is served
    # for (tests/test_portable_closures.py): never on the object the name reaches now.
    records, why = to_records([Identity(X, original)])
    assert why is None and "function" in records[0] and "obj" not in records[0]
    assert from_records(records)[0] is None


def test_a_function_with_an_unportable_default_is_refused(subject):
    exec("def with_default(x, box=[]):\n    return box\n", vars(subject))
    why = refused([Identity(X, subject.with_default)])
    assert "with_default" in why and "list" in why


REGISTRY = {"a": 1}


def test_a_const_dict_held_by_a_module_global_is_found_by_its_label(build):
    guards = [DictContains(Const(REGISTRY, f"{__name__}.REGISTRY"), "b", present=False)]
    rebuilt = round_trip(guards)
    assert rebuilt[0].source.value is REGISTRY
    assert same_verdicts(build, guards, rebuilt, [{}]) == [True]
    REGISTRY["b"] = 2
    try:
        assert same_verdicts(build, guards, rebuilt, [{}]) == [False]
    finally:
        del REGISTRY["b"]


def test_a_const_instance_without_a_global_name_is_refused():
    why = refused([Length(Const({"a": 1}, "Linear._forward_hooks"), 1)])
    assert "Linear._forward_hooks" in why


def test_a_source_kind_from_elsewhere_is_refused():
    class Doubled(Attr):
        pass

    why = refused([IsNone(Doubled(X, "y"))])
    assert "Doubled" in why


def test_a_guard_kind_from_elsewhere_is_refused():
    class Custom(IsNone):
        kind = "custom"

    why = refused([Custom(X)])
    assert "Custom" in why


def test_a_guard_whose_class_died_is_refused():
    cls = type("Gone", (), {"__module__": __name__})
    globals()["Gone"] = cls
    guard = TypeMatch(X, cls)
    del globals()["Gone"], cls
    import gc

    gc.collect()
    assert "died" in refused([guard])


# -- refusals when rebuilding ----------------------------------------------------------------------------


def rebuild_refused(records) -> str:
    guards, why = from_records(json.loads(json.dumps(records)))
    assert guards is None and isinstance(why, str), guards
    return why


def test_a_removed_function_is_refused_at_rebuild(subject):
    records, _ = to_records([Identity(X, subject.helper)])
    del subject.helper
    why = rebuild_refused(records)
    assert f"{subject.__name__}:helper" in why and "does not resolve" in why


def test_a_module_that_no_longer_imports_is_refused_at_rebuild(subject, monkeypatch):
    records, _ = to_records([TypeMatch(X, subject.Net)])
    monkeypatch.setitem(__import__("sys").modules, subject.__name__, None)  # import raises ImportError
    why = rebuild_refused(records)
    assert subject.__name__ in why and "does not import" in why


def test_a_function_with_other_code_is_refused_at_rebuild(subject):
    records, _ = to_records([Identity(X, subject.helper)])
    exec("def helper(x, y=2, *, z=(1.5, 'a')):\n    return x * y - SCALE\n", vars(subject))
    why = rebuild_refused(records)
    assert f"{subject.__name__}:helper" in why and "other code" in why


def test_a_function_with_other_defaults_is_refused_at_rebuild(subject):
    records, _ = to_records([Identity(X, subject.helper)])
    subject.helper.__kwdefaults__ = {"z": (1.5, "b")}
    why = rebuild_refused(records)
    assert "helper" in why and "default" in why


def test_a_name_reaching_another_kind_of_object_is_refused_at_rebuild(subject):
    records, _ = to_records([TypeMatch(X, subject.Net)])
    subject.Net = subject.helper
    assert "not a class" in rebuild_refused(records)


def test_a_class_with_other_bases_is_refused_at_rebuild(subject):
    records, _ = to_records([TypeMatch(X, subject.Net)])
    exec("class Net(torch.nn.Sequential):\n    pass\n", vars(subject))  # the same name, another base
    why = rebuild_refused(records)
    assert f"{subject.__name__}:Net" in why and "other bases" in why


def test_an_unknown_kind_or_format_is_refused():
    records, _ = to_records([IsNone(X)])
    assert "unknown kind 'mystery'" in rebuild_refused([{**records[0], "kind": "mystery"}])
    assert "format 99" in rebuild_refused([{**records[0], "format": 99}])
    assert "format None" in rebuild_refused([{k: v for k, v in records[0].items() if k != "format"}])
    assert "unknown source kind 'Doubled'" in rebuild_refused([{**records[0], "source": {"s": "Doubled", "name": "x"}}])
    assert "unknown value tag" in rebuild_refused(
        [{"format": FORMAT, "kind": "const", "source": records[0]["source"], "value": {"t": "pickle", "v": ""}}])


@pytest.mark.parametrize("bad", [
    {"kind": "len", "n": "2"},
    {"kind": "len", "n": True},
    {"kind": "const", "value": {"t": "int", "v": 1.5}},
    {"kind": "const", "value": {"t": "bool", "v": 1}},
    {"kind": "dict_contains", "key": {"t": "str", "v": "a"}, "present": 1},
    {"kind": "type", "type": {"t": "none"}},
    {"kind": "tensor", "type": {"t": "class", "module": "torch", "path": "Tensor"}},
])
def test_malformed_records_are_refused(bad):
    record = {"format": FORMAT, "source": {"s": "Local", "name": "x"}, **bad}
    assert "record 0" in rebuild_refused([record])


def test_a_dispatch_key_this_torch_lacks_is_refused():
    records, _ = to_records([TensorMatch(X, torch.zeros(2))])
    records[0]["dispatch_keys"].append("NoSuchKey")
    assert "NoSuchKey" in rebuild_refused(records)


def _inlined_helper(x):
    return x + 1


def test_an_identity_guard_on_a_code_object_is_rebuilt_from_the_frame():
    from loom_guards import Attr, Global, Identity, compile, from_records, to_records

    guard = Identity(Attr(Global("_inlined_helper"), "__code__"), _inlined_helper.__code__)
    records, why = to_records([guard])
    assert why is None and "code" in records[0]
    rebuilt, why = from_records(json.loads(json.dumps(records)), frame=_FrameView(globals()))
    assert why is None and compile(rebuilt)(_FrameView(globals()))
    assert from_records(records)[0] is None  # no frame to read the code object from: refused
    other = dict(globals(), _inlined_helper=lambda x: x - 1)
    refused, why = from_records(records, frame=_FrameView(other))
    assert refused is None and "other code" in why


class _FrameView:
    """What guards read a frame through: locals, globals, builtins, closure."""

    def __init__(self, f_globals):
        self.f_locals = {}
        self.f_globals = f_globals
        self.f_builtins = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)
        self.closure = None


def test_a_set_constant_is_rebuilt_to_iterate_in_its_recorded_order(build):
    # 9 added before 1: both start at slot 1 of an 8-slot table, so this set iterates 9 first; the description
    # of a set is sorted, and a set rebuilt from it would iterate 1 first
    reordered = {9, 1}
    guards = [ConstantMatch(X, reordered), ConstantMatch(Local("f"), frozenset(reordered)), SetMembers(Y, reordered)]
    assert list(reordered) == [9, 1] and list(frozenset(reordered)) == [9, 1]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    assert list(rebuilt[0].value) == [9, 1] and list(rebuilt[1].value) == [9, 1]
    good = {"x": {9, 1}, "f": frozenset({9, 1}), "y": {9, 1}}
    frames = [good, {**good, "x": {1, 9}}, {**good, "f": frozenset({1, 9})}, {**good, "y": {1, 9}}]
    assert same_verdicts(build, guards, rebuilt, frames) == [True, False, False, False]


def test_a_set_constant_whose_order_cannot_be_made_again_is_refused():
    # only 2 and 17 are left of a set that grew to 32 slots: it iterates 2 first, a fresh {2, 17} 17 first
    grown = set(range(20))
    for i in range(20):
        if i not in (2, 17):
            grown.discard(i)
    assert list(grown) == [2, 17] and list({2, 17}) == [17, 2]
    records, why = to_records([ConstantMatch(X, grown)])
    assert records is not None, why
    guards, why = from_records(records)
    assert guards is None and "iterates in another order" in why
