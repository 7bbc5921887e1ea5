"""``from module import name`` where the loaded module has no such name, inside the frame: Python's
ImportError, which an ``except ImportError`` in the frame catches (the optional-feature probe). It broke the
graph ("not found as an attribute") and, at IMPORT_FROM, could not split, so the whole frame ran eagerly.
The trace now raises the interpreter's own ImportError (its text and ``name``/``path``/``name_from`` differ
by version), and recompiles once the module gains the name."""

import sys
import types

import pytest
import torch

import loom

_MODULE = "loom_tests_module_without_feature"


@pytest.fixture
def user_module():
    module = types.ModuleType(_MODULE)
    module.__file__ = f"/nowhere/{_MODULE}.py"
    sys.modules[_MODULE] = module
    yield module
    del sys.modules[_MODULE]


def _probe(x):
    try:
        from loom_tests_module_without_feature import fast_path

        return fast_path(x)
    except ImportError as e:
        return x.sin(), str(e), e.name, e.path


def _probe_stdlib(x):
    try:
        from os import loom_tests_not_in_os  # noqa: F401
    except ImportError as e:
        return x.cos(), str(e), e.name
    return x


def _unguarded(x):
    from loom_tests_module_without_feature import fast_path

    return fast_path(x)


def test_missing_name_caught_in_one_graph(user_module):
    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(_probe)(x)
    expected = _probe(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1:] == expected[1:]
    assert "cannot import name 'fast_path'" in report.result[1]
    assert report.graph_count == 1 and report.break_count == 0


def test_missing_name_in_a_stdlib_module(user_module):
    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(_probe_stdlib)(x)
    expected = _probe_stdlib(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1:] == expected[1:]
    assert report.graph_count == 1 and report.break_count == 0


def test_missing_name_escapes_as_in_eager(user_module):
    loom.reset()
    with pytest.raises(ImportError, match="cannot import name 'fast_path'") as caught:
        loom.compile(_unguarded, backend="eager")(torch.arange(3.0))
    assert caught.value.name == _MODULE


def test_name_added_later_is_imported(user_module):
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(_probe, backend="eager")
    assert torch.equal(compiled(x)[0], x.sin())
    user_module.fast_path = lambda t: t + 1
    assert torch.equal(compiled(x), x + 1)


def test_submodule_in_sys_modules_is_found(user_module):
    """CPython's IMPORT_FROM falls back to ``sys.modules['pkg.name']`` (a circular import): the value is that
    module, never an ImportError."""
    x = torch.arange(3.0)
    loom.reset()
    submodule = types.ModuleType(f"{_MODULE}.fast_path")
    sys.modules[f"{_MODULE}.fast_path"] = submodule
    try:
        compiled = loom.compile(_probe_submodule, backend="eager")
        assert compiled(x) is submodule
    finally:
        del sys.modules[f"{_MODULE}.fast_path"]


def _probe_submodule(x):
    try:
        from loom_tests_module_without_feature import fast_path

        return fast_path
    except ImportError:
        return None
