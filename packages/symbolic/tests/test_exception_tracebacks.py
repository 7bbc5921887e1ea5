"""``__traceback__`` and ``with_traceback`` of an exception made while tracing (issue 29): None until the
trace raises it, a traceback after, set by ``with_traceback(tb)`` and ``exc.__traceback__ = tb``, all in
one graph; an exception leaving the graph has the traceback state eager gives it. A method the
translator does not model, called on such an exception at a break (``__setstate__``), acts on the object the
program holds, not on a copy rebuilt for the call (a wrong answer before); ``add_note`` is traced, and an
exception leaving the graph keeps its notes."""

import contextlib
import copy

import pytest
import torch
from harness import check, run_rewritten

from loom_symbolic import translate_function

X = torch.ones(3)


def state(exc):
    """An exception as plain values: its type, args, whether it has a traceback, and its notes."""
    return type(exc).__name__, exc.args, exc.__traceback__ is not None, getattr(exc, "__notes__", None)


def raise_with_traceback_none(x):
    try:
        raise RuntimeError("r").with_traceback(None)
    except RuntimeError as exc:
        return x + 1, exc.__traceback__ is not None, exc.args


def traceback_before_and_after_raise(x):
    exc = ValueError("v")
    before = exc.__traceback__ is None
    try:
        raise exc
    except ValueError as caught:
        after = caught.__traceback__ is not None
        returned = caught.with_traceback(None) is caught
        cleared = caught.__traceback__ is None
    return x * 2, before, after, returned, cleared


def assigned_traceback(x):
    try:
        raise KeyError("k")
    except KeyError as exc:
        exc.__traceback__ = None
        out = exc.__traceback__
    return x - 1, out


def _raises():
    raise IndexError("i")


def traceback_of_an_inlined_raise(x):
    try:
        _raises()
    except IndexError as exc:
        return x + 3, exc.__traceback__ is not None, bool(exc.__traceback__)


def traceback_given_to_another(x):
    try:
        raise ValueError("a")
    except ValueError as exc:
        other = KeyError("k").with_traceback(exc.__traceback__)
        same = other.__traceback__ is exc.__traceback__
        first = exc
    return x + 1, same, other.args, other.__traceback__ is not None, other.__traceback__ is first.__traceback__


def leaves_cleared(x):
    try:
        raise ValueError("v")
    except ValueError as exc:
        exc.with_traceback(None)
        kept = exc
    return x + 1, kept


def leaves_raised(x):
    try:
        raise ValueError("v").with_traceback(None)
    except ValueError as exc:
        kept = exc
    return x + 1, kept


def leaves_never_raised(x):
    return x + 1, RuntimeError("r").with_traceback(None)


@pytest.mark.parametrize("fn", [raise_with_traceback_none, traceback_before_and_after_raise, assigned_traceback,
                                traceback_of_an_inlined_raise, traceback_given_to_another])
def test_tracebacks_in_one_graph(fn):
    check(fn, X)


@pytest.mark.parametrize("fn", [leaves_cleared, leaves_raised, leaves_never_raised])
def test_an_exception_leaving_the_graph_has_eager_s_traceback(fn):
    translation = translate_function(fn, X)
    assert not translation.breaks, translation.dump()
    assert len(translation.graphs) == 1, translation.dump()
    out, exc = run_rewritten(fn, translation, (X,), {})
    eager_out, eager_exc = fn(X)
    torch.testing.assert_close(out, eager_out)
    assert state(exc) == state(eager_exc)


def traceback_read_before_a_reraise(x):
    try:
        try:
            raise ValueError("a")
        except ValueError as exc:
            tb = exc.__traceback__
            raise
    except ValueError:
        pass
    return x + 1, type(tb).__name__, tb is not None


def test_a_traceback_replaced_since_is_not_claimed_the_same():
    # the bare raise gave the exception a new traceback: the one read before is still a traceback
    check(traceback_read_before_a_reraise, X)


def traceback_to_a_number(x):
    try:
        RuntimeError("r").with_traceback(3)
    except TypeError as exc:
        return x - 1, exc.args
    return x + 1, ()


