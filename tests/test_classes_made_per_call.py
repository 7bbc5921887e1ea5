"""A class statement in a compiled function whose methods read values of each call (a list made in the call, a
tensor argument, a cell bound again or written by ``nonlocal``): captured whole, and made again on each call by the
compiled code, as eager makes it, wherever the class leaves the trace. Before, each was a graph break at the class
statement ("its body reads 'log', which holds list of 0: a value of each call, while the compiled code keeps one
class")."""

from __future__ import annotations

import torch

import loom


def _run_twice(fn, *calls):
    """``fn`` compiled, run on each argument tuple of ``calls``: (eager results, compiled results, report)."""
    eager = [fn(*args) for args in calls]
    compiled = loom.compile(fn)
    got = [compiled(*args) for args in calls]
    return eager, got, loom.explain(fn)(*calls[0])


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _context_manager_logs(x):
    log = []

    class M:
        def __enter__(self):
            log.append("enter")
            return self

        def __exit__(self, *exc):
            log.append("exit")

    with M():
        x = x + 1
    return x, log


def test_context_manager_appending_to_a_local_list():
    eager, got, report = _run_twice(_context_manager_logs, (torch.ones(2),), (torch.zeros(2),))
    assert report.graph_count == 1 and report.break_count == 0
    assert all(_same(e, g) for e, g in zip(eager, got))
    assert got[0][1] is not got[1][1]


def _nonlocal_counter(x):
    count = 0

    class Counter:
        def bump(self, by):
            nonlocal count
            count += by

    Counter().bump(1)
    Counter().bump(x.shape[0])
    return x + count


def _rebound_after_class(x):
    k = 1

    class Reader:
        def get(self):
            return k

    k = x.shape[0] + 4
    return x + Reader().get()


def _reads_the_tensor_argument(x):
    class Once:
        def __init__(self):
            self.done = False

        def __iter__(self):
            return self

        def __next__(self):
            if self.done:
                raise StopIteration
            self.done = True
            return x

    out = x * 0
    for v in Once():
        out = out + v
    return out


def test_nonlocal_writes_rebound_cells_and_tensor_cells():
    for fn in (_nonlocal_counter, _rebound_after_class, _reads_the_tensor_argument):
        loom.reset()
        eager, got, report = _run_twice(fn, (torch.ones(2),), (torch.arange(3.0),))
        assert report.graph_count == 1 and report.break_count == 0, fn.__name__
        assert all(_same(e, g) for e, g in zip(eager, got)), fn.__name__


def _escaping(x):
    log = []

    class Logger:
        def note(self, what):
            log.append(what)

    first = Logger()
    first.note("a")
    return x + 1, first, log, Logger


def test_escaping_instances_and_classes_keep_their_own_calls_state():
    _, got, report = _run_twice(_escaping, (torch.ones(2),), (torch.zeros(2),))
    assert report.graph_count == 1 and report.break_count == 0
    (_, first1, log1, cls1), (_, first2, log2, cls2) = got
    assert cls1 is not cls2 and type(first1) is cls1 and type(first2) is cls2  # one class per call, as in eager
    first1.note("late")
    cls1().note("later")
    first2.note("two")
    assert log1 == ["a", "late", "later"] and log2 == ["a", "two"]
    assert cls1.__qualname__ == "_escaping.<locals>.Logger"


def _uses_a_class_made_per_call(x):
    log = []

    class Leaf:
        def touch(self):
            log.append(1)
            return self

    class Maker:  # reads only Leaf, itself made on each call: made on each call too
        def make(self):
            return Leaf().touch()

    leaf = Maker().make()
    return x + len(log), leaf, Maker, log


def test_a_class_naming_a_class_made_per_call_is_made_per_call():
    _, got, report = _run_twice(_uses_a_class_made_per_call, (torch.ones(2),), (torch.zeros(2),))
    assert report.graph_count == 1 and report.break_count == 0
    (_, leaf1, maker1, log1), (_, leaf2, maker2, log2) = got
    assert maker1 is not maker2 and type(leaf1) is not type(leaf2)
    maker1().make()
    assert log1 == [1, 1] and log2 == [1]


