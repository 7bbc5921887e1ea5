"""Functions TorchScript compiled (``torch.jit.script(f)``, ``torch.jit.trace(f, example)``) called inside the frame:
loom traces the Python function torch keeps in their ``_torchdynamo_inline``, as dynamo does, so the call joins the
graph. A ``torch._C.ScriptFunction`` was an opaque C callable whose call broke the graph ("not a Python method")."""

import torch

import loom


def _plain(a, b):
    return a + b * 0.5


def _scale(a, s: float):
    return a * s + 1.0


_SCRIPTED = torch.jit.script(_plain)
_TRACED = torch.jit.trace(_plain, (torch.zeros(3), torch.zeros(3)))
_SCALE = torch.jit.script(_scale)


def _explain(fn, *args):
    loom.reset()
    report = loom.explain(fn)(*args)
    return report.graph_count, len(report.breaks)


def _call_scripted(x):
    return _SCRIPTED(x, x * 2) + 1


def _call_traced(x):
    return _TRACED(x, x - 1) + 1


def _call_handed_in(x, fn):
    return fn(x, x + 2) * 3


def test_scripted_function_joins_the_graph():
    x = torch.arange(3.0)
    assert torch.equal(loom.compile(_call_scripted)(x), _call_scripted(x))
    assert _explain(_call_scripted, x) == (1, 0)


def test_traced_function_joins_the_graph():
    x = torch.arange(3.0)
    assert torch.equal(loom.compile(_call_traced)(x), _call_traced(x))
    assert _explain(_call_traced, x) == (1, 0)


def test_script_function_handed_in_is_guarded_by_identity():
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(_call_handed_in)
    assert torch.equal(compiled(x, _SCRIPTED), _call_handed_in(x, _SCRIPTED))
    # another script function in the same argument: the guard fails and the new one is traced
    assert torch.equal(compiled(x, _TRACED), _call_handed_in(x, _TRACED))
    assert _explain(_call_handed_in, x, _SCRIPTED) == (1, 0)


def _with_constant_argument(x):
    return _SCALE(x, 2.0) + _SCALE(x, 0.5)


def test_scripted_function_with_a_float_argument():
    x = torch.arange(3.0)
    assert torch.equal(loom.compile(_with_constant_argument)(x), _with_constant_argument(x))
    assert _explain(_with_constant_argument, x) == (1, 0)


def test_script_function_returned_is_the_real_one():
    def give(x):
        return x + 1, _SCRIPTED

    y, fn = loom.compile(give)(torch.ones(2))
    assert fn is _SCRIPTED and torch.equal(y, torch.full((2,), 2.0))
