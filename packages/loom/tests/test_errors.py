"""Failure modes: graph breaks under fullgraph raise loom.Unsupported; loom's own bugs fall back to eager."""

import sys
import warnings

import pytest
import torch

import loom
import loom_framehook as framehook
import loom_symbolic


def clean(x):
    return torch.cos(x) - 1


def prints(x):
    y = x * 2
    print("y computed", file=sys.stdout)
    return y + 1


def test_fullgraph_raises_unsupported_with_the_reason_and_the_users_line(capsys):
    compiled = loom.compile(prints, fullgraph=True, backend="eager")
    with pytest.raises(loom.Unsupported) as info:
        compiled(torch.randn(3))
    err = info.value
    line = prints.__code__.co_firstlineno + 2
    assert err.location.filename == __file__ and err.location.lineno == line
    text = str(err)
    assert "print" in text and f"{__file__}:{line}" in text and 'print("y computed", file=sys.stdout)' in text
    assert "fullgraph=True" in text
    assert capsys.readouterr().out == ""  # nothing ran past the refusal


def test_fullgraph_refuses_loom_graph_break():
    def f(x):
        x = x + 1
        loom.graph_break()
        return x * 2

    with pytest.raises(loom.Unsupported, match="graph_break"):
        loom.compile(f, fullgraph=True, backend="eager")(torch.randn(2))


def test_fullgraph_compiles_what_fits_in_one_graph():
    compiled = loom.compile(clean, fullgraph=True, backend="eager")
    x = torch.randn(3)
    assert torch.equal(compiled(x), torch.cos(x) - 1)
    assert loom.stats()["graphs"] == 1


def test_without_fullgraph_a_break_splits_the_frame_around_it(capsys):
    compiled = loom.compile(prints, backend="eager")
    x = torch.randn(3)
    assert torch.equal(compiled(x), x * 2 + 1)
    assert torch.equal(compiled(x), x * 2 + 1)
    assert capsys.readouterr().out == "y computed\ny computed\n"
    stats = loom.stats()
    assert stats["graph_breaks"] == 1 and stats["graphs"] == 2 and stats["frames_compiled"] == 2
    assert stats["cache_hits"] == 2  # the second call: the frame and its resume function


def reads_its_locals(x):
    names = locals()  # a frame that reads its own locals() runs as it is where it breaks
    print("uncapturable", len(names), file=sys.stdout)  # the break (a print to a stream)
    return clean(x) * 2


def test_without_fullgraph_an_uncapturable_frame_runs_as_it_is():
    compiled = loom.compile(reads_its_locals, backend="eager")
    x = torch.randn(3)
    assert torch.equal(compiled(x), (torch.cos(x) - 1) * 2)
    assert torch.equal(compiled(x), (torch.cos(x) - 1) * 2)
    stats = loom.stats()
    assert stats["graph_breaks"] == 1
    assert framehook.is_skipped(reads_its_locals.__code__)  # decided once: later calls cost a pointer test


def test_functions_called_from_an_uncapturable_frame_are_still_compiled():
    compiled = loom.compile(reads_its_locals, backend="eager")
    x = torch.randn(3)
    compiled(x)
    assert len(framehook.entries(clean.__code__)) == 1


def failing_backend(gm, example_inputs):
    raise RuntimeError("backend exploded")


@pytest.mark.parametrize("how", [{"options": {"strict": True}}, {"fullgraph": True},
                                 {"options": {"suppress_backend_errors": False}}])
def test_a_failing_backend_raises_backend_compiler_failed_naming_it_when_strict(how):
    compiled = loom.compile(clean, backend=failing_backend, **how)
    with pytest.raises(loom.BackendCompilerFailed, match=r"backend 'failing_backend' failed on graph .* of clean "
                       r".*raised RuntimeError: backend exploded") as info:
        compiled(torch.randn(3))
    assert info.value.backend_name == "failing_backend"
    assert isinstance(info.value.__cause__, RuntimeError)
    assert "strict" in str(info.value)
    assert framehook.entries(clean.__code__) == []
    assert not any(name.startswith("__loom_") for name in clean.__globals__)  # nothing half-installed


