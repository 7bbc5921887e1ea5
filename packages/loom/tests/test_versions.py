"""A CPython loom-symbolic cannot translate: loom.compile warns once, explain says why (issue 15).

On 3.11 the support check is patched to answer "unsupported"; the last test runs for real only on an
interpreter the translator does not model.
"""

import sys
import warnings

import pytest
import torch

import loom
import loom_symbolic.versions as symbolic_versions

RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"


def f(x):
    return torch.sin(x) + 1


class Tiny(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


@pytest.fixture
def unsupported(monkeypatch):
    """This process as if on a CPython loom-symbolic does not model (it models only a made-up 3.99)."""
    monkeypatch.setattr(symbolic_versions, "is_supported", lambda: False)
    monkeypatch.setattr(symbolic_versions, "SUPPORTED", ((3, 99),))
    monkeypatch.setattr(loom.versions, "_warned", False)  # as in a fresh process


@pytest.fixture
def fresh_warning_state(monkeypatch):
    monkeypatch.setattr(loom.versions, "_warned", False)


def unsupported_warnings(caught):
    return [w for w in caught if issubclass(w.category, loom.UnsupportedPythonWarning)]


def test_the_warning_is_a_runtime_warning_exported_from_loom():
    assert issubclass(loom.UnsupportedPythonWarning, RuntimeWarning)
    assert "UnsupportedPythonWarning" in loom.__all__


def test_compile_warns_once_per_process_naming_the_running_and_the_supported_versions(unsupported):
    x = torch.randn(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = loom.compile(f, backend="eager")
        loom.compile(f, backend="aot_eager")
        module = loom.compile(Tiny(), backend="eager")
        assert torch.equal(compiled(x), torch.sin(x) + 1)  # runs, whatever compiled it
        assert torch.equal(module(x), torch.relu(x) * 2)
    (warning,) = unsupported_warnings(caught)
    message = str(warning.message)
    assert f"CPython {RUNNING} is not supported" in message and "3.99" in message, message
    assert "uncompiled" in message
    assert warning.filename == __file__  # it points at the user's loom.compile line, not at loom


def test_the_decorator_forms_warn_at_the_users_line(unsupported):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @loom.compile(backend="eager")
        def g(x):
            return x * 3

    (warning,) = unsupported_warnings(caught)
    assert warning.filename == __file__


def test_explain_says_why_in_one_line(unsupported):
    report = loom.explain(f)(torch.randn(4))
    expected = f"CPython {RUNNING} is not supported by loom-symbolic yet (supported: 3.99): nothing was compiled"
    assert report.unsupported_python == expected
    assert str(report).splitlines()[1] == expected


@pytest.mark.filterwarnings("ignore::loom.UnsupportedPythonWarning")  # where unsupported indeed
def test_the_check_stays_off_the_per_call_path(monkeypatch, fresh_warning_state):
    calls = []
    real = symbolic_versions.is_supported

    def counting():
        calls.append(1)
        return real()

    monkeypatch.setattr(symbolic_versions, "is_supported", counting)
    compiled = loom.compile(f, backend="eager")
    assert calls, "loom.compile() did not ask whether this CPython is supported"
    x = torch.randn(4)
    compiled(x)  # the first call compiles (where supported)
    before = len(calls)
    for _ in range(5):
        compiled(x)
    assert len(calls) == before


@pytest.mark.skipif(not symbolic_versions.is_supported(), reason="loom-symbolic does not translate this CPython")
def test_a_supported_python_neither_warns_nor_says_so(fresh_warning_state):
    with warnings.catch_warnings():
        warnings.simplefilter("error", loom.UnsupportedPythonWarning)
        compiled = loom.compile(f, backend="eager")
    compiled(torch.randn(4))
    assert loom.stats()["graphs"] == 1
    report = loom.explain(f)(torch.randn(4))
    assert report.unsupported_python is None and "not supported" not in str(report)


@pytest.mark.skipif(symbolic_versions.is_supported(), reason="loom-symbolic translates this CPython")
def test_on_this_python_everything_runs_uncompiled(fresh_warning_state):
    x = torch.randn(4)
    with pytest.warns(loom.UnsupportedPythonWarning, match=f"CPython {RUNNING}"):
        compiled = loom.compile(f, backend="eager")
    assert torch.equal(compiled(x), torch.sin(x) + 1)
    assert torch.equal(compiled(x), torch.sin(x) + 1)
    assert loom.stats()["graphs"] == 0 and loom.stats()["frames_compiled"] == 0
    report = loom.explain(f)(x)
    assert report.graph_count == 0 and "nothing was compiled" in str(report)
    # The translator refuses such frames whole (no graph break): fullgraph=True runs uncompiled too.
    assert torch.equal(loom.compile(f, fullgraph=True, backend="eager")(x), torch.sin(x) + 1)
    assert loom.stats()["graphs"] == 0
