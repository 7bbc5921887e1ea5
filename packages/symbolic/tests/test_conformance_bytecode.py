"""Constructs whose bytecode differs between CPython versions (see docs/symbolic.md, "Per-version
bytecode"): each runs on every supported version, and on 3.12 it goes through that version's own
instructions (inlined comprehensions, LOAD_SUPER_ATTR, BINARY_SLICE/STORE_SLICE, RETURN_CONST,
CALL_INTRINSIC_1, POP_JUMP_IF_NONE, FOR_ITER/END_FOR, SEND/END_SEND).

Where a version's bytecode makes the translation itself differ (not only its instructions), the
expectation is spelled per version next to the case, with the reason.
"""

from __future__ import annotations

import array
import copy
import dis
import sys
import types

import pytest
import torch
from harness import CaseRegistry, assert_same, assert_stacksize, check, run_rewritten

from loom_symbolic import run_resume, translate, translate_function

VERSION = sys.version_info[:2]
cases = CaseRegistry()


# -- inlined comprehensions (3.12: LOAD_FAST_AND_CLEAR, SWAP, END_FOR) ---------------------------------
@cases(torch.ones(3), 7)
def comprehension_restores_a_bound_outer_name(x, i):
    ys = [x * i for i in range(3)]
    return ys, i


@cases(torch.ones(3))
def comprehension_leaves_an_unbound_name_unbound(x):
    ys = [x + j for j in range(2)]
    try:
        return j  # unbound: NameError, as outside a comprehension
    except NameError:
        return ys


@cases(torch.ones(3))
def comprehension_variable_captured_by_closures(x):
    fs = [lambda: x * k for k in range(3)]  # noqa: B023  (each lambda sees the last k, as in eager)
    return [f() for f in fs]


@cases(torch.ones(3))
def dict_set_and_nested_comprehensions(x):
    k = "kept"
    d = {k: x * k for k in range(3)}
    s = {k % 2 for k in range(5)}
    grid = [[x * a + b for b in range(2)] for a in range(2)]
    return d, sorted(s), grid, k


@cases(torch.ones(3))
def comprehension_over_an_argument_name(x):
    return [x * 2 for x in (x, x + 1)], x


# -- super() (3.12: LOAD_SUPER_ATTR) --------------------------------------------------------------------
class Base(torch.nn.Module):
    scale = 3

    def f(self, x):
        return x + 1


class Child(Base):
    def f(self, x):
        return super().f(x) * 2 + super(Child, self).f(x)  # noqa: UP008  (the two-argument form)


CHILD = Child()


@cases(torch.ones(3))
def super_zero_and_two_arguments(x):
    return CHILD.f(x)


# -- slices, constants, intrinsics, None tests ----------------------------------------------------------
@cases(torch.arange(6.0), 2)
def slices_read_and_written(x, a):
    items = [1, 2, 3, 4]
    items[1:a] = [9, 9]
    y = x.clone()
    y[a:] = 0
    return x[1:], x[:a], x[::2], x[a:-1], items[a:], items, y


@cases(torch.ones(3))
def return_a_constant_after_a_mutation(x):
    x.add_(1)
    return None


@cases(torch.ones(3))
def unary_plus_and_starred_tuple(x):
    return +x, (*[1, 2], 3), (*(x, x),)


@cases(torch.ones(3), None)
@cases(torch.ones(3), 1)
def none_tests(x, y):
    if y is None:
        x = x + 1
    if y is not None:
        x = x - 1
    z = None if y else x
    return x if z is not None else x * 2


@cases(torch.ones(3), 2)
def comparisons(x, a):
    return 0 < a < 3, a == 2, a != 1, a >= 2, a <= 1, x > 0


# -- loops and generators -------------------------------------------------------------------------------
@cases(torch.ones(3))
def loops_with_else_break_and_continue(x):
    for i in range(4):
        if i == 1:
            continue
        if i == 3:
            break
        x = x + i
    else:
        x = x * 100
    n = 0
    while n < 3:
        n += 1
    return x, n


