"""Graph breaks, continued: each kind of break in each kind of context, with predicted counts.

PYTEST_DONT_REWRITE: the cases use ``assert`` themselves, and their messages must be Python's own.
"""

from __future__ import annotations

import logging
import operator
import threading

import pytest
import torch
from breaks_harness import BreakCases, compare, show

import loom

CASES = BreakCases()
case = CASES


def pos():
    return torch.rand(3) + 0.5


def neg():
    return -torch.rand(3) - 0.5


LOG = logging.getLogger("loom.tests.more")


def skipped(t):
    return t * 7


SKIPPED = loom.disable(skipped)


# -- each kind of break, straight line: [work] break [work] -> 2 graphs, 1 break ------------------------------
@case(pos(), graphs=2, breaks=1)
def k_print(x):
    a = x.exp()
    show("p")
    return a.log()


@case(pos(), graphs=2, breaks=1)
def k_item(x):
    a = x.exp()
    v = a.max().item()
    return a / v


@case(pos(), graphs=2, breaks=1)
@case(neg(), graphs=2, breaks=1)
def k_branch(x):
    a = x.exp() - 1.5
    if a.mean() > 0:
        return a * 2
    return a * 3


@case(pos(), graphs=2, breaks=1)
def k_skipped(x):
    a = x.exp()
    b = SKIPPED(a)
    return b.log()


@case(pos(), graphs=1, breaks=0)  # a level the logger does not emit: nothing, as in torch.compile (guarded)
def k_logging(x):
    a = x.exp()
    LOG.debug("quiet %s", 1)
    return a.log()


@case(pos(), graphs=2, breaks=1)
def k_tolist(x):
    a = x.exp()
    values = a.tolist()
    return a * len(values)


@case(pos(), graphs=1, breaks=0)  # Tensor.numpy() is traced through torch._numpy, as torch.compile does
def k_numpy(x):
    a = x.exp()
    arr = a.numpy()
    return a * 2, arr.shape


@case(pos(), graphs=2, breaks=1)
def k_int_of_tensor(x):
    a = x.sum() * 2
    n = int(a)
    return x * n


@case(pos(), graphs=2, breaks=1)
def k_bool_of_tensor(x):
    a = (x > 1).any()
    flag = bool(a)
    return x * 2 if flag else x * 3


# -- the same breaks inside a loop of two passes: one construct, one break (loom.break_counting) -------------
@case(pos(), graphs=2, breaks=1)
def loop_print(x):
    for i in range(2):
        x = x * 2
        show("pass", i)
    return x


# The second pass's resume function meets another float total: a SymFloat input, its `+=` a graph of its own
@case(pos(), graphs=3, breaks=1)
def loop_item(x):
    total = 0.0
    for _ in range(2):
        x = x + 1
        total += x.sum().item()
    return x, total


@case(pos(), graphs=3, breaks=1)
@case(neg(), graphs=3, breaks=1)
def loop_branch(x):
    for _ in range(2):
        if x.sum() > 0:
            x = x - 2
        else:
            x = x + 1
    return x


@case(pos(), graphs=2, breaks=1)
def loop_skipped_call(x):
    for _ in range(2):
        x = SKIPPED(x) - 1
    return x


# -- inside with blocks -------------------------------------------------------------------------------------
@case(torch.rand(3, requires_grad=True), graphs=2, breaks=1)
def no_grad_item(x):
    with torch.no_grad():
        a = x * 2
        v = a.sum().item()
        b = a * v
    return b, b.requires_grad


@case(torch.rand(3, requires_grad=True), graphs=2, breaks=1)
def no_grad_branch(x):
    with torch.no_grad():
        a = x - 0.5
        if a.sum() > 0:
            b = a * 2
        else:
            b = a * 3
    return b, b.requires_grad, (x * 2).requires_grad


@case(torch.rand(3, requires_grad=True), graphs=2, breaks=1)
def enable_grad_print(x):
    with torch.enable_grad():
        a = x * 2
        show("enabled")
        b = a + 1
    return b, b.requires_grad


@case(torch.rand(3, requires_grad=True), graphs=3, breaks=2)
def no_grad_two_prints(x):
    with torch.no_grad():
        a = x * 2
        show("one")
        b = a + 1
        show("two")
        c = b * 3
    return c, c.requires_grad


# -- try blocks ------------------------------------------------------------------------------------------------
@case(pos(), graphs=2, breaks=1)
def try_finally_item(x):
    try:
        a = x * 2
        v = a.sum().item()
    finally:
        a = a + 1
    return a * v


@case(pos(), graphs=2, breaks=1)
@case(neg(), graphs=2, breaks=1)
def try_except_branch(x):
    try:
        a = x * 2
        if a.sum() > 0:
            b = a + 1
        else:
            b = a - 1
    except ZeroDivisionError:
        b = a
    return b


@case(pos(), graphs=2, breaks=1)
def finally_runs_after_break_in_try(x):
    log = []
    try:
        a = x + 1
        show("in try")
    finally:
        log.append("finally")
    return a * len(log), log


