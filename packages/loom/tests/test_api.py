"""loom's public API: every function refuses bad arguments with a clear error; compile's call forms."""

import pytest
import torch

import loom
import loom_framehook as framehook
from loom.examples.models import TinyMLP, sin_plus_one


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"backend": 3}, TypeError, r"backend must be a registered backend name .* or a callable"),
        ({"backend": "no-such-backend"}, ValueError, "unknown loom backend 'no-such-backend'; known backends: .*eager"),
        ({"backend": ""}, ValueError, "non-empty"),
        ({"fullgraph": "yes"}, TypeError, "fullgraph must be a bool, got str"),
        ({"fullgraph": 1}, TypeError, "fullgraph must be a bool, got int"),
        ({"dynamic": "sometimes"}, TypeError, "dynamic must be None, True or False, got str"),
        ({"options": []}, TypeError, "options must be a dict or None, got list"),
        ({"options": {"colour": 1}}, ValueError, r"unknown option\(s\) \['colour'\]; known options are 'recompile_limit'"),
        ({"options": {"recompile_limit": 0}}, ValueError, "recompile_limit'] must be a positive int, got 0"),
        ({"options": {"recompile_limit": 2.5}}, TypeError, "recompile_limit'] must be a positive int, got float"),
        ({"options": {"recompile_limit": True}}, TypeError, "must be a positive int, got bool"),
        ({"options": {"raise_on_internal_error": "yes"}}, TypeError, "raise_on_internal_error'] must be a bool"),
    ],
)
def test_compile_refuses_bad_settings(kwargs, error, text):
    with pytest.raises(error, match=text):
        loom.compile(sin_plus_one, **kwargs)
    with pytest.raises(error, match=text):
        loom.compile(**kwargs)  # the decorator form checks at once too, not at decoration


def test_compile_refuses_what_is_not_callable():
    with pytest.raises(TypeError, match=r"expects a function, a method, a callable or an nn.Module, got int"):
        loom.compile(42)


