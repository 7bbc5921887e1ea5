"""The frames ``__traceback__`` lists for an exception the compiled frame raised and caught
(``variables/exception_tracebacks.py``, ``InstructionTranslator.traceback_entry``): ``tb_next``, ``tb_lineno`` and
``tb_frame.f_code`` as in eager, where before each read was a graph break ("the translator cannot read it").

Each frame an exception is raised in or passes through lists itself in front of what the exception held (a bare
``raise`` adds none; ``throw()`` lists the generator's frame); a polyfill standing for C code lists none, as the C
function has no frame in eager.
"""

import collections
import contextlib
import functools
import io

import pytest
import torch

import loom


def _frames(exc):
    tb = exc.__traceback__
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_name, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _here(x):
    try:
        raise ValueError("v")
    except ValueError as e:
        tb = e.__traceback__
        return x + 1, tb.tb_next is None, tb.tb_lineno, tb.tb_frame.f_code.co_name


def _through_calls(x):
    def low():
        return [][3]

    def mid():
        return low()

    try:
        mid()
    except IndexError as e:
        return x * 2, _frames(e)


def _reraised(x):
    def bare():
        try:
            raise KeyError("k")
        except KeyError:
            raise

    out = []
    try:
        bare()
    except KeyError as e:
        out.append(_frames(e))
        saved = e
    try:
        raise saved
    except KeyError as e:
        out.append(_frames(e))
    return x - 1, out


def _generator_throw(x):
    def gen():
        try:
            yield 1
        except KeyError:
            raise ValueError("converted")  # noqa: B904

    g = gen()
    next(g)
    try:
        g.throw(KeyError("k"))
    except ValueError as e:
        return x + 3, _frames(e), _frames(e.__context__)


def _c_stand_ins(x):
    def add(a, b):
        raise ArithmeticError(b)

    def factory():
        raise LookupError("f")

    out = []
    for op in (lambda: functools.reduce(add, [1, 2]), lambda: collections.defaultdict(factory)["k"],
               lambda: collections.deque().pop(), lambda: max([])):
        try:
            op()
        except (ArithmeticError, LookupError, ValueError) as e:
            out.append(_frames(e))
    return x + len(out), out


@pytest.mark.parametrize("program", [_here, _through_calls, _reraised, _generator_throw, _c_stand_ins])
def test_traceback_frames_as_eager_in_one_graph(program):
    x = torch.randn(3)
    want = program(x)
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(program)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(program, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]


def test_an_exception_from_outside_keeps_its_real_frames():
    def outside():
        raise KeyError("outside")

    try:
        outside()
    except KeyError as e:
        given = e

    def program(x, exc):
        return x + 1, _frames(exc)

    x = torch.randn(2)
    loom.reset()
    assert loom.compile(program, backend="eager")(x, given)[1] == program(x, given)[1]


_SINK = io.StringIO()


def _kept_across_a_break(x):
    def low():
        raise KeyError("low")

    try:
        low()
    except KeyError as e:
        saved = e
    print("break", file=_SINK)
    return x + 1, _frames(saved)


def _handler_breaks(x):
    def low():
        return {}["k"]

    try:
        low()
    except KeyError as e:
        print("break", file=_SINK)
        return x + 2, _frames(e)


@pytest.mark.parametrize("program", [_kept_across_a_break, _handler_breaks])
def test_exception_handed_on_at_a_break_keeps_the_frames_of_its_raise(program):
    # rebuilt after the graph by raising it again in a helper, it listed the helper's frame: a wrong answer;
    # the graph breaks where it was raised instead, and the raise runs as ordinary Python
    x = torch.randn(3)
    want = program(x)
    loom.reset()
    compiled = loom.compile(program, backend="eager")
    for _ in range(2):
        got = compiled(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == want[1:]


def test_a_returned_exception_still_needs_no_break():
    def program(x):
        try:
            raise ValueError("v")
        except ValueError as e:
            return x + 1, e

    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(program)(torch.randn(2))
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks


def _extracted_after_a_break(x):
    import traceback

    try:
        raise IndexError("i")
    except IndexError as e:
        saved = e
    print("break", file=_SINK)
    return x + 1, [(f.name, f.lineno, f.line) for f in traceback.extract_tb(saved.__traceback__)]


def test_exception_raised_in_the_compiled_frame_keeps_its_frame_and_line_after_a_break():
    # rebuilt with a traceback naming the compiled frame at the raise's line, not a helper's (and no extra break)
    x = torch.randn(3)
    want = _extracted_after_a_break(x)
    loom.reset()
    got = loom.compile(_extracted_after_a_break, backend="eager")(x)
    assert got[1] == want[1]
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(_extracted_after_a_break)(x)
    assert report.graph_count == 1
