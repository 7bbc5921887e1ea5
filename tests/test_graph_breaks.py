"""Graph breaks: loom keeps going where it cannot capture, and never changes the answer.

PYTEST_DONT_REWRITE: the cases use ``assert`` themselves, and their messages must be Python's own.

Each case is run eagerly and through ``loom.compile`` on copies of the same inputs; results, printed
output (and its order), mutated arguments, exceptions and the traceback's last frame must agree, and
loom must report the number of graphs and breaks a careful reader predicts (``expect``).
"""

from __future__ import annotations

import collections
import logging
import math
import random

import pytest
import torch
from breaks_harness import BreakCases, compare, show

import loom

CASES = BreakCases()
case = CASES


def pos():
    return torch.rand(4) + 0.5


def neg():
    return -torch.rand(4) - 0.5


def far_pos():
    """Positive enough that three rounds of ``x * 2 - 1`` stay positive, whatever the draw."""
    return torch.rand(4) + 1.0


def far_neg():
    """Negative enough that three rounds of ``x * 2 + 1`` stay negative, whatever the draw."""
    return -torch.rand(4) - 1.0


# -- print ---------------------------------------------------------------------------------------------
@case(pos(), graphs=2, breaks=1)
def print_between_work(x):
    y = x + 1
    show("between")
    return y * 2


@case(pos(), graphs=1, breaks=1)
def print_first(x):
    show("first")
    return x + 1


@case(pos(), graphs=1, breaks=1)
def print_last(x):
    y = x.sin()
    show("last", y.shape)
    return y


@case(pos(), graphs=2, breaks=1)
def print_a_tensor(x):
    y = x * 3
    show(y)
    return y - 1


@case(pos(), graphs=3, breaks=2)
def two_prints(x):
    a = x + 1
    show("one")
    b = a * 2
    show("two")
    return b - 1


@case(pos(), graphs=4, breaks=3)
def three_prints(x):
    a = x + 1
    show(1)
    b = a * 2
    show(2)
    c = b - 3
    show(3)
    return c.sum()


@case(pos(), graphs=2, breaks=1)
def print_with_keywords(x):
    y = x.cos()
    show("a", tuple(y.shape), sep="|", end="!\n")
    return y + 1


@case(pos(), graphs=2, breaks=1)
def print_after_unrolled_loop(x):
    for i in range(3):
        x = x * 2 + i
    show("done")
    return x.relu()


# A loop of three passes with a break in each: the third pass is where the loop's resume function is
# seen to be entered pass after pass, and its break moves to the loop's FOR_ITER (a bounded number of
# entries however long the loop: see docs/symbolic.md, "A graph break inside a loop"). One construct, one
# break: the later passes meet the same print (loom.break_counting).
@case(pos(), graphs=3, breaks=1)
def print_in_loop(x):
    for i in range(3):
        x = x + 1
        show("iteration", i)
    return x


@case(pos(), graphs=2, breaks=1)
def print_of_computed_values(x):
    y = x.mean()
    show("mean is", round(float(y), 3) if False else "known later", y.shape)
    return y * x


LOGGER = logging.getLogger("loom.test.breaks")


@case(pos(), graphs=2, breaks=1)
def logging_call(x):
    y = x + 1
    LOGGER.warning("value %d", 3)
    return y * 2


# -- .item(), .tolist(), data-dependent control flow ---------------------------------------------------
@case(pos(), graphs=2, breaks=1)
def item_then_compute(x):
    s = x.sum().item()
    return x * s


@case(pos(), graphs=2, breaks=1)
def item_in_condition(x):
    if x.max().item() > 0.25:
        return x + 1
    return x - 1


@case(pos(), graphs=2, breaks=1)
def tolist_then_compute(x):
    values = x.round().tolist()
    return x * len(values), values


