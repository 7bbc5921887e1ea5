"""Sources: printing, equality and hashing, fetching from frames and mappings, bad input."""

from __future__ import annotations

import builtins
import enum
import pickle
import types

import pytest
import torch

from loom_guards import (
    Attr,
    Builtin,
    Closure,
    Const,
    DictAttr,
    Global,
    Item,
    Local,
    ModuleBuffer,
    ModuleParam,
    Source,
    Submodule,
    TensorSize,
    TypeOf,
)

from .helpers import FrameView, make_closure


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3)])


def test_roots_print_as_python():
    assert str(Local("x")) == "L['x']"
    assert str(Global("W")) == "G['W']"
    assert str(Builtin("len")) == "B['len']"
    assert str(Closure("scale")) == "C['scale']"
    assert str(Local(".0")) == "L['.0']"  # a comprehension's argument


def test_chained_sources_print_as_python():
    self_ = Local("self")
    layers = Submodule(self_, "layers")
    weight = ModuleParam(Submodule(layers, "0"), "weight")
    assert str(weight) == "L['self'].layers[0].weight"
    assert str(ModuleBuffer(Submodule(layers, "1"), "running_mean")) == "L['self'].layers[1].running_mean"
    assert str(Submodule(self_, "my-block")) == "L['self']._modules['my-block']"
    assert str(Attr(Local("f"), "__defaults__")) == "L['f'].__defaults__"
    assert str(Item(Attr(Local("f"), "__defaults__"), 0)) == "L['f'].__defaults__[0]"
    assert str(Item(Attr(Local("f"), "__kwdefaults__"), "k")) == "L['f'].__kwdefaults__['k']"
    assert str(Attr(Local("o"), "not an identifier")) == "getattr(L['o'], 'not an identifier')"
    assert str(Attr(Local("o"), "class")) == "getattr(L['o'], 'class')"
    assert str(Item(Local("d"), ("a", 1))) == "L['d'][('a', 1)]"
    assert str(TypeOf(Local("x"))) == "type(L['x'])"
    assert str(DictAttr(Local("m"), "_modules")) == "L['m'].__dict__['_modules']"
    assert str(TensorSize(Local("x"), 0)) == "L['x'].size()[0]"
    assert str(Const(3)) == "3"
    assert str(Attr(Global("torch"), "sin")) == "G['torch'].sin"


def test_equal_when_same_value_same_way():
    assert Attr(Local("x"), "a") == Attr(Local("x"), "a")
    assert hash(Attr(Local("x"), "a")) == hash(Attr(Local("x"), "a"))
    assert Attr(Local("x"), "a") != Attr(Global("x"), "a")
    assert Local("x") != Global("x")
    assert Attr(Local("m"), "w") != ModuleParam(Local("m"), "w")  # reached another way
    assert Item(Local("t"), 1) != Item(Local("t"), 1.0)
    assert Item(Local("t"), 1) != Item(Local("t"), True)
    assert len({Item(Local("t"), 1), Item(Local("t"), True), Item(Local("t"), 1.0)}) == 3
    assert Const(1) != Const(True)
    assert Const([1]) != Const([1])  # unhashable constants compare by identity
    lst = [1]
    assert Const(lst) == Const(lst)
    assert {Local("x"): 1}[Local("x")] == 1


def test_sources_are_immutable_and_pickle():
    src = ModuleParam(Submodule(Local("self"), "layers"), "weight")
    with pytest.raises(AttributeError):
        src.name = "bias"
    assert pickle.loads(pickle.dumps(src)) == src


def test_chain_depth_root():
    src = Item(Attr(Local("a"), "b"), 0)
    assert [str(s) for s in src.chain()] == ["L['a']", "L['a'].b", "L['a'].b[0]"]
    assert src.depth == 3
    assert src.root() == Local("a")
    assert src.base == Attr(Local("a"), "b")
    assert Local("a").base is None


def test_fetch_from_mapping_and_fallbacks():
    g = {"W": 5}
    loc = {"x": (1, [2, {"k": 3}])}
    assert Local("x").fetch(loc) == (1, [2, {"k": 3}])
    assert Item(Item(Item(Local("x"), 1), 1), "k").fetch(loc) == 3
    assert Global("W").fetch(loc, f_globals=g) == 5
    assert Builtin("len").fetch(loc) is len
    assert TypeOf(Local("x")).fetch(loc) is tuple
    assert Const("c").fetch(loc) == "c"
    with pytest.raises(KeyError):
        Local("y").fetch(loc)
    with pytest.raises(KeyError):
        Global("W").fetch(loc)  # no globals given
    with pytest.raises(KeyError):
        Global("V").fetch(loc, f_globals=g)