def test_settings_are_keyword_only():
    with pytest.raises(TypeError):
        loom.compile(sin_plus_one, "eager")


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: loom.disable(3), TypeError, "expects a function or method, got int"),
        (lambda: loom.disable(sin_plus_one, recursive="no"), TypeError, "recursive must be a bool, got str"),
        (lambda: loom.disable(recursive=1), TypeError, "recursive must be a bool, got int"),
        (lambda: loom.disable(TinyMLP()), TypeError, "got an nn.Module; disable its forward"),
        (lambda: loom.disable(len, recursive=False), TypeError, "needs a Python function or method"),
        (lambda: loom.allow_in_graph(5), TypeError, "expects a callable, got int"),
        (lambda: loom.explain(5), TypeError, "expects a function, a callable or an nn.Module, got int"),
        (lambda: loom.explain(sin_plus_one, backend="nope"), ValueError, "unknown loom backend 'nope'"),
        (lambda: loom.explain(sin_plus_one, options={"x": 1}), ValueError, "unknown option"),
        (lambda: loom.set_logs("graph,colour"), ValueError, "unknown loom log topic 'colour'; known topics: bytecode, graph"),
        (lambda: loom.set_logs(3), TypeError, "must be a str"),
        (lambda: loom.graph_break(1), TypeError, "positional argument"),
        (lambda: loom.reset(1), TypeError, "positional argument"),
        (lambda: loom.stats(1), TypeError, "positional argument"),
        (lambda: loom.CompiledModule(sin_plus_one, None), TypeError, "wraps an nn.Module, got function"),
        (lambda: loom.CompiledModule(TinyMLP(), "eager"), TypeError, "needs a loom FrameCompiler, got str"),
        (lambda: loom.explain(sin_plus_one)(), TypeError, "missing 1 required positional argument"),
    ],
)
def test_every_public_function_refuses_bad_arguments(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_decorator_forms():
    @loom.compile
    def f(x):
        return x + 1

    @loom.compile(backend="eager", options={"recompile_limit": 2})
    def g(x):
        return x * 2

    @loom.compile()
    def h(x):
        return x - 1

    x = torch.randn(3)
    assert torch.equal(f(x), x + 1)
    assert torch.equal(g(x), x * 2)
    assert torch.equal(h(x), x - 1)
    assert (f.__name__, g.__name__, h.__name__) == ("f", "g", "h")
    assert loom.stats()["frames_compiled"] == 3


def test_backend_may_be_a_callable():
    seen = []

    def my_backend(gm, example_inputs):
        seen.append([tuple(t.shape) for t in example_inputs])
        return gm.forward

    f = loom.compile(sin_plus_one, backend=my_backend)
    x = torch.randn(4)
    assert torch.equal(f(x), torch.sin(x) + 1)
    f(torch.randn(4))
    assert seen == [[(4,)]]


def test_bound_methods_and_callable_objects():
    class Scaler:
        def __init__(self, k):
            self.k = k

        def scale(self, x):
            return torch.cos(x) * self.k

        def __call__(self, x):
            return x + self.k

    s = Scaler(3.0)
    x = torch.randn(5)
    method = loom.compile(s.scale, backend="eager")
    assert torch.equal(method(x), torch.cos(x) * 3.0)
    obj = loom.compile(s, backend="eager")
    assert torch.equal(obj(x), x + 3.0)
    assert loom.stats()["frames_compiled"] == 2
    assert len(framehook.entries(Scaler.scale.__code__)) == 1
    assert len(framehook.entries(Scaler.__call__.__code__)) == 1


def test_compiling_a_compiled_function_again_replaces_its_settings():
    seen = []

    def counting(gm, example_inputs):
        seen.append(1)
        return gm.forward

    once = loom.compile(sin_plus_one, backend="eager")
    twice = loom.compile(once, backend=counting)
    assert twice._loom_original is sin_plus_one
    twice(torch.randn(4))
    assert seen == [1]


def test_stats_and_reset():
    f = loom.compile(sin_plus_one, backend="eager")
    f(torch.randn(4))
    f(torch.randn(4))
    f(torch.randn(4, dtype=torch.float64))
    stats = loom.stats()
    assert stats["frames_compiled"] == 2 and stats["graphs"] == 2 and stats["cache_hits"] == 1
    assert stats["recompiles"] == 1 and stats["graph_breaks"] == 0
    assert set(stats) >= {"graphs", "graph_breaks", "recompiles", "frames_compiled", "cache_hits"}
    (entry, _) = framehook.entries(sin_plus_one.__code__)
    graph_names = [n for n in entry.code.co_names if n.startswith("__loom_graph_")]
    assert graph_names and all(n in sin_plus_one.__globals__ for n in graph_names)
    loom.reset()
    assert loom.stats() == dict.fromkeys(stats, 0)
    assert framehook.entries(sin_plus_one.__code__) == []
    # the compiled graphs bound in the module's globals go with their entries
    assert not any(n in sin_plus_one.__globals__ for n in graph_names)
    f(torch.randn(4))
    assert loom.stats()["frames_compiled"] == 1 and loom.stats()["recompiles"] == 0


def test_closures_lambdas_and_generator_functions():
    scale = torch.tensor(3.0)

    def closure(x):
        return x * scale

    x = torch.randn(4)
    assert torch.equal(loom.compile(closure, backend="eager")(x), x * 3)
    assert torch.equal(loom.compile(lambda t: t.exp() - 1, backend="eager")(x), x.exp() - 1)

    def gen(x):
        yield x + 1
        yield x + 2

    outs = list(loom.compile(gen, backend="eager")(x))
    assert torch.equal(outs[0], x + 1) and torch.equal(outs[1], x + 2)
    assert framehook.entries(gen.__code__) == []  # generator frames run as they are
    assert loom.stats()["frames_compiled"] == 2