@case(pos(), graphs=2, breaks=1)
def try_except_else_with_print(x):
    try:
        a = x + 1
        show("try")
    except KeyError:
        a = x
    else:
        a = a * 2
    return a


# -- inlined calls -------------------------------------------------------------------------------------------------
def helper_item(t):
    return t * t.sum().item()


def helper_plain(t):
    return t.sin() + 1


@case(pos(), graphs=4, breaks=1)
def call_helper_with_item(x):
    # [x + 1] | the helper as its own frame: [sum] item [t * v] | [b - 1]
    a = x + 1
    b = helper_item(a)
    return b - 1


@case(pos(), graphs=2, breaks=1)
def plain_helper_then_print(x):
    a = helper_plain(x)
    show("after helper")
    return helper_plain(a)


@case(pos(), graphs=3, breaks=2)  # the print, and the item() that the call site and the helper meet
def print_between_two_helper_calls_with_item(x):
    # [sin + 1] print | call site of helper_item | the helper: [sum] item [t * v]
    a = helper_plain(x)
    show("middle")
    b = helper_item(a)
    return b


# -- several breaks, then more capture --------------------------------------------------------------------------
@case(pos(), graphs=4, breaks=3)
def three_kinds_in_a_row(x):
    a = x * 2
    show("first")
    b = a + a.max().item()
    c = SKIPPED(b)
    return c.relu()


@case(pos(), graphs=5, breaks=4)
def four_prints(x):
    x = x + 1
    show(1)
    x = x + 1
    show(2)
    x = x + 1
    show(3)
    x = x + 1
    show(4)
    return x + 1


@case(pos(), graphs=1, breaks=1)
def lots_of_capture_after_one_break(x):
    show("start")
    for _ in range(5):
        x = torch.tanh(x * 1.1 + 0.1)
    y = x.sum(0)
    return x / y


# -- values that cross a break -----------------------------------------------------------------------------------
@case(pos(), graphs=2, breaks=1)
def tuple_and_dict_locals_cross_a_break(x):
    pair = (x, x * 2)
    table = {"a": x + 1, "b": 3}
    show("crossing")
    return pair[1] + table["a"] * table["b"]


@case(pos(), graphs=1, breaks=1)
def list_local_mutated_after_break(x):
    items = [x]
    show("crossing")
    items.append(x * 2)
    return torch.stack(items)


@case(pos(), graphs=2, breaks=1)
def object_made_before_break(x):
    class_free = {"scale": 2}
    holder = Holder(x * class_free["scale"])
    show("crossing")
    return holder.value + 1


class Holder:
    def __init__(self, value):
        self.value = value


@case(pos(), graphs=2, breaks=1)
def nested_function_crosses_a_break(x):
    def add_one(t):
        return t + 1

    a = add_one(x)
    show("crossing")
    return add_one(a)


@case(pos(), graphs=2, breaks=1)
def constant_and_int_locals_cross_a_break(x):
    n = 3
    name = "x"
    a = x * n
    show(name)
    return a + n


@case(pos(), graphs=2, breaks=1)
def iterator_in_the_middle_of_a_loop(x):
    out = x
    for step in [1.0, 2.0, 3.0]:
        out = out + step
        if step == 2.0:
            show("middle of the loop")
    return out


@case(pos(), graphs=2, breaks=1)
def enumerate_in_the_middle_of_a_loop(x):
    for i, w in enumerate([0.5, 0.25]):
        x = x * w + i
        if i == 0:
            show("first pass")
    return x


@case(pos(), graphs=2, breaks=1)
def zip_in_the_middle_of_a_loop(x):
    for a, b in zip([1, 2], [3, 4]):
        x = x + a * b
        if a == 1:
            show("first pair")
    return x


# -- exceptions and breaks -----------------------------------------------------------------------------------------
@case(pos(), graphs=1, breaks=1)  # the .item(); the raise that ends the frame is no break
def item_then_raise(x):
    v = x.sum().item()
    if v > 0:
        raise ValueError(f"positive sum {v > 0}")
    return x


@case(pos(), graphs=2, breaks=1)
def exception_from_skipped_call_caught(x):
    a = x + 1
    try:
        SKIPPED(None)
    except TypeError:
        a = a * 2
    return a


@case(pos(), graphs=1, breaks=1)
def exception_from_skipped_call_escapes(x):
    a = x + 1
    return SKIPPED(None) + a


# -- a local that keeps an argument the trace then rebinds: the residual pattern of every transformer ----------
@case(pos(), graphs=2, breaks=1)
def argument_kept_then_rebound_before_a_break(x):
    residual = x
    x = x + 1
    show("p")
    return residual + x


def _chatty_attention(q):
    q = q * 3
    show("p")
    return q * 2


@case(pos(), graphs=4, breaks=1)
def argument_kept_then_rebound_before_a_break_in_a_callee(x):
    residual = x
    x = x.exp()
    x = _chatty_attention(x)
    return residual + x


@case(pos(), graphs=2, breaks=1)
def argument_kept_in_a_cell_then_rebound_before_a_break(x):
    kept = x
    x = x + 1
    show("p")
    return (lambda: kept)() + x