def _across_a_break(x):
    log = []

    class M:
        def __enter__(self):
            log.append("in")
            return self

        def __exit__(self, *exc):
            log.append("out")

    with M() as m:
        x = x + 1
        print("", end="")  # a graph break inside the block
        x = x * 2
    return x, log, m


def test_live_across_a_graph_break():
    eager, got, report = _run_twice(_across_a_break, (torch.ones(2),), (torch.zeros(2),))
    assert report.graph_count == 2 and report.break_count == 1
    assert "print" in str(report.breaks[0].reason)
    for e, g in zip(eager, got):
        assert _same(e[:2], g[:2])
    assert type(got[0][2]) is not type(got[1][2]) and got[0][1] is not got[1][1]


def _make_logged(log):
    class Logged:
        def note(self):
            log.append(len(log))

    return Logged()


def _made_in_an_inlined_function(x):
    log = []
    item = _make_logged(log)
    item.note()
    return x + len(log), item, log


def test_made_in_an_inlined_function_and_escaping():
    _, got, report = _run_twice(_made_in_an_inlined_function, (torch.ones(2),), (torch.zeros(2),))
    assert report.graph_count == 1 and report.break_count == 0
    (_, item1, log1), (_, item2, log2) = got
    item1.note()
    assert log1 == [0, 1] and log2 == [0]


def _reentrant(x, depth):
    log = []

    class Scope:
        def __enter__(self):
            log.append(depth)

        def __exit__(self, *exc):
            log.append(-depth)

    with Scope():
        inner = _reentrant(x, depth - 1)[1] if depth else []
        x = x + depth
    return x, log + inner


def test_reentrant_calls_keep_their_own_cells():
    eager, got, report = _run_twice(_reentrant, (torch.ones(2), 2), (torch.zeros(2), 3))
    assert report.break_count == 0
    assert all(_same(e, g) for e, g in zip(eager, got))


def _body_reads_a_value_of_the_call(x):
    log = []

    class Sized:
        size = len(log)  # the body itself reads the call's list: made once it would hold one call's

        def get(self):
            return log

    log.append(1)
    return x + Sized.size + len(Sized().get())


def _escapes_closing_over_an_argument(x):
    class Holder:
        def get(self):
            return x

    return Holder()


def test_what_cannot_be_made_per_call_still_breaks_naming_the_class():
    eager, got, report = _run_twice(_body_reads_a_value_of_the_call, (torch.ones(2),), (torch.zeros(2),))
    assert report.break_count == 1 and "class Sized" in str(report.breaks[0].reason)
    assert all(_same(e, g) for e, g in zip(eager, got))
    loom.reset()
    eager, got, report = _run_twice(_escapes_closing_over_an_argument, (torch.ones(2),), (torch.zeros(2),))
    assert report.break_count == 1 and "class Holder" in str(report.breaks[0].reason)
    assert all(_same(e.get(), g.get()) for e, g in zip(eager, got))


def _closure_over_an_enclosing_list():
    log = []

    def compiled_fn(x):
        class Noter:
            def note(self):
                log.append(len(log))

        Noter().note()
        return x + len(log), Noter()

    return compiled_fn, log


def test_closing_over_an_enclosing_functions_cell_and_after_a_break():
    fn, log = _closure_over_an_enclosing_list()
    compiled = loom.compile(fn)
    _, noter = compiled(torch.ones(2))
    _, again = compiled(torch.zeros(2))
    noter.note()
    assert log == [0, 1, 2] and type(noter) is not type(again)
    assert loom.explain(fn)(torch.ones(2)).break_count == 0
    loom.reset()
    eager, got, report = _run_twice(_class_after_a_break, (torch.ones(2),), (torch.zeros(2),))
    assert report.break_count == 1 and "print" in str(report.breaks[0].reason)
    assert report.graph_count == 2  # the resume function's too: its class made per call with its handed-in cells
    for e, g in zip(eager, got):
        assert _same(e[0], g[0]) and e[2] == g[2]
    got[0][1].note()
    assert got[0][2] == [1, 2, 3] and got[1][2] == [1, 2]


def _class_after_a_break(x):
    log = []
    x = x + 1
    print("", end="")  # a graph break: the rest is a resume function, handed the cell of log

    class Noter:
        def note(self):
            log.append(len(log) + 1)

    Noter().note()
    Noter().note()
    return x * 2, Noter(), log