@case(pos(), graphs=2, breaks=1)
@case(neg(), graphs=2, breaks=1)
def if_on_tensor(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(pos(), graphs=2, breaks=1)
@case(neg(), graphs=2, breaks=1)
def if_else_then_more_work(x):
    if (x > 0).all():
        y = x * 2
    else:
        y = x * -2
    return y.exp().sum()


@case(torch.tensor([2.5]), graphs=2, breaks=1)
def while_on_tensor(x):
    while x.sum() > 0:
        x = x - 1
    return x


@case(torch.tensor([3.0]), graphs=3, breaks=2)
def while_on_item(x):
    # .item() runs four times (3, 2, 1, 0): four breaks; Python scalars are specialised, so each
    # pass through the loop body is its own graph, and the last pass has no tensor work.
    steps = 0
    while x.item() > 0:
        x = x - 1
        steps += 1
    return x, steps


@case(pos(), graphs=2, breaks=1)
@case(neg(), graphs=2, breaks=1)
def conditional_expression_on_tensor(x):
    y = x * 2
    z = y + 1 if y.mean() > 0 else y - 1
    return z


@case(pos(), graphs=3, breaks=2)
@case(neg(), graphs=1, breaks=1)
def and_or_on_tensors(x):
    y = x + 0
    if y.min() > 0 and y.max() < 100:
        return y * 10
    return y


@case(pos(), graphs=1, breaks=0)  # the check runs in the graph (loom::assert_true), raising from this line
@case(neg(), graphs=1, breaks=0)
def assert_on_tensor(x):
    assert (x > 0).all(), "x must be positive"
    return x + 1


# -- breaks in loops -------------------------------------------------------------------------------------
@case(far_pos(), graphs=4, breaks=1)  # three passes: see print_in_loop
@case(far_neg(), graphs=4, breaks=1)
def data_dependent_branch_in_loop(x):
    for _ in range(3):
        x = x * 2
        if x.sum() > 0:
            x = x - 1
        else:
            x = x + 1
    return x


@case(pos(), graphs=2, breaks=1)
def loop_over_list_with_print(x):
    out = []
    for scale in [1.0, 2.0]:
        out.append(x * scale)
        show("scale", scale)
    return out


@case(pos(), graphs=3, breaks=1)  # three passes: see print_in_loop
def loop_with_enumerated_list(x):
    items = [x, x * 2, x * 3]
    total = 0
    for i, item in enumerate(items):
        total = total + item * i
        show(i)
    return total


@case(pos(), graphs=2, breaks=1)
def loop_over_tuple_with_print(x):
    acc = x
    for k in (1, 2):
        acc = acc + k
        show(k)
    return acc


@case(pos(), graphs=2, breaks=2)
def break_before_and_after_loop(x):
    show("start")
    y = x + 1
    for i in range(2):
        y = y * 2
    show("middle")
    return y - 1 + x


@case(pos(), graphs=1, breaks=1)
def loop_break_statement_after_graph_break(x):
    show("go")
    for i in range(10):
        x = x + i
        if i == 2:
            break
    return x


# -- with blocks --------------------------------------------------------------------------------------------
class Tracker:
    """A user context manager that logs entering and leaving."""

    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, *exc):
        self.events.append("exit")
        return False


@case(torch.randn(3, requires_grad=True), graphs=2, breaks=1)
def print_inside_no_grad(x):
    with torch.no_grad():
        y = x * 2
        show("grad enabled inside:", torch.is_grad_enabled())
        z = y * 3
    return z, z.requires_grad, torch.is_grad_enabled(), (x * 2).requires_grad


@case(torch.randn(3, requires_grad=True), graphs=2, breaks=1)
def print_inside_enable_grad_inside_no_grad(x):
    with torch.no_grad():
        with torch.enable_grad():
            a = x * 2
            show("inner", torch.is_grad_enabled())
            b = a + 1
        c = x * 3
    return b.requires_grad, c.requires_grad, b, c


@case(torch.randn(3, requires_grad=True), graphs=2, breaks=1)
def print_inside_set_grad_enabled(x):
    with torch.set_grad_enabled(False):
        a = x + 1
        show("off", torch.is_grad_enabled())
        b = a * 2
    return b, b.requires_grad