def test_fetch_from_frame_view():
    fn = make_closure(7)
    g = {"W": 1}
    view = FrameView({"x": 1}, f_globals=g, closure=fn.__closure__, code=fn.__code__)
    assert Local("x").fetch(view) == 1
    assert Global("W").fetch(view) == 1
    assert Builtin("len").fetch(view) is len
    assert Closure("scale").fetch(view) == 7
    # builtins given as a module, as frames of modules with __builtins__ = module have
    view2 = FrameView({}, f_builtins=builtins)
    assert Builtin("print").fetch(view2) is print


def test_fetch_closure_fallbacks():
    fn = make_closure(3)
    assert Closure("scale").fetch({}, closure=fn) == 3
    assert Closure("scale").fetch({}, closure={"scale": 4}) == 4
    assert Closure("scale").fetch({}, closure={"scale": types.CellType(5)}) == 5
    with pytest.raises(ValueError):
        Closure("scale").fetch({}, closure={"scale": types.CellType()})  # empty cell
    with pytest.raises(KeyError):
        Closure("scale").fetch({})


def test_module_members_fetch_like_getattr():
    net = Net()
    layers = Submodule(Local("self"), "layers")
    loc = {"self": net}
    assert layers.fetch(loc) is net.layers
    assert ModuleParam(Submodule(layers, "0"), "weight").fetch(loc) is net.layers[0].weight
    assert ModuleBuffer(Submodule(layers, "1"), "running_mean").fetch(loc) is net.layers[1].running_mean
    assert DictAttr(layers, "_modules").fetch(loc) is net.layers._modules
    with pytest.raises(KeyError):
        ModuleParam(Submodule(layers, "0"), "nope").fetch(loc)


def test_tensor_size_source():
    x = torch.randn(3, 5)
    assert TensorSize(Local("x"), 1).fetch({"x": x}) == 5
    assert TensorSize(Local("x"), -2).fetch({"x": x}) == 3
    with pytest.raises(TypeError):
        TensorSize(Local("x"), 0).fetch({"x": [1, 2]})


@pytest.mark.parametrize(
    "make",
    [
        lambda: Local(3),
        lambda: Global(None),
        lambda: Builtin(b"len"),
        lambda: Closure(1.0),
        lambda: Attr("x", "y"),
        lambda: Attr(Local("x"), 3),
        lambda: Item(Local("x"), [1]),
        lambda: Item(Local("x"), object()),
        lambda: Item(Local("x"), (1, [2])),
        lambda: Item(3, 0),
        lambda: TypeOf("x"),
        lambda: Submodule(Local("m"), 0),
        lambda: ModuleParam("m", "w"),
        lambda: DictAttr(Local("m"), None),
        lambda: TensorSize(Local("x"), "0"),
        lambda: TensorSize(Local("x"), 1.0),
    ],
)
def test_bad_source_input_is_a_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_empty_names_are_value_errors():
    with pytest.raises(ValueError):
        Local("")
    with pytest.raises(ValueError):
        Attr(Local("x"), "")


def test_source_base_class_is_abstract():
    with pytest.raises(NotImplementedError):
        Source().get(None)


class _Color(enum.Enum):
    RED = 1


def test_item_keys_may_be_enum_members_dtypes_and_devices():
    d = {_Color.RED: "r", torch.float16: "h", torch.device("cpu"): "c", (_Color.RED, 1): "t"}
    for key, want in zip(d, d.values()):
        assert Item(Local("d"), key).fetch({"d": d}) == want
    assert Item(Local("d"), _Color.RED) == Item(Local("d"), _Color.RED)
    assert Item(Local("d"), torch.float16) != Item(Local("d"), torch.float32)


def test_an_item_keyed_by_a_frozenset_of_literals_fetches_and_names_it():
    loc = {"d": {frozenset({1, "a"}): 7, frozenset(): 8}}
    assert Item(Local("d"), frozenset({"a", 1})).fetch(loc) == 7
    assert Item(Local("d"), frozenset()).fetch(loc) == 8
    assert Item(Local("d"), frozenset()) == Item(Local("d"), frozenset())
    with pytest.raises(TypeError):
        Item(Local("d"), frozenset({object()}))
