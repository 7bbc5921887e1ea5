"""``operator.itemgetter``/``attrgetter``/``methodcaller`` objects passed in (issue 29, after PyTorch's
test/dynamo/test_functions.py and cpython/3_13/test_operator.py): a call is traced through the stand-in one made
in the frame goes through, guarded on what the object was made with. It was a break ("__call__ of itemgetter:
not a Python method")."""

import operator
import types

import torch

import loom


def _check(fn, *args):
    loom.reset()
    expected = fn(*args)
    report = loom.explain(fn)(*args)
    actual = loom.compile(fn, backend="eager")(*args)
    torch.testing.assert_close(actual, expected)
    assert (report.graph_count, report.graph_break_count) == (1, 0), [b.why for b in report.breaks]


def test_an_itemgetter_passed_in_is_traced():
    _check(lambda x, get: get({"w": x * 2, "b": 1.0}), torch.ones(3), operator.itemgetter("w"))
    _check(lambda x, get: get([x, x + 1, x * 3]), torch.ones(3), operator.itemgetter(2, 0))


def test_an_attrgetter_passed_in_reads_dotted_names():
    holder = types.SimpleNamespace(inner=types.SimpleNamespace(scale=3.0), shift=1.0)
    _check(lambda x, get, h: x * get(h)[0] + get(h)[1], torch.ones(3), operator.attrgetter("inner.scale", "shift"),
           holder)


def test_a_methodcaller_with_keywords_passed_in():
    _check(lambda x, call: call(x), torch.arange(3.0), operator.methodcaller("clamp", min=1.0))
    _check(lambda x, call: call(x), torch.arange(3.0), operator.methodcaller("add", 2, alpha=3))


def test_another_getter_recompiles_and_the_same_one_does_not():
    loom.reset()
    compiled = loom.compile(lambda x, get: get([x, x * 2]), backend="eager")
    x = torch.ones(2)
    assert torch.equal(compiled(x, operator.itemgetter(1)), x * 2)
    assert torch.equal(compiled(x, operator.itemgetter(1)), x * 2)
    assert loom.stats()["recompiles"] == 0
    assert torch.equal(compiled(x, operator.itemgetter(0)), x)
    assert torch.equal(compiled(x, operator.itemgetter(True)), x * 2)  # True is not 1 to the guard
    assert loom.stats()["recompiles"] == 2


def test_the_object_itself_is_what_the_frame_returns():
    get = operator.itemgetter(0)
    loom.reset()
    out, same = loom.compile(lambda x, g: (g([x]), g), backend="eager")(torch.ones(1), get)
    assert same is get and torch.equal(out, torch.ones(1))


def test_a_methodcaller_holding_a_tensor_stays_opaque():
    y = torch.full((2,), 2.0)
    call = operator.methodcaller("mul", y)
    loom.reset()
    fn = lambda x, c: c(x) + 1
    assert torch.equal(loom.compile(fn, backend="eager")(torch.ones(2), call), torch.full((2,), 3.0))
    assert loom.explain(fn)(torch.ones(2), call).graph_break_count == 1