@case(pos(), Tracker(), graphs=2, breaks=1)
def print_inside_user_context_manager(x, tracker):
    with tracker:
        y = x + 1
        show("inside", tracker.events)
        z = y * 2
    return z, list(tracker.events)


@case(pos(), graphs=2, breaks=1)
def print_inside_nested_blocks(x):
    t = Tracker()
    with t:
        with torch.no_grad():
            y = x * 2
            show("deep")
            y = y + 1
    return y, t.events


# -- unsupported builtins, C functions, skipped code, generators ------------------------------------------------
@case(pos(), graphs=1, breaks=1)  # id() is captured; using it as a number (ident > 0) breaks, after y * 2
def unsupported_builtin_id(x):
    y = x + 1
    ident = id(y)
    return y * 2, ident > 0


@case(pos(), graphs=1, breaks=0)  # random.seed(0) and random.random() are both made before the graph
def c_function_random(x):
    y = x + 1
    random.seed(0)
    r = random.random()
    return y * r


@case(pos(), graphs=1, breaks=0)
def torch_manual_seed_made_before_the_graph(x):
    y = x + 1
    torch.manual_seed(3)  # (no draw before it: the rewritten code seeds before the graph call)
    return y + torch.rand(4)


@case(pos(), graphs=2, breaks=1)
def torch_manual_seed_between_draws_breaks_at_the_next_draw(x):
    y = x + torch.rand(4) * 0  # (a draw from an unseeded state: its value is not compared)
    torch.manual_seed(3)
    return y + torch.rand(4)


def plain_helper(y):
    return y * 5


SKIPPED_HELPER = loom.disable(plain_helper)


@case(pos(), graphs=2, breaks=1)
def call_into_skipped_code(x):
    a = x + 1
    b = SKIPPED_HELPER(a)
    return b - 1


def generator_with_print(values):
    for v in values:
        show("gen", v)
        yield v * 2


@case(pos(), graphs=1, breaks=1)
def generator_that_cannot_be_inlined(x):
    # The generator prints, so it runs as ordinary Python: the graph breaks where it is made, and the
    # rest of the function, which uses it, runs as it is (torch.compile runs the whole frame as eager).
    a = x + 1
    doubled = list(generator_with_print([1, 2]))
    return a * sum(doubled)


@case(pos(), graphs=1, breaks=0)
def deque_maxlen_is_enforced(x):
    # deque is a C class, traced through its Python stand-in (loom_symbolic.polyfills.collections).
    d = collections.deque(maxlen=2)
    for i in range(4):
        d.append(i)
    return x * sum(d), list(d)


# -- side effects across breaks ----------------------------------------------------------------------------------
@case(pos(), [1], graphs=2, breaks=1)
def list_mutations_around_break(x, log):
    log.append("before")
    y = x + 1
    show("log so far", log)
    log.append("after")
    return y * len(log)


class Box:
    def __init__(self):
        self.value = 0


@case(pos(), Box(), graphs=1, breaks=1)
def attribute_mutation_around_break(x, box):
    box.value = 1
    show("value is", box.value)
    box.value += 1
    return x * box.value


@case(pos(), graphs=2, breaks=1)
def closure_made_before_break(x):
    scale = 3

    def apply(t):
        return t * scale

    y = apply(x)
    show("made closure")
    scale = 4
    return apply(y)


@case(pos(), graphs=2, breaks=1)
def comprehension_cell_before_break(x):
    ys = [x * i for i in range(3)]
    show(len(ys))
    return sum(ys)


# -- modules -------------------------------------------------------------------------------------------------------
class Printer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 4)
        self.b = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.a(x).relu()
        show("hidden", tuple(h.shape))
        if h.sum() > 0:
            h = h * 2
        return self.b(h)


@case(torch.randn(2, 4), graphs=3, breaks=2)
def module_with_print_and_branch(x):
    # The caller breaks at the module call; forward runs as its own frame: print (the construct the caller
    # counted), then the branch.
    return PRINTER(x)