@pytest.mark.parametrize(("result", "kind"), [(None, "NoneType"), (42, "int")])
def test_a_backend_returning_something_not_callable_raises_when_strict(result, kind):
    def returns_junk(gm, inputs):
        return result

    with pytest.raises(loom.BackendCompilerFailed, match=rf"backend 'test_a_backend.*returns_junk' .* returned {kind}, "
                       "not a callable"):
        loom.compile(clean, backend=returns_junk, options={"strict": True})(torch.randn(3))


@pytest.mark.parametrize("options", [None, {"suppress_backend_errors": True}])
def test_a_failing_backend_runs_the_frame_uncompiled_with_one_warning(options):
    """loom's ground rule is "never a crash": unlike torch.compile (which raises backend failures by
    default), a failing backend makes the frame run uncompiled, with one warning naming the cause."""
    compiled = loom.compile(clean, backend=failing_backend, options=options)
    x = torch.randn(3)
    with pytest.warns(RuntimeWarning, match=r"backend 'failing_backend' failed .*backend exploded.*runs uncompiled"):
        assert torch.equal(compiled(x), torch.cos(x) - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        assert torch.equal(compiled(x), torch.cos(x) - 1)
    assert framehook.entries(clean.__code__) == []
    assert not any(name.startswith("__loom_") for name in clean.__globals__)


def test_a_backend_failure_is_in_explain_and_the_graph_breaks_log(capsys):
    loom.set_logs("graph_breaks")
    x = torch.randn(3)
    with pytest.warns(RuntimeWarning, match="backend exploded"):
        report = loom.explain(clean, backend=failing_backend)(x)
    assert torch.equal(report.result, torch.cos(x) - 1)
    text = str(report)
    assert "Frames that ran uncompiled" in text and "backend exploded" in text
    err = capsys.readouterr().err
    assert "clean (" in err and "runs uncompiled" in err and "backend exploded" in err


def test_strict_must_be_a_bool():
    with pytest.raises(TypeError, match=r"options\['strict'\] must be a bool, got str"):
        loom.compile(clean, options={"strict": "yes"})


def test_suppress_backend_errors_must_be_a_bool():
    with pytest.raises(TypeError, match=r"options\['suppress_backend_errors'\] must be a bool, got str"):
        loom.compile(clean, options={"suppress_backend_errors": "yes"})


def test_compiling_an_eager_vmap_with_aot_eager_gives_eagers_answer():
    """Issue 28: ``loom.compile(lambda x: torch.vmap(...)(x), backend="aot_eager")`` used to raise
    BackendCompilerFailed; it now gives eager's answer (capturing vmap is another matter)."""
    def f(x):
        return torch.vmap(lambda r: r.sin() * 2)(x)

    x = torch.randn(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.allclose(loom.compile(f, backend="aot_eager")(x), f(x))


def test_a_translator_crash_is_an_internal_error(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("translator bug")

    monkeypatch.setattr(loom_symbolic, "translate", broken)
    x = torch.randn(3)
    with pytest.warns(RuntimeWarning, match="KeyError"):
        assert torch.equal(loom.compile(clean, backend="eager")(x), torch.cos(x) - 1)
    loom.reset()
    for options in ({"raise_on_internal_error": True}, {"strict": True}):
        loom.reset()
        with pytest.raises(loom.InternalError) as info:
            loom.compile(clean, options=options, backend="eager")(x)
        assert isinstance(info.value.__cause__, KeyError)


def test_errors_raised_by_the_program_itself_are_not_loom_errors():
    def bad(x):
        return x @ x.T @ torch.ones(5)  # a shape error at run time

    with pytest.raises(RuntimeError) as info:
        loom.compile(bad, backend="eager")(torch.randn(3, 4))
    assert not isinstance(info.value, (loom.InternalError, loom.Unsupported))