@cases(torch.ones(3))
def generator_with_yield_from(x):
    def inner():
        yield x
        yield x * 2
        return 5

    def outer():
        got = yield from inner()
        yield x + got

    return list(outer())


@cases(torch.ones(3))
def exceptions_in_a_loop(x):
    out = []
    for i in range(3):
        try:
            if i == 1:
                raise ValueError(i)
            out.append(x * i)
        except ValueError:
            out.append(x)
    return out


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), cases)
def test_matches_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def test_a_generator_that_raises_stopiteration_raises_runtimeerror():
    def body(x):
        def g():
            yield 1
            raise StopIteration

        try:
            return list(g())
        except RuntimeError as error:
            return str(error), x * 2

    # 3.11 turns the StopIteration into RuntimeError in C as it leaves the generator's frame, which the
    # translator models at the same edge; 3.12 and 3.13 compile the conversion into the generator's own
    # code (CALL_INTRINSIC_1), which the translator runs. No break on any of them.
    check(body, torch.ones(3))


# -- graph breaks ----------------------------------------------------------------------------------------
def _break_and_compare(fn, *args):
    """Translate ``fn`` (which must break once at its root), run the rewritten code (resume functions run
    as ordinary Python) and compare with eager."""
    translation = translate_function(fn, *copy.deepcopy(args))
    assert len(translation.breaks) == 1 and translation.code is not None, translation.dump()
    expected = fn(*copy.deepcopy(args))
    actual = run_rewritten(fn, translation, copy.deepcopy(args), {})
    assert_same(actual, expected)
    assert translation.resume_functions
    for code in translation.resume_functions:
        assert_stacksize(code)
    return translation


def _opnames(code):
    return [ins.opname for ins in dis.get_instructions(code)]


def test_break_inside_a_comprehension(capsys):
    def body(x):
        total = x * 0
        ys = [print(i, file=sys.stdout) or x * i for i in range(3)]
        for y in ys:
            total = total + y
        return total

    translation = _break_and_compare(body, torch.ones(3))
    capsys.readouterr()
    # 3.11 runs a comprehension as a function of its own: the caller breaks at its call. 3.12 inlines
    # it: the break is at the print, inside the loop, with the saved loop variable (NULL here), the
    # range iterator and the list being built on the stack.
    where = translation.breaks[0].reason.location
    comprehension = {(3, 11): ".<locals>.<listcomp>", (3, 12): "", (3, 13): ""}[VERSION]
    assert where.function == "test_break_inside_a_comprehension.<locals>.body" + comprehension
    resume_stack = translation.resume_functions[0].co_varnames
    if VERSION >= (3, 12):
        assert any(name.startswith("___stack") and name.endswith("_iterable") for name in resume_stack)


def test_break_at_a_for_loop_over_an_iterator_it_cannot_model():
    def body(x, d):
        for v in d:
            x = x + v
        return x

    # Iterating an array.array is a break at GET_ITER; the resume function of the loop gets the real
    # array iterator as its stack value, and its own translation breaks at FOR_ITER, run natively.
    first = translate_function(body, torch.ones(3), array.array('i', [1, 2, 3]))
    resume = first.resume_functions[0]
    names = resume.co_varnames[: resume.co_argcount]

    def arguments():
        d = array.array('i', [1, 2, 3])
        return {"___stack0": iter(d), "x": torch.ones(3), "d": d}

    assert set(names) == set(arguments())
    translation = translate(resume, arguments(), body.__globals__)
    assert len(translation.breaks) == 1 and translation.code is not None, translation.dump()
    assert "for loop" in translation.breaks[0].reason.what
    translation.install(body.__globals__, lambda graph: graph.graph_module)
    rewritten = types.FunctionType(translation.code, body.__globals__)
    given = arguments()
    # A resume function's rewritten code hands the next resume call back (a tail call): run_resume runs it.
    assert_same(run_resume(rewritten, *(given[name] for name in names)), torch.ones(3) + 6)
    assert_stacksize(translation.code)
    for code in translation.resume_functions:
        assert_stacksize(code)
    ops = _opnames(translation.code)
    assert "FOR_ITER" in ops  # run natively
    if VERSION >= (3, 12):
        # An exhausted FOR_ITER skips the instruction(s) after its target: the END_FOR placed there
        # (3.13: END_FOR and POP_TOP).
        assert ops[ops.index("FOR_ITER"):].count("END_FOR") == 1
    if VERSION >= (3, 13):
        assert ops[ops.index("END_FOR") + 1] == "POP_TOP"


