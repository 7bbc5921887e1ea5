"""loom's public API: argument checking, the module wrapper, disable, allow_in_graph, reset and stats."""

import pytest
import torch

import loom
import loom_framehook as framehook
from loom.examples.models import TinyMLP, sin_plus_one


@pytest.fixture(autouse=True)
def _fresh():
    loom.reset()
    yield
    loom.reset()


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"backend": 3}, TypeError, "backend must be a registered backend name or a callable"),
        ({"backend": "no-such-backend"}, Exception, "eager"),
        ({"fullgraph": "yes"}, TypeError, "fullgraph must be a bool"),
        ({"dynamic": "sometimes"}, TypeError, "dynamic must be None, True or False"),
        ({"options": []}, TypeError, "options must be a dict"),
        ({"options": {"colour": 1}}, ValueError, "unknown option"),
        ({"options": {"recompile_limit": 0}}, ValueError, "positive int"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_error(kwargs, error, text):
    with pytest.raises(error, match=text):
        loom.compile(sin_plus_one, **kwargs)


def test_compile_refuses_what_is_not_callable():
    with pytest.raises(TypeError, match=r"expects a function or an nn\.Module"):
        loom.compile(42)


def test_decorator_forms():
    @loom.compile
    def f(x):
        return x + 1

    @loom.compile(backend="eager")
    def g(x):
        return x * 2

    x = torch.randn(3)
    assert torch.equal(f(x), x + 1)
    assert torch.equal(g(x), x * 2)
    assert f.__name__ == "f" and g.__name__ == "g"


def test_backend_may_be_a_callable():
    seen = []

    def my_backend(gm, example_inputs):
        seen.append(len(example_inputs))
        return gm

    f = loom.compile(sin_plus_one, backend=my_backend)
    x = torch.randn(4)
    assert torch.equal(f(x), torch.sin(x) + 1)
    assert seen == [1]


def test_module_wrapper_passes_state_through():
    model = TinyMLP(width=8)
    compiled = loom.compile(model)
    x = torch.randn(2, 8)
    torch.testing.assert_close(compiled(x), model(x))
    assert list(compiled.state_dict()) == list(model.state_dict())
    assert [p is q for p, q in zip(compiled.parameters(), model.parameters())] == [True] * len(list(model.parameters()))
    compiled.eval()
    assert model.training is False and compiled.training is False
    compiled.train()
    assert model.training is True
    compiled.extra = 5
    assert model.extra == 5
    assert compiled.layers is model.layers
    assert isinstance(compiled, torch.nn.Module)


def test_stats_and_reset():
    f = loom.compile(sin_plus_one)
    f(torch.randn(4))
    f(torch.randn(4))
    stats = loom.stats()
    assert stats["frames_compiled"] == 1 and stats["graphs"] == 1 and stats["cache_hits"] == 1
    assert set(stats) >= {"graphs", "graph_breaks", "recompiles", "frames_compiled", "cache_hits"}
    loom.reset()
    assert loom.stats()["frames_compiled"] == 0
    assert framehook.entries(sin_plus_one.__code__) == []


def test_disable_bad_arguments():
    with pytest.raises(TypeError, match="expects a function"):
        loom.disable(3)
    with pytest.raises(TypeError, match="recursive must be a bool"):
        loom.disable(sin_plus_one, recursive="no")


def test_allow_in_graph_refuses_non_callables():
    with pytest.raises(TypeError, match="expects a callable"):
        loom.allow_in_graph(5)


def test_skipfiles_never_skip_all_of_site_packages():
    import os
    import sysconfig

    from loom import skipfiles

    site = sysconfig.get_paths()["purelib"].rstrip(os.sep) + os.sep
    assert site not in skipfiles._PACKAGE_PATHS and site not in skipfiles._STDLIB_PATHS
    fake = compile("def f(): pass", os.path.join(site, "some_library", "model.py"), "exec").co_consts[0]
    assert not skipfiles.is_library_code(fake)
    torch_code = torch.nn.Module.__call__.__code__
    assert skipfiles.is_library_code(torch_code)