# -- methods whose frames are special: zero-argument super() and attribute hooks -----------------------------
class Counter:
    """A base class whose __init__ a subclass reaches through super() after a break."""

    def __init__(self, n):
        self.n = n


class BrokenCounter(Counter):
    def __init__(self, x):
        y = x * 2
        show("p")
        super().__init__(y + 1)  # the resume function must keep `self` first for super()


@case(pos(), graphs=2, breaks=1)
def super_init_after_a_break(x):
    return BrokenCounter(x).n


class MappedConfig:
    """Hugging Face's config pattern: __getattribute__ renames keys, through super()."""

    attribute_map = {"a": "b"}

    def __init__(self):
        self.b = 3

    def scale(self):
        return 5

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


@case(pos(), MappedConfig(), graphs=1, breaks=1)  # print; attrgetter is traced through its polyfill
def attribute_hook_run_as_its_own_frame(x, config):
    show("p")
    # attrgetter is C (before its polyfill, __getattribute__ ran as a frame of its own, which loom had
    # to leave alone); its Python version inlines the class's __getattribute__ like any attribute read
    n = operator.attrgetter("a")(config)
    m = operator.attrgetter("scale")(config)()
    return x * n * m, sorted(operator.attrgetter("__dict__")(config))


class Swallow:
    """A context manager whose __exit__ suppresses the exception, logging what it saw."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return self

    def __exit__(self, kind, value, traceback):
        self.log.append(("out", kind.__name__ if kind else None))
        return True


@case(pos(), [], graphs=2, breaks=1)
def break_then_raise_inside_a_suppressing_with(x, log):
    # the resume function re-enters the with block at the resume point (resume._reenter_try_block): its
    # stack is followed past the raise into __exit__, which swallows it as in eager
    with Swallow(log):
        y = x + 1
        show("p")
        raise KeyError(y.shape[0])
    return x * 5


# -- autocast regions: enter and exit in the graph (tests/test_higher_order_ops.py) -------------------------------
@case(pos(), torch.rand(3, 3), graphs=1, breaks=0)
def autocast_block(x, w):
    y = x.unsqueeze(0) + 1
    with torch.autocast("cpu", dtype=torch.bfloat16):
        z = torch.mm(y, w)  # bfloat16 inside
    return z.float() * 2, z.dtype, torch.is_autocast_enabled("cpu")


@case(pos(), torch.rand(3, 3), graphs=1, breaks=0)
def autocast_block_left_by_an_exception(x, w):
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            z = torch.mm(x.unsqueeze(0), w)
            raise ValueError(str(z.dtype))
    except ValueError as error:
        return x * 3, str(error), torch.is_autocast_enabled("cpu")


# -- contexts the translator does not model: entered for real, the body compiled inside them ---------------------
LOCK = threading.Lock()


@case(pos(), graphs=3, breaks=2)  # entered for real, then exited for real: three graphs
def c_context_manager_block(x):
    y = x + 1
    with LOCK:
        y = y * 2
    return y - 1


# -- state mutated before a break: what the live locals hold was read before the mutation ---------------------
class Box:
    """A plain object whose attributes the cases below move around."""

    def __init__(self, name):
        self.name = name


@case(pos(), [Box("first")], graphs=2, breaks=1)
def local_read_from_a_list_slot_replaced_before_a_break(x, boxes):
    kept = boxes[0]
    boxes[0] = Box("second")
    a = x * 2
    show("p")
    return a + 1, kept.name, boxes[0].name


@case(pos(), {"k": Box("first")}, graphs=2, breaks=1)
def local_read_from_a_dict_cleared_before_a_break(x, table):
    kept = table["k"]
    table.clear()
    a = x * 2
    show("p")
    return a + 1, kept.name, len(table)
# A loop over enumerate() or zip() of lists goes on iterating the live lists after a break: items
# appended or stored during the loop are seen, as CPython does.
# Four passes over a growing list: the body reads len(items) and appends to out, so each pass's lengths
# differ; from the third pass on the break sits at the loop's FOR_ITER (test_graph_breaks.print_in_loop).
@case(pos(), [pos(), pos()], graphs=4, breaks=1)
def enumerate_list_appended_after_break(x, items):
    out = []
    for i, t in enumerate(items, start=1):
        show(i)
        if len(items) < 4:
            items.append(x * 10)
        out.append(t * i)
    return out


# In the resume function of the loop body, xs[i + 1] with the per-pass counter is fetched natively (one
# more break than specialising i for these 3 passes; at 20 passes 14 frames where it was 19).
@case(pos(), [pos(), pos(), pos()], [pos(), pos(), pos()], graphs=5, breaks=3)
def zip_lists_stored_after_break(x, xs, ys):
    out = []
    for i, (a, b) in enumerate(zip(xs, ys)):
        show(i)
        if i + 1 < len(xs):
            xs[i + 1] = xs[i + 1] * 10
        out.append(a + b + x)
    return out


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_more_graph_breaks_match_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_more_graph_breaks_match_eager_with_aot_eager(fn, args, kwargs, graphs, breaks):
    compare(fn, *args, backend="aot_eager", **kwargs)