def test_a_traceback_that_is_not_one_is_eager_s_type_error():
    translation = translate_function(traceback_to_a_number, X)
    out = run_rewritten(traceback_to_a_number, translation, (X,), {})
    expected = traceback_to_a_number(X)
    torch.testing.assert_close(out[0], expected[0])
    assert out[1] == expected[1]


def state_set_at_a_break(x):
    y = x + 1
    seen = []
    try:
        raise ValueError("v")
    except ValueError as exc:
        seen.append(exc)
        exc.__setstate__({"n": 1})  # not modelled: the call is the break
        kept = exc
    return y * 2, kept, seen


def test_a_call_at_a_break_acts_on_the_program_s_exception():
    translation = translate_function(state_set_at_a_break, X)
    assert translation.breaks, translation.dump()
    out = run_rewritten(state_set_at_a_break, translation, (copy.deepcopy(X),), {})
    expected = state_set_at_a_break(X)
    torch.testing.assert_close(out[0], expected[0])
    assert state(out[1]) == state(expected[1])
    assert out[1].n == 1
    assert out[2][0] is out[1]  # one object, changed


def note_added_to_a_raised_exception(x):
    y = x + 1
    seen = []
    try:
        raise ValueError("v")
    except ValueError as exc:
        seen.append(exc)
        exc.add_note("n")
        kept = exc
    return y * 2, kept, seen


def note_on_a_new_exception(x):
    exc = ValueError("v")
    exc.add_note("n")
    exc.add_note("m")
    return x + 1, exc, getattr(exc, "__notes__", None)


@pytest.mark.parametrize("fn", [note_added_to_a_raised_exception, note_on_a_new_exception])
def test_add_note_in_the_graph_and_on_the_exception_leaving_it(fn):
    # add_note is traced (polyfills/exceptions.py): the exception leaves the graph with its notes list
    translation = translate_function(fn, X)
    assert not translation.breaks, translation.dump()
    assert len(translation.graphs) == 1, translation.dump()
    out = run_rewritten(fn, translation, (copy.deepcopy(X),), {})
    expected = fn(X)
    torch.testing.assert_close(out[0], expected[0])
    assert state(out[1]) == state(expected[1])
    if fn is note_added_to_a_raised_exception:
        assert out[2][0] is out[1]  # one object, noted
    else:
        assert out[2] is out[1].__notes__  # the list the program read is the exception's


def _note_error(exc, note):
    try:
        exc.add_note(note)
    except TypeError as error:
        return error.args
    return None


def note_errors(x):
    bad_notes = ValueError("v")
    bad_notes.__notes__ = ("t",)
    return x - 1, _note_error(ValueError(), 3), _note_error(bad_notes, "n")


def test_add_note_raises_eager_s_type_errors():
    check(note_errors, X)


class _KeepsExitArgs:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.exit_args = (kind, value, tb)
        return False


def exit_args_of_a_failed_body(x):
    manager = _KeepsExitArgs()
    try:
        with manager:
            raise RuntimeError("body")
    except RuntimeError as exc:
        caught = exc
    kind, value, tb = manager.exit_args
    return x * 2, kind is RuntimeError, value is caught, tb is not None


def test_exit_gets_the_raised_exception_s_traceback():
    # __exit__'s third argument is the exception's traceback, never None (CPython's WITH_EXCEPT_START)
    check(exit_args_of_a_failed_body, X)


@contextlib.contextmanager
def _swallowing(kind):
    try:
        yield
    except kind as exc:
        _SEEN.append(exc.__traceback__ is not None)


_SEEN = []


def error_swallowed_by_a_contextmanager(x):
    del _SEEN[:]
    with _swallowing(ValueError):
        x = x + 1
        raise ValueError("body")
    return x * 2, list(_SEEN)


def test_a_generator_manager_gets_the_exception_with_its_own_traceback():
    # its __exit__ throws (type, value, value's traceback) into the generator: the same exception, modelled
    check(error_swallowed_by_a_contextmanager, X)
