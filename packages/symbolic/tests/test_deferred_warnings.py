"""``warnings.warn`` in compiled code (issue 29): a call with constant arguments is made by the rewritten
code after the graph, naming the frame ``stacklevel`` names, so the warning eager gives (category,
message, file, line, the "once"/"default" registries) comes out and the graph is not split. Where the
filters make it an error, a function of the program's shows it, or the trace reads the list that
``catch_warnings(record=True)`` collects into after it, the call stays a graph break."""

import warnings

import pytest
import torch
from harness import run_rewritten

from loom_symbolic import translate_function

X = torch.arange(3.0)
SEEN = []


def warns(x):
    y = x + 1
    warnings.warn("careful", DeprecationWarning, stacklevel=1)
    return y * 2


def _helper(x):
    warnings.warn("from the helper", stacklevel=2)  # names its caller's line
    return x - 1


def warns_through_a_helper(x):
    return _helper(x) + 1


def warns_then_reads_the_record(x, log):
    warnings.warn("counted", stacklevel=1)
    return x + len(log)


def _records(fn, *args, action="always", compiled=True, calls=2):
    """The warnings ``calls`` calls make (eager, or the rewritten code), and the last result."""
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter(action)
        for _ in range(calls):
            if compiled:
                translation = translate_function(fn, *args)
                result = run_rewritten(fn, translation, args, {})
            else:
                result = fn(*args)
    return [(str(w.message), w.category, w.filename, w.lineno) for w in log], result


def test_a_warning_is_made_after_the_graph_as_eager_makes_it():
    translation = translate_function(warns, X)
    assert translation.breaks == [] and len(translation.graphs) == 1
    for action in ("always", "default", "once", "ignore"):
        globals().pop("__warningregistry__", None)
        expected, want = _records(warns, X, action=action, compiled=False)
        globals().pop("__warningregistry__", None)
        actual, got = _records(warns, X, action=action)
        assert actual == expected, action
        torch.testing.assert_close(got, want)


def test_stacklevel_names_the_traced_caller():
    translation = translate_function(warns_through_a_helper, X)
    assert translation.breaks == []
    expected, _ = _records(warns_through_a_helper, X, compiled=False)
    actual, _ = _records(warns_through_a_helper, X)
    assert actual == expected and actual[0][3] == warns_through_a_helper.__code__.co_firstlineno + 1


def test_an_error_filter_keeps_the_break():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert translate_function(warns, X).breaks


def test_the_record_list_read_after_the_warning_breaks_the_graph():
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        translation = translate_function(warns_then_reads_the_record, X, log)
        assert translation.breaks
        if translation.code is not None:  # else the frame runs as it is, eager's answer
            result = run_rewritten(warns_then_reads_the_record, translation, (X, log), {})
            torch.testing.assert_close(result, X + 1)  # eager: the warning is in the list when it is counted


def test_a_plain_string_filter_matches_as_cpythons_warn_does(monkeypatch):
    """``warnings.filters`` may hold a plain string (pytest's ``-p no:warnings`` run left one): CPython's C
    ``warn`` matches it exactly, where ``action_for`` called ``.match`` on it and raised AttributeError."""
    from loom_symbolic.variables.deferred_warnings import action_for

    monkeypatch.setattr(warnings, "filters", [("error", "exact text", UserWarning, None, 0), *warnings.filters])
    assert action_for(UserWarning, "exact text", "m", 1) == "error"
    assert action_for(UserWarning, "exact text!", "m", 1) != "error"
    with pytest.raises(UserWarning):
        warnings.warn("exact text", stacklevel=1)  # the interpreter's own answer, which action_for follows
