"""Classes made inside the compiled frame (``opcodes/class_definitions.py`` and the modules beside it).

A class statement whose body closes over the function's locals is made once, with real cells, where what they
hold is fixed for the compiled entry and never bound again (before: a graph break at every such statement); a
cell holding a per-call value still breaks, naming it. A class body is run once while tracing only where that is
the same as running it per call (before: ``REGISTRY.append`` in a body ran once for all calls, a wrong answer),
and a made class handed to the code after a graph break is watched by guards (before: a change made there was
seen by every later call, a wrong answer). ``type(name, bases, ns)`` and ``Enum("E", names)`` make classes as a
class statement does.
"""

import contextlib
import enum
import io
import itertools

import torch
from breaks_harness import show

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _same(got, want):
    if isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert got == want, (got, want)


def _check(fn, *args, graphs=1, breaks=0, calls=2):
    """Eager's answers on ``calls`` calls, the compiled ones, and the counts of one explain run."""
    with contextlib.redirect_stdout(io.StringIO()):
        expected = [fn(*args) for _ in range(calls)]
        compiled = _compiled(fn)
        results = [compiled(*args) for _ in range(calls)]
    stats = loom.stats()
    for got, want in zip(results, expected):
        _same(got, want)
    report = _explain(fn, *args)
    assert (report.graph_count, report.graph_break_count) == (graphs, breaks), report.breaks
    return stats, report


# -- closures -------------------------------------------------------------------------------------------------
def method_names_other_local_class(x):
    class Box:
        def __init__(self, t):
            self.t = t

    class Maker:
        def make(self, t):
            return Box(t * 2)

    return Maker().make(x).t + 1


def method_reads_constant_and_argument(x, k):
    scale = 3

    class Scaler:
        def apply(self, t):
            return t * scale + k

    return Scaler().apply(x)


def method_reads_local_function(x):
    def helper(t):
        return t.sin()

    class User:
        def run(self, t):
            return helper(t) + 1

    return User().run(x) + helper(x)


def test_class_closing_over_fixed_values_is_one_graph_without_recompiling():
    for fn, args in ((method_names_other_local_class, ()), (method_reads_constant_and_argument, (4,)),
                     (method_reads_local_function, ())):
        stats, _ = _check(fn, torch.ones(2), *args)
        assert stats["recompiles"] == 0, (fn.__name__, stats)


def test_a_guarded_constant_in_a_cell_recompiles_when_it_changes():
    compiled = _compiled(method_reads_constant_and_argument)
    x = torch.ones(2)
    torch.testing.assert_close(compiled(x, 1), method_reads_constant_and_argument(x, 1))
    torch.testing.assert_close(compiled(x, 2), method_reads_constant_and_argument(x, 2))


def method_reads_tensor(x):
    weight = x * 2

    class Scale:
        def apply(self, t):
            return t * weight

    return Scale().apply(x)


def method_appends_to_list(x):
    log = []

    class Logger:
        def note(self, what):
            log.append(what)

    Logger().note("a")
    return x + len(log), log


def cell_bound_again(x):
    k = 1

    class Reader:
        def get(self):
            return k

    k = 5
    return x + Reader().get()


def class_in_loop(x):
    made = []
    for i in range(3):
        class Reader:
            def get(self):
                return i  # noqa: B023 - every class reads the one cell

        made.append(Reader)
    return x + sum(c().get() for c in made)


def method_writes_nonlocal(x):
    count = 0

    class Counter:
        def bump(self):
            nonlocal count
            count += 1

    Counter().bump()
    return x + count


def test_cells_of_each_call_make_the_class_on_each_call():
    # (a break at the class statement before: tests/test_classes_made_per_call.py has more)
    for fn in (method_reads_tensor, method_appends_to_list, cell_bound_again, class_in_loop, method_writes_nonlocal):
        with contextlib.redirect_stdout(io.StringIO()):
            expected = fn(torch.ones(2))
            got = _compiled(fn)(torch.ones(2))
        _same(got, expected)
        report = _explain(fn, torch.ones(2))
        assert not report.breaks, (fn.__name__, report.breaks)


# -- class bodies ---------------------------------------------------------------------------------------------
_REGISTRY = []
_COUNTER = itertools.count()


def body_appends_to_global(x):
    class Entry:
        _REGISTRY.append(1)

    return x + len(_REGISTRY)


def body_draws_from_counter(x):
    class Entry:
        n = next(_COUNTER)

    return x + Entry.n


def test_a_body_that_acts_outside_the_class_runs_on_every_call():
    global _COUNTER
    _REGISTRY.clear()
    compiled = _compiled(body_appends_to_global)
    assert [compiled(torch.zeros(1)).item() for _ in range(3)] == [1.0, 2.0, 3.0]
    _COUNTER = itertools.count()
    compiled = _compiled(body_draws_from_counter)
    assert [compiled(torch.zeros(1)).item() for _ in range(3)] == [0.0, 1.0, 2.0]
    report = _explain(body_appends_to_global, torch.zeros(1))
    assert "its body calls" in report.breaks[0].why, report.breaks


def body_with_builders(x):
    width = 4

    class Config:
        size = width * 2
        name = f"w{width}"
        kinds = {i * 2 for i in range(3)}
        note: int | None = None

        @property
        def doubled(self):
            return self.size * 2

        @staticmethod
        def shift(t):
            return t + 1

    return Config.shift(x) * Config().doubled + len(Config.kinds), Config.name


def test_a_body_of_builders_is_one_graph():
    _check(body_with_builders, torch.ones(2))


# -- a made class handed to the code after a graph break ------------------------------------------------------
def class_changed_after_a_break(x):
    class Tally:
        n = 0

    show("break")
    Tally.n += 1
    return x + Tally.n


def test_a_made_class_changed_after_a_break_is_made_afresh_on_the_next_call():
    compiled = _compiled(class_changed_after_a_break)
    with contextlib.redirect_stdout(io.StringIO()):
        got = [compiled(torch.zeros(1)).item() for _ in range(3)]
    assert got == [1.0, 1.0, 1.0]
    report = _explain(class_changed_after_a_break, torch.zeros(1))
    assert report.graph_count == 1 and report.graph_break_count == 1, report.breaks


# -- classes made by calls ------------------------------------------------------------------------------------
def three_argument_type(x):
    class Base:
        def get(self):
            return 1

    Point = type("Point", (Base,), {"k": 3, "double": lambda self, t: t * 2})
    p = Point()
    return p.double(x) + Point.k + p.get(), Point.__name__, Point.__module__


def enum_functional_api(x):
    Color = enum.Enum("Color", ["RED", "GREEN"])
    Level = enum.IntEnum("Level", "LOW HIGH")
    return x * Level.HIGH + Color.GREEN.value, Color.__module__, [m.name for m in Level]


def test_classes_made_by_calls_are_one_graph():
    _, report = _check(three_argument_type, torch.ones(2))
    _check(enum_functional_api, torch.ones(2))
    assert three_argument_type(torch.ones(2))[2] == _compiled(three_argument_type)(torch.ones(2))[2] == __name__