PRINTER = Printer()


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_graph_breaks_match_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES[:20])
def test_graph_breaks_match_eager_with_aot_eager(fn, args, kwargs, graphs, breaks):
    compare(fn, *args, backend="aot_eager", **kwargs)


def test_fullgraph_refuses_a_break_with_the_users_line():
    f = loom.compile(print_between_work, fullgraph=True, backend="eager")
    with pytest.raises(loom.Unsupported, match="print") as info:
        f(pos())
    assert info.value.reason.location.lineno is not None
    assert info.value.reason.location.filename == __file__


def _make_adder(x):
    total = x.sum()

    def add(y):
        return y + total

    return add


def _returns_an_inlined_closure(x):
    adder = _make_adder(x)
    return x + 1, adder


def _offset_adder_maker(offset):
    def make_adder(x):
        total = x.sum()
        # ``add`` closes over ``offset``, a cell of a function from outside the trace: it cannot be rebuilt
        return lambda y: y + offset + total

    return make_adder


_make_offset_adder = _offset_adder_maker(0.0)


def _returns_a_closure_over_an_outside_cell(x):
    adder = _make_offset_adder(x)
    return x + 1, adder


def test_a_break_found_while_rebuilding_the_return_value_names_the_return_line():
    f = loom.compile(_returns_a_closure_over_an_outside_cell, fullgraph=True, backend="eager")
    with pytest.raises(loom.Unsupported, match="closure") as info:
        f(pos())
    location = info.value.reason.location
    expected_line = _returns_a_closure_over_an_outside_cell.__code__.co_firstlineno + 2
    assert (location.filename, location.lineno) == (__file__, expected_line)
    # and without fullgraph it still runs
    result, adder = loom.compile(_returns_a_closure_over_an_outside_cell, backend="eager")(torch.ones(2))
    torch.testing.assert_close(adder(torch.zeros(2)), torch.full((2,), 2.0))


def test_a_closure_over_an_inlined_function_outlives_the_frame():
    f = loom.compile(_returns_an_inlined_closure, fullgraph=True, backend="eager")
    result, adder = f(torch.ones(2))  # its cell is made afresh by the rewritten code (codegen.load_cell)
    torch.testing.assert_close(adder(torch.zeros(2)), torch.full((2,), 2.0))


def test_math_is_folded_not_broken():
    def f(x):
        return x * math.sqrt(4.0)

    stats = compare(f, pos())
    assert stats["graph_breaks"] == 0


STATE = {"calls": 0}


def global_dict_mutation_around_break(x):
    STATE["calls"] = STATE["calls"] + 1
    show("calls", STATE["calls"])
    STATE["seen"] = True
    return x * STATE["calls"]


def test_global_dict_mutations_around_a_break_are_replayed_in_order():
    x = pos()
    STATE.clear()
    STATE["calls"] = 0
    expected = global_dict_mutation_around_break(x)
    expected_state = dict(STATE)
    STATE.clear()
    STATE["calls"] = 0
    loom.reset()
    compiled = loom.compile(global_dict_mutation_around_break, backend="eager")
    torch.testing.assert_close(compiled(x), expected)
    assert STATE == expected_state
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 1)
    torch.testing.assert_close(compiled(x), x * 2)  # the second call sees the first call's state
    assert STATE["calls"] == 2


def test_comprehensions_resumed_after_a_break_keep_their_items():
    """A comprehension over an iterator the translator does not model breaks at every item; each resume
    gets the set or dict built so far, and what it adds must reach that real object (``ModelOutput.
    __setattr__`` builds ``{field.name for field in fields(self)}`` so: CLIP's projected pooler output
    was dropped from the output dict)."""

    def build(x, items, more):
        return x + 1, {str(i) for i in items}, {str(i): i for i in more}

    compiled = loom.compile(build, backend="eager")
    for _ in range(2):
        x, names, table = compiled(torch.ones(2), iter((1, 2, 3)), iter((4, 5)))
        assert names == {"1", "2", "3"} and table == {"4": 4, "5": 5}