def test_break_on_a_tensor_condition_in_a_while_loop():
    def body(x):
        while x.sum() > 0:
            x = x - 1
        return x

    translation = _break_and_compare(body, torch.tensor([2.5]))
    # Both successors of the condition (the body, and the return after the loop).
    assert len(translation.resume_functions) == 2


def test_break_between_super_calls(capsys):
    class Printing(Base):
        def f(self, x):
            y = super().f(x)
            print("between", file=sys.stdout)
            return super().f(y) * super().scale

    module = Printing()
    translation = translate_function(Printing.f, module, torch.ones(3))
    assert len(translation.breaks) == 1
    actual = run_rewritten(Printing.f, translation, (module, torch.ones(3)), {})
    assert_same(actual, (torch.ones(3) + 2) * 3)
    # A resume function of a method that calls super() keeps self first (super() reads it there).
    assert all(code.co_varnames[0] == "self" for code in translation.resume_functions)
    capsys.readouterr()


def test_break_at_a_slice_store():
    class Opaque:
        def __setitem__(self, key, value):
            self.seen = (key, value)

    def body(x, box, a):
        y = x * 2
        box[1:a] = y
        return y + 1

    box = Opaque()
    translation = translate_function(body, torch.ones(3), box, 2)
    real = Opaque()
    actual = run_rewritten(body, translation, (torch.ones(3), real, 2), {})
    assert_same(actual, torch.ones(3) * 2 + 1)
    assert real.seen[0] == slice(1, 2)


def test_a_comprehension_reusing_an_argument_name_adds_no_guard_on_it():
    def body(x, i):
        return [x * i for i in range(3)]

    translation = check(body, torch.ones(3), 7)
    assert not [guard for guard in translation.guards if "L['i']" in str(guard)]


def test_break_inside_a_comprehension_that_reuses_an_argument_name(capsys):
    def body(x, i):
        ys = [print(i, file=sys.stdout) or x * i for i in range(3)]
        return ys, i

    _break_and_compare(body, torch.ones(3), 7)
    capsys.readouterr()


def test_break_before_a_closure_over_arguments(capsys):
    def body(x, scale):
        print("break", file=sys.stdout)
        scaled = lambda: x * scale  # 3.13 loads the argument cells with LOAD_FAST
        return scaled() + 1

    _break_and_compare(body, torch.ones(3), 2.0)
    capsys.readouterr()


@pytest.mark.parametrize("value", [2.0, -2.0])
def test_break_at_not_of_a_tensor_condition(value):
    def body(x):
        flag = not (x.sum() > 0)  # 3.13 runs UNARY_NOT natively after a TO_BOOL: it reads an exact bool
        return x + 1 if flag else x - 1

    _break_and_compare(body, torch.tensor([value]))


@pytest.mark.parametrize("value", [2.0, -2.0])
def test_break_at_a_tensor_condition_after_a_keyword_call(value, capsys):
    def body(x):
        y = torch.clamp(x, min=-1.0)
        if y.sum() > 0:  # 3.13: COMPARE_OP's bool form, then the native POP_JUMP_IF_FALSE
            return f"{y!r:>5}", x * 2
        return str(x), x * 3

    _break_and_compare(body, torch.tensor([value]))
