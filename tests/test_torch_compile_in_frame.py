"""``torch.compile`` reached from a loom-compiled frame: ``torch.compile(fn)(x)`` called in the frame, the
decorator form on a nested function, a module compiled in the frame, and a wrapper torch.compile made before
the frame (a global). Each traces what it wraps into the caller's graph, as torch.compile does for a compiled
function reached from a compiled frame. Before, the wrapper (torch's code, taken for a ``disable`` wrapper)
was a graph break and ran natively: dynamo's frame hook then sat over loom's, and dynamo traced loom's own
callback and raised (``Cannot construct ConstantVariable``)."""

from __future__ import annotations

import torch

import loom


def _scaled(x, c=None):
    if c is None:
        c = 2
    return c * x


_COMPILED_BEFORE = torch.compile(_scaled, backend="eager")
torch.manual_seed(0)
_LINEAR = torch.nn.Linear(3, 3)


def compile_called_in_frame(x):
    return torch.compile(_scaled, backend="eager")(x) + 1


def compiled_global_called(x):
    return _COMPILED_BEFORE(x, 3) - 1


def decorator_in_frame(x):
    @torch.compile(backend="eager")
    def inner(y):
        return y.sin() * 2

    return inner(x) + 1


def module_compiled_in_frame(x):
    return torch.compile(_LINEAR, backend="eager")(x) * 2


def wrapper_escapes(x):
    made = torch.compile(_scaled, backend="eager")
    return made(x), made


def _check(fn, x, graphs=1, breaks=0):
    expected = fn(x)
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(result, expected)
    report = loom.explain(fn)(x)
    assert (report.graph_count, report.break_count) == (graphs, breaks), report
    return result


def test_compile_called_in_frame_is_traced():
    _check(compile_called_in_frame, torch.arange(3.0))


def test_wrapper_made_before_the_frame_is_traced():
    _check(compiled_global_called, torch.arange(3.0))


def test_decorator_form_in_frame():
    _check(decorator_in_frame, torch.arange(3.0))


def test_module_compiled_in_frame():
    with torch.no_grad():
        _check(module_compiled_in_frame, torch.arange(3.0))


def test_wrapper_made_in_frame_escapes_as_torch_compile_wrapper():
    x = torch.arange(3.0)
    torch.compile(_scaled, backend="eager")  # torch.compile's first call imports its backends: not in the trace
    loom.reset()
    result, made = loom.compile(wrapper_escapes, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(result, x * 2)
    assert made is not _scaled and made._torchdynamo_inline is _scaled  # the real wrapper, made at run time
    assert loom.stats()["graph_breaks"] == 0, loom.stats()
    torch.testing.assert_close(made(x, 5), x * 5)


def builtin_compiled_in_frame(x):
    return torch.compile(torch.sin, backend="eager")(x) + 1


def module_list_truth(x):
    empty = torch.compile(torch.nn.ModuleList(), backend="eager")
    filled = torch.compile(torch.nn.ModuleList([torch.nn.ReLU()]), backend="eager")
    return x + (1 if empty else 2) + (10 if filled else 20)


def test_torch_function_compiled_in_frame():
    _check(builtin_compiled_in_frame, torch.arange(3.0))


def test_compiled_module_list_truth_is_its_length():
    _check(module_list_truth, torch.arange(3.0))


def backend_made_in_frame(x):
    compiled = torch.compile(_scaled, backend=lambda gm, inputs: gm.forward)
    return compiled(x) + 1, compiled


def test_backend_made_in_frame_is_handed_back_with_the_wrapper():
    x = torch.arange(3.0)
    torch.compile(_scaled, backend="eager")
    loom.reset()
    result, made = loom.compile(backend_made_in_frame, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(result, x * 2 + 1)
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
    assert made._torchdynamo_inline is _scaled
    torch.testing.assert_close(made(x, 4), x * 4)


def wrapper_attributes_in_frame(x):
    made = torch.compile(_scaled, backend="eager")
    module = torch.compile(_LINEAR, backend="eager")
    return (made(x), made.__name__, made._torchdynamo_orig_callable is _scaled, made.__wrapped__ is _scaled,
            module._orig_mod is _LINEAR, module.out_features)


def test_wrapper_attributes_read_in_frame():
    x = torch.arange(3.0)
    loom.reset()
    result = loom.compile(wrapper_attributes_in_frame, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(result[0], x * 2)
    assert result[1:] == ("_scaled", True, True, True, 3)
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
