"""``with warnings.catch_warnings():`` inside compiled code: the block (its entry, the ``simplefilter`` /
``filterwarnings`` / ``resetwarnings`` calls, the warnings made in it, its exit) is made after the graph in
program order, so one graph is captured (torch.compile skips the frame) and eager's warnings come out, with
``warnings.filters`` left as eager leaves it. Where the trace would read state the replay changes (a
``record=True`` list, ``warnings.filters``), a warning turned into an error, or a break inside the block,
the break goes to the manager and the rest runs as ordinary Python, with eager's answer."""

from __future__ import annotations

import io
import warnings

import pytest
import torch

import loom

X = torch.arange(3.0)
SINK: list = []


@torch.compiler.disable
def _opaque(t):
    return t * 3


def ignore_all(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.warn("deprecated", stacklevel=1)
        y = x + 1
    return y * 2


def ignore_one_category(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        warnings.warn("hidden", stacklevel=1)
        warnings.warn("shown inside", FutureWarning, stacklevel=1)
        y = x + 1
    warnings.warn("shown after", stacklevel=1)
    return y * 2


def nested_blocks(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.warn("a", stacklevel=1)
        with warnings.catch_warnings(action="always", category=UserWarning):
            warnings.warn("b", stacklevel=1)
            warnings.resetwarnings()
            warnings.warn("c", RuntimeWarning, stacklevel=1)
        warnings.warn("d", stacklevel=1)
        y = x * 2
    warnings.warn("e", stacklevel=1)
    return y + 1


def filter_by_message(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="old api", category=DeprecationWarning)
        warnings.warn("old api is going away", DeprecationWarning, stacklevel=1)
        warnings.warn("new api", DeprecationWarning, stacklevel=1)
        y = x - 1
    return y


def exception_caught_outside_the_block(x):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.warn("inside", stacklevel=1)
            raise ValueError("stop")
    except ValueError:
        y = x + 1
    warnings.warn("outside", stacklevel=1)
    return y


def error_filter(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SINK.append(1)
        y = x + 1
        warnings.warn("raised", stacklevel=1)
    return y * 2


def break_inside(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.warn("hidden", stacklevel=1)
        y = _opaque(x + 1)
        warnings.warn("dep", FutureWarning, stacklevel=1)
    warnings.warn("after", stacklevel=1)
    return y * 2


def recorded(x):
    y = x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        warnings.warn("r", stacklevel=1)
        y = y + len(w)
    return y


def reads_filters(x):
    y = x + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = len(warnings.filters)
    return y + n


def assigns_showwarning(x):
    with warnings.catch_warnings():
        warnings.showwarning = lambda message, *rest, **kw: SINK.append(str(message))
        warnings.warn("to the program's function", stacklevel=1)
        y = x + 1
    return y


def uncaught(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SINK.append(2)
        raise ValueError("out")


def _observe(call, outer="always"):
    """What ``call()`` shows (under an outer ``catch_warnings(record=True)``), returns or raises, and whether
    it leaves ``warnings.filters`` and ``showwarning`` as it found them."""
    SINK.clear()
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter(outer)
        before, show = list(warnings.filters), warnings.showwarning
        try:
            result = call()
        except Exception as exc:  # the program's own exception is part of its behaviour
            result = (type(exc), str(exc))
        left_alone = warnings.filters == before and warnings.showwarning is show
    if isinstance(result, torch.Tensor):
        result = result.tolist()
    shown = [(str(w.message), w.category, w.filename, w.lineno) for w in log]
    return shown, result, left_alone, list(SINK)


def _compare(fn, calls=2, outer="always"):
    expected = _observe(lambda: fn(X), outer)
    compiled = loom.compile(fn)
    for _ in range(calls):
        assert _observe(lambda: compiled(X), outer) == expected
    assert expected[2]


CAPTURED = [ignore_all, ignore_one_category, nested_blocks, filter_by_message, exception_caught_outside_the_block]


@pytest.mark.parametrize("fn", CAPTURED, ids=lambda f: f.__name__)
def test_block_captured_in_one_graph_with_eager_warnings(fn):
    _compare(fn)
    with warnings.catch_warnings(record=True):
        report = loom.explain(fn)(X)
    assert len(report.graphs) == 1 and report.breaks == []


@pytest.mark.parametrize("fn", CAPTURED, ids=lambda f: f.__name__)
def test_block_under_default_filters(fn):
    globals().pop("__warningregistry__", None)
    _compare(fn, outer="default")


def test_torch_compile_skips_such_a_frame():
    torch._dynamo.reset()
    try:
        assert torch._dynamo.explain(ignore_all)(X).graph_count == 0
    finally:
        torch._dynamo.reset()


def test_outer_filters_changed_compiles_again():
    """The filters a warning in the block meets are the outer ones changed by the block: guarded so."""
    compiled = loom.compile(ignore_one_category)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        compiled(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        with pytest.raises(FutureWarning, match="shown inside"):
            compiled(X)
        with pytest.raises(FutureWarning, match="shown inside"):
            ignore_one_category(X)


_STREAM_PROGRAM = """
import sys, warnings, torch, loom
import sympy  # noqa: F401  (loom imports it on its first compile, which adds a filter of its own)

def shows(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.warn("kept", UserWarning, stacklevel=1)
        warnings.warn("dropped", DeprecationWarning, stacklevel=1)
    warnings.warn("after", DeprecationWarning, stacklevel=1)
    return x + 1

warnings.simplefilter("always")
(loom.compile(shows) if sys.argv[1] == "loom" else shows)(torch.ones(2))
print(warnings.filters)
"""


def test_stream_output_is_eagers():
    """Outside pytest's own recording: what goes to stderr, and the filters left, are eager's."""
    import subprocess
    import sys

    runs = [subprocess.run([sys.executable, "-c", _STREAM_PROGRAM, way], capture_output=True, text=True, check=True)
            for way in ("eager", "loom")]
    assert runs[0].stderr == runs[1].stderr and runs[0].stdout == runs[1].stdout
    assert "kept" in runs[0].stderr and "after" in runs[0].stderr and "dropped" not in runs[0].stderr


@pytest.mark.parametrize("fn", [error_filter, break_inside, recorded, reads_filters, uncaught, assigns_showwarning],
                         ids=lambda f: f.__name__)
def test_what_cannot_be_made_later_runs_natively_with_eagers_answer(fn):
    _compare(fn)


@pytest.mark.parametrize(("fn", "what"), [
    (break_inside, "call to _opaque"),
    (recorded, "catch_warnings(record=True)"),
    (reads_filters, "reading warnings.filters inside a warnings.catch_warnings block"),
    (assigns_showwarning, "assigning warnings.showwarning inside a warnings.catch_warnings block"),
])
def test_break_goes_to_the_manager_and_names_the_construct(fn, what):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        report = loom.explain(fn)(X)
    assert len(report.breaks) == 1 and what in report.breaks[0].reason.what
    assert report.breaks[0].reason.rest_as_is
    # the code before the manager is one graph (none where the block opens the function)
    assert len(report.graphs) == (1 if fn in (recorded, reads_filters) else 0)


def test_error_filter_raises_at_the_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        before = list(warnings.filters)
        SINK.clear()
        with pytest.raises(UserWarning, match="raised"):
            loom.compile(error_filter)(X)
        assert SINK == [1] and warnings.filters == before


def test_stderr_untouched_by_a_hidden_warning(capsys):
    loom.compile(ignore_all)(X)
    assert "deprecated" not in capsys.readouterr().err


def test_replay_helpers_leave_no_manager_behind():
    from loom_symbolic.variables import warnings_blocks

    with warnings.catch_warnings(record=True):
        loom.compile(nested_blocks)(X)
    assert getattr(warnings_blocks._ENTERED, "stack", []) == []


def test_print_inside_the_block_keeps_its_place(capsys):
    def prints(x):
        print("before")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print("inside")
            warnings.warn("hidden", stacklevel=1)
        print("after")
        return x + 1

    out = io.StringIO()
    loom.compile(prints)(X)
    out.write(capsys.readouterr().out)
    assert out.getvalue() == "before\ninside\nafter\n"


def _shown_by_a_function(call):
    """What a ``showwarning`` function of the program's receives during ``call()``."""
    shown = []

    def show(message, category, filename, lineno, file=None, line=None):
        shown.append((str(message), category, lineno))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        result = call()
        assert warnings.showwarning is show
    return shown, result.tolist()


@pytest.mark.parametrize(("fn", "graphs", "breaks"), [(ignore_all, 1, 0), (ignore_one_category, 0, 1)],
                         ids=["ignored_never_reaches_it", "shown_breaks_at_the_manager"])
def test_a_showwarning_function_of_the_program(fn, graphs, breaks):
    """A warning the block ignores never reaches ``showwarning`` (made after the graph); one it shows would
    run the program's function: the break goes to the manager."""
    expected = _shown_by_a_function(lambda: fn(X))
    compiled = loom.compile(fn)
    assert _shown_by_a_function(lambda: compiled(X)) == expected
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks)


def manager_made_before_a_break(x):
    quiet = warnings.catch_warnings(action="ignore")
    y = _opaque(x)
    with quiet:
        warnings.warn("hidden", stacklevel=1)
        y = y + 1
    warnings.warn("shown", stacklevel=1)
    return y


_GLOBAL_QUIET = warnings.catch_warnings()


def enters_a_global_manager(x):
    with _GLOBAL_QUIET:
        warnings.simplefilter("ignore")
        warnings.warn("hidden", stacklevel=1)
        y = x + 1
    return y


def test_a_manager_made_before_a_break_is_entered_after_it():
    """The resume function reads the real manager: its block is captured there, the replay entering that object."""
    _compare(manager_made_before_a_break)
    with warnings.catch_warnings(record=True):
        report = loom.explain(manager_made_before_a_break)(X)
    assert [b.reason.what for b in report.breaks] == ["call to _opaque"]
    assert len(report.graphs) == 1 and "resume" in report.graphs[0].frame  # the block's graph, after the break


def test_a_global_manager_is_entered_once_as_eager_does():
    """The replay enters the program's object itself: a second call raises eager's RuntimeError."""
    global _GLOBAL_QUIET
    for fn in (enters_a_global_manager, loom.compile(enters_a_global_manager)):
        _GLOBAL_QUIET = warnings.catch_warnings()
        before = list(warnings.filters)
        torch.testing.assert_close(fn(X), X + 1)
        assert _GLOBAL_QUIET._entered and warnings.filters == before
        with pytest.raises(RuntimeError, match="Cannot enter"):
            fn(X)
        assert warnings.filters == before
    assert loom.stats()["graphs"] >= 1
