"""Round 11's traceback programs (a part of ``capture_count_gens11.py``): the frames ``__traceback__`` lists
(``tb_next``, ``tb_lineno``, ``tb_frame.f_code``) for exceptions raised in the compiled frame, in a function it
calls, by an operation, re-raised bare or by name, escaping a generator, thrown into one, and raised through
callables the trace models in place of C code (``functools.reduce``, ``sorted``'s key, ``defaultdict``'s
factory), where eager lists no frame for the C function. Each runs over one tensor.
"""

from __future__ import annotations

import collections
import functools
import io


def _frames(exc):
    tb = exc.__traceback__
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_name, tb.tb_lineno))
        tb = tb.tb_next
    return out


def c_gens11_tb_raised_here(x):
    try:
        raise ValueError("v")
    except ValueError as e:
        tb = e.__traceback__
        return x + 1, tb.tb_next is None, tb.tb_lineno, tb.tb_frame.f_code.co_name


def c_gens11_tb_through_two_calls(x):
    def low():
        raise KeyError("low")

    def mid():
        return low()

    try:
        mid()
    except KeyError as e:
        return x * 2, _frames(e)


def c_gens11_tb_operation_error(x):
    def pick(seq):
        return seq[5]

    try:
        pick([x])
    except IndexError as e:
        return x - 1, _frames(e)


def c_gens11_tb_bare_and_named_reraise(x):
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
        out.append(len(_frames(e)))
    return x + 1, out


def c_gens11_tb_generator_and_throw(x):
    def gen():
        try:
            yield 1
        except KeyError:
            raise ValueError("converted")  # noqa: B904
        yield 2

    g = gen()
    next(g)
    try:
        g.throw(KeyError("k"))
    except ValueError as e:
        return x + 1, _frames(e), _frames(e.__context__)


def c_gens11_tb_c_stand_ins_list_no_frame(x):
    def add(a, b):
        raise ArithmeticError(b)

    def factory():
        raise LookupError("f")

    out = []
    for op in (lambda: functools.reduce(add, [1, 2]), lambda: collections.defaultdict(factory)["k"],
               lambda: sorted([2, 1], key=lambda v: 1 // (v - 1)), lambda: collections.deque().pop()):
        try:
            op()
        except (ArithmeticError, LookupError) as e:
            out.append([name for name, _ in _frames(e)])
    return x + len(out), out


_SINK = io.StringIO()


def c_gens11_tb_exception_kept_across_break(x):
    def low():
        raise KeyError("low")

    try:
        low()
    except KeyError as e:
        saved = e
    print("break", file=_SINK)
    return x + 1, _frames(saved)


def c_gens11_tb_returned_exception(x):
    try:
        raise ValueError("v")
    except ValueError as e:
        return x + 1, e.args, type(e).__name__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
