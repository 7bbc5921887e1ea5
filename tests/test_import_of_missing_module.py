"""``import name`` of a module no finder knows, inside the frame: Python's ModuleNotFoundError, which an
``except ImportError`` in the frame catches (the common optional-dependency probe). It broke the graph
("the module is not imported yet"); finding that nothing can be imported runs no module's code, so the
trace raises it, and recompiles once the name is in ``sys.modules``."""

import sys
import types

import pytest
import torch

import loom

_NAME = "loom_tests_no_such_module_anywhere"


def _probe(x):
    try:
        import loom_tests_no_such_module_anywhere  # noqa: F401

        return x + 1
    except ImportError:
        pass
    return x.sin()


def _unguarded(x):
    import loom_tests_no_such_module_anywhere  # noqa: F401

    return x


def test_failed_import_caught_in_one_graph():
    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(_probe)(x)
    assert torch.equal(report.result, x.sin())
    assert report.graph_count == 1 and report.break_count == 0


def test_failed_import_escapes_as_in_eager():
    loom.reset()
    with pytest.raises(ModuleNotFoundError, match=f"No module named '{_NAME}'"):
        loom.compile(_unguarded, backend="eager")(torch.arange(3.0))


def test_module_put_in_sys_modules_later_is_imported():
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(_probe, backend="eager")
    assert torch.equal(compiled(x), x.sin())
    sys.modules[_NAME] = types.ModuleType(_NAME)
    try:
        assert torch.equal(compiled(x), x + 1)
    finally:
        del sys.modules[_NAME]


def _probe_message(x):
    try:
        import loom_tests_no_such_module_anywhere  # noqa: F401
    except ImportError as e:
        return x.cos(), str(e), repr(e), e.name, type(e).__name__
    return x, "", "", None, ""


def test_failed_import_error_text_and_name():
    """The error's text comes from a twin made with its ``name`` and ``path`` keywords (it had none: a break)."""
    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(_probe_message)(x)
    assert report.result[1:] == _probe_message(x)[1:]
    assert report.graph_count == 1 and report.break_count == 0
