"""Exception chains (PEP 3134) inside traced code: an exception raised while another is handled gets it
as ``__context__`` (across inlined calls and generators too), ``raise ... from ...`` sets ``__cause__``
and ``__suppress_context__``, a bare ``raise`` leaves the chain alone, and an exception made while
tracing keeps its chain when it leaves the graph (issue 29, wrong answer 4)."""
# ruff: noqa: B904  (raising inside except without "from" is what these tests are about)

import copy

import pytest
import torch
from harness import assert_same, run_rewritten

from loom_symbolic import translate_function

X = torch.ones(3)


def chain_of(exc):
    """The chain as plain values: (type, args, suppress) of each link through __context__, and causes."""
    links = []
    while exc is not None and len(links) < 5:  # the chains here end before five links
        cause = exc.__cause__
        links.append((type(exc).__name__, exc.args, exc.__suppress_context__,
                      None if cause is None else (type(cause).__name__, cause.args)))
        exc = exc.__context__
    return links


def except_then_finally(x):
    try:
        try:
            try:
                raise TypeError("t")
            except TypeError:
                raise ValueError("v")
        finally:
            raise OSError("o")
    except OSError as exc:
        return x + 1, chain_of(exc), exc.__context__.__context__.__context__ is None


def raise_from(x):
    try:
        try:
            raise KeyError("k")
        except KeyError as inner:
            raise ValueError("v") from inner
    except ValueError as exc:
        return x + 1, chain_of(exc), exc.__cause__ is exc.__context__


def raise_from_a_class(x):
    try:
        raise ValueError("v") from IndexError
    except ValueError as exc:
        return x + 1, chain_of(exc)


def raise_from_none(x):
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise ValueError("v") from None
    except ValueError as exc:
        return x + 1, chain_of(exc), exc.__cause__ is None, exc.__suppress_context__


def fail(message):
    raise RuntimeError(message)


def raised_in_a_called_function(x):
    try:
        try:
            raise TypeError("outer")
        except TypeError:
            fail("inner")
    except RuntimeError as exc:
        return x + 1, chain_of(exc)


def raised_by_an_operation(x):
    try:
        try:
            raise TypeError("outer")
        except TypeError:
            {}["missing"]
    except KeyError as exc:
        return x + 1, type(exc.__context__).__name__, exc.__context__.args


def bare_raise_keeps_the_chain(x):
    try:
        try:
            raise TypeError("first")
        except TypeError:
            try:
                raise ValueError("second")
            except ValueError:
                raise
    except ValueError as exc:
        return x + 1, chain_of(exc)


def raising_the_handled_exception_again(x):
    try:
        try:
            raise TypeError("same")
        except TypeError as exc:
            raise exc
    except TypeError as exc:
        return x + 1, exc.__context__ is None


def a_cycle_is_cut(x):
    try:
        try:
            raise TypeError("a")
        except TypeError as a:
            try:
                raise ValueError("b")
            except ValueError:
                raise a
    except TypeError as exc:
        return x + 1, type(exc.__context__).__name__, exc.__context__.__context__ is None


def chain_set_by_assignment(x):
    exc = ValueError("v")
    exc.__cause__ = KeyError("k")
    cause_suppresses = exc.__suppress_context__
    exc.__context__ = TypeError("t")
    exc.__suppress_context__ = False
    return x + 1, chain_of(exc), cause_suppresses


def failing_generator():
    yield 1
    raise ValueError("in the generator")


def raised_in_a_generator_resumed_in_a_handler(x):
    gen = failing_generator()
    next(gen)
    try:
        try:
            raise TypeError("handled")
        except TypeError:
            next(gen)
    except ValueError as exc:
        return x + 1, chain_of(exc)


def a_cycle_made_by_the_program(x):
    try:
        try:
            raise ValueError(1)
        except ValueError as inner:
            inner.__context__ = inner
            raise TypeError(2)
    except TypeError as exc:
        return x + 1, chain_of(exc)


def a_longer_cycle_made_by_the_program(x):
    try:
        try:
            raise AssertionError
        except AssertionError as a:
            try:
                raise BytesWarning
            except BytesWarning:
                try:
                    raise ConnectionError
                except ConnectionError as c:
                    a.__context__ = c
                    try:
                        raise DeprecationWarning
                    except DeprecationWarning:
                        raise OSError(5)
    except OSError as exc:
        return x + 1, chain_of(exc)


CASES = [except_then_finally, raise_from, raise_from_a_class, raise_from_none, raised_in_a_called_function,
         raised_by_an_operation, bare_raise_keeps_the_chain, raising_the_handled_exception_again, a_cycle_is_cut,
         chain_set_by_assignment, raised_in_a_generator_resumed_in_a_handler, a_cycle_made_by_the_program,
         a_longer_cycle_made_by_the_program]


def _translate_and_run(fn, *args):
    translation = translate_function(fn, *copy.deepcopy(args))
    assert not translation.breaks, translation.dump()
    assert len(translation.graphs) == 1, translation.dump()
    return run_rewritten(fn, translation, copy.deepcopy(args), {})


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_chains_match_eager(fn):
    assert_same(_translate_and_run(fn, X), fn(X))


def made_in_a_handler(x):
    try:
        raise KeyError("k")
    except KeyError as inner:
        try:
            raise ValueError("v") from inner
        except ValueError as exc:
            return x + 1, exc


def made_from_none(x):
    try:
        raise KeyError("k")
    except KeyError:
        try:
            raise ValueError("v") from None
        except ValueError as exc:
            return x + 1, exc


def made_in_a_finally_block(x):
    try:
        try:
            raise TypeError("t")
        finally:
            try:
                raise OSError("o")
            except OSError as exc:
                return x + 1, exc
    except TypeError:
        return x, None


@pytest.mark.parametrize("fn", [made_in_a_handler, made_from_none, made_in_a_finally_block], ids=lambda f: f.__name__)
def test_an_exception_returned_from_the_graph_keeps_its_chain(fn):
    actual = _translate_and_run(fn, X)
    expected = fn(X)
    assert_same(actual[0], expected[0])
    assert chain_of(actual[1]) == chain_of(expected[1])
